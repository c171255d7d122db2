package dev.tine.executor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import org.HdrHistogram.WriterReaderPhaser;

/**
 * One pool thread's recording of the tasks it ran, for one {@link PoolMeter}: exact counts of
 * completed and failed tasks, and the wait, service and response times of the timed ones. Get one
 * from {@link PoolMeter#recorder()} on the thread that will use it; only that thread may call
 * {@link #record}. Nothing in it is shared with other pool threads, so recording takes no lock.
 *
 * <p><b>Cost of {@link #record}</b>: for every task, one or two plain stores (with release order)
 * of the counts; for a timed task also two uncontended atomic increments (entering and leaving a
 * {@link WriterReaderPhaser}'s critical section) and three histogram increments. The caller's two
 * {@code System.nanoTime()} reads around a timed task (about 28 ns each on the development box)
 * cost about as much; sampling ({@link PoolMeterBuilder#sampling}) skips both for most tasks. A
 * timed task also reads one volatile flag (whether JFR is in use, see {@link MeterEvents}).
 *
 * <p><b>Memory</b>: about 1.1 MB (two sets of three histograms, swapped at each harvest). If the
 * heap cannot spare them when the recorder is made, it still counts tasks exactly but times none
 * ({@link #timesTasks()} is false).
 *
 * <p><b>Harvest</b>: the meter reads the counts (acquire) and swaps the timing sets under the
 * phaser (the pattern of HdrHistogram's {@code Recorder}, here for three histograms at once), on
 * the ticking thread or in {@link PoolMeter#snapshot()}, under the meter's lock.
 */
public final class ThreadRecorder {
  private static final VarHandle COMPLETED, FAILED;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      COMPLETED = l.findVarHandle(ThreadRecorder.class, "completed", long.class);
      FAILED = l.findVarHandle(ThreadRecorder.class, "failed", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The meter this recorder belongs to (set at construction). */
  final PoolMeter meter;

  /** The thread that records; weak, so a cache keyed by the thread does not keep it alive. */
  final WeakReference<Thread> thread;

  /** Its id, for reading its CPU time. */
  final long threadId;

  // Written by the recording thread only (release stores); read by harvests (acquire).
  @SuppressWarnings("unused") // through COMPLETED
  private long completed;

  @SuppressWarnings("unused") // through FAILED
  private long failed;

  // The timing sets: null when the heap could not spare them. `active` is written by harvests
  // (under the phaser's reader lock and the meter's lock) and read by the recording thread;
  // `inactive` is touched by harvests only.
  private final WriterReaderPhaser phaser;
  private volatile TaskTimings active;
  private TaskTimings inactive;

  // Guarded by the meter's lock: what harvests have already taken, this thread's CPU time at the
  // last harvest (-1: unknown), whether the recorder has left the meter, and the links of the
  // meter's list of recorders.
  long harvestedCompleted, harvestedFailed, lastCpuNanos = -1;
  boolean released;
  ThreadRecorder prev, next;

  /** {@code active} and {@code inactive} both null (no timings) or both set. */
  ThreadRecorder(PoolMeter meter, Thread thread, TaskTimings active, TaskTimings inactive) {
    this.meter = meter;
    this.thread = new WeakReference<>(thread);
    this.threadId = thread.threadId();
    this.phaser = active != null ? new WriterReaderPhaser() : null;
    this.active = active;
    this.inactive = inactive;
  }

  /**
   * Records one task that this thread ran to its end, normally or not.
   *
   * <p>Counts it (and, if {@code failed}, counts a failure) exactly, always. If {@code arrival} is
   * a timestamp (not {@link PoolMeter#UNTIMED}, i.e. {@link PoolMeter#arrive()} chose this task for
   * timing) and this recorder times tasks, also records wait = {@code start - arrival}, service =
   * {@code end - start} and response = their sum. {@code start} and {@code end} are {@code
   * System.nanoTime()} readings taken just before and just after the task ran; for an untimed task
   * pass anything (e.g. {@code UNTIMED}) and skip the clock reads. Times over an hour count as an
   * hour, negative ones as zero; nothing here throws.
   *
   * <p>Only the thread that got this recorder from {@link PoolMeter#recorder()} may call it. A call
   * after {@link PoolMeter#release release} is lost.
   *
   * @param arrival what {@link PoolMeter#arrive()} returned when the task was offered
   * @param start {@code System.nanoTime()} just before the task ran (read only if timed)
   * @param end {@code System.nanoTime()} just after it ran (read only if timed)
   * @param failed whether the task threw (or its future ended exceptionally)
   */
  public void record(long arrival, long start, long end, boolean failed) {
    // Single writer: a plain read of our own field, then a release store the harvester pairs
    // with an acquire load. No atomic read-modify-write is needed.
    COMPLETED.setRelease(this, (long) COMPLETED.get(this) + 1);
    if (failed) FAILED.setRelease(this, (long) FAILED.get(this) + 1);
    if (arrival == PoolMeter.UNTIMED) return;
    if (MeterEvents.ready)
      MeterJfr.queueWait(meter, start - arrival, end - start, failed); // JFR in use
    if (phaser == null) return;
    long critical = phaser.writerCriticalSectionEnter();
    try {
      active.record(start - arrival, end - start);
    } finally {
      phaser.writerCriticalSectionExit(critical);
    }
  }

  /** {@return whether timed tasks are timed (false if the heap could not spare the histograms)} */
  public boolean timesTasks() {
    return phaser != null;
  }

  /** {@return the meter this recorder records for} */
  public PoolMeter meter() {
    return meter;
  }

  /** Tasks recorded so far (exact once the recording thread's last store is visible). */
  long completed() {
    return (long) COMPLETED.getAcquire(this);
  }

  long failed() {
    return (long) FAILED.getAcquire(this);
  }

  /**
   * Harvest (meter's lock held): moves the timings recorded since the last one into {@code into}.
   */
  void harvestTimingsInto(TaskTimings into) {
    if (phaser == null) return;
    phaser.readerLock();
    try {
      TaskTimings fresh = inactive;
      fresh.reset();
      TaskTimings done = active;
      active = fresh;
      phaser.flipPhase();
      into.add(done);
      inactive = done;
    } finally {
      phaser.readerUnlock();
    }
  }

  /** True once the recording thread has ended (or been collected). */
  boolean threadEnded() {
    Thread t = thread.get();
    return t == null || !t.isAlive();
  }

  @Override
  public String toString() {
    Thread t = thread.get();
    return "ThreadRecorder["
        + (t != null ? t.getName() : "thread " + threadId)
        + ", "
        + completed()
        + " tasks]";
  }
}

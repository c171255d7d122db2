package dev.tine.executor;

import java.lang.management.ManagementFactory;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Measures one thread pool without a global lock: every task's arrival, queue wait ("dead time"),
 * service and response time, and from them Pepperdine's figures ({@link ExecutorSnapshot}: λ, S,
 * Wq, R, Little's L, the dead-time ratio, p50/p90/p99, rejections, CPU), since start and over a
 * sliding window of ticks. It creates no pool threads and wraps no tasks: the pool's owner calls it
 * from the submit side and from the pool's threads, whoever created them. {@link MeasuredExecutor}
 * is built on it; so can be an agent measuring an unmodified {@code ThreadPoolExecutor} or {@code
 * ForkJoinPool}.
 *
 * <h2>The protocol</h2>
 *
 * <pre>{@code
 * PoolMeter meter = PoolMeter.builder().name("orders")
 *     .gauges(PoolMeter.Gauges.of(pool::getPoolSize, () -> pool.getQueue().size()))
 *     .build();                                   // starts its ticker (a daemon thread)
 *
 * // submit side, for every task offered to the pool:
 * long arrival = meter.arrive();                  // counted; UNTIMED unless sampled for timing
 * try {
 *   pool.execute(new Stamped(task, arrival));     // the arrival travels with the task
 * } catch (RejectedExecutionException e) {
 *   meter.reject();
 *   throw e;
 * }
 *
 * // worker side, around every task a pool thread runs:
 * ThreadRecorder rec = recorders.get();           // meter.recorder(), once per (meter, thread)
 * long start = arrival == PoolMeter.UNTIMED ? PoolMeter.UNTIMED : System.nanoTime();
 * boolean failed = true;
 * try {
 *   task.run();
 *   failed = false;
 * } finally {
 *   long end = arrival == PoolMeter.UNTIMED ? PoolMeter.UNTIMED : System.nanoTime();
 *   rec.record(arrival, start, end, failed);
 * }
 *
 * meter.windowSnapshot();                         // the figures
 * meter.close();                                  // stops the ticker
 * }</pre>
 *
 * <ul>
 *   <li><b>Counts are exact</b>, whatever the {@linkplain PoolMeterBuilder#sampling sampling}:
 *       arrivals (every {@link #arrive()}, accepted or then rejected), rejections ({@link
 *       #reject()}), completions and failures (every {@link ThreadRecorder#record}, and {@link
 *       #completed} for threads without a recorder). A task recorded without having arrived (queued
 *       before the owner started calling {@code arrive()}, or forked inside a {@code ForkJoinPool})
 *       is a completion, untimed if it has no arrival timestamp to pass.
 *   <li><b>Timings are sampled</b>, 1 in n tasks chosen at random by {@code arrive()}; means and
 *       percentiles come from the timed tasks.
 *   <li><b>Recorders</b>: one per (meter, pool thread), made and registered by {@link #recorder()}
 *       on that thread. The meter keeps no map from threads to recorders (so no lookup on its
 *       side); the caller caches each recorder: a field of its own thread class, a {@code
 *       ThreadLocal}, or a weak map keyed by the thread (a recorder refers to its thread weakly). A
 *       recorder leaves the meter when {@linkplain #release released} (what it recorded is kept),
 *       or at the first harvest after its thread ended (its CPU time since the harvest before is
 *       lost). So the meter holds at most one recorder per live thread that recorded, about 1.1 MB
 *       each (its histograms).
 * </ul>
 *
 * <h2>Threads and locks</h2>
 *
 * {@code arrive}, {@code reject}, {@code queueLength}, {@code completed} and {@link
 * ThreadRecorder#record} take no lock and may be called from any thread (a recorder from its own
 * thread only). {@code recorder}, {@code release}, {@code recorderCount} and the snapshots take the
 * meter's private lock, briefly; {@code tick} takes it too, after a second lock that keeps ticks
 * from overlapping. The meter never holds its lock while it calls the owner's code (the {@link
 * Gauges}, the {@linkplain PoolMeterBuilder#onTick tick listener}), so that code may call the meter
 * and take the pool's locks.
 *
 * <h2>Ticks</h2>
 *
 * Each tick harvests every recorder and counter into the current bucket, moves it into the
 * since-start total and the window's ring, drops the recorders of ended threads, and then runs the
 * owner's tick listener. The meter ticks itself on a daemon thread ({@link
 * PoolMeterBuilder#ownTicker}), or the owner calls {@link #tick()}. A tick that throws (in a
 * harvest or the listener) is counted ({@link #tickFailures()}, in every snapshot) and kept ({@link
 * #lastTickFailure()}); the next tick runs as usual. Snapshots harvest first, so they see every
 * record made before the call, ticked or not.
 *
 * <h2>JDK Flight Recorder</h2>
 *
 * While a recording enables them, every meter emits {@code dev.tine.PoolMeterStatistics} samples
 * (λ, S, Wq, R, L, dead-time ratio, rejections and sizes over each period), {@code
 * dev.tine.QueueWait} for a timed task that waited at least a threshold, and {@code
 * dev.tine.TaskRejected} from {@link #reject()}; see {@link MeterEvents}. Without JFR in use they
 * cost a volatile read per timed task and per rejection.
 */
public final class PoolMeter implements AutoCloseable {
  /** What {@link #arrive()} returns for an arrival whose times are not sampled. */
  public static final long UNTIMED = 0;

  /** One arrival in QUEUE_SAMPLE records the queue length it found (percentiles need no more). */
  static final int QUEUE_SAMPLE = 8;

  private static final AtomicInteger SEQ = new AtomicInteger();

  // Configuration: final, set by the builder.
  private final String name;
  private final int sampling;
  private final int processors;
  private final long tickNanos;
  private final Gauges gauges; // null: none
  private final Consumer<PoolMeter> onTick; // null: none
  private final Supplier<TaskTimings> newTimings;

  // Submit side and unregistered threads: lock-free, any thread.
  private final LongAdder arrivals = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final LongAdder unregisteredCompleted = new LongAdder();
  private final LongAdder unregisteredFailed = new LongAdder();
  private final Recorder queueLengths = new Recorder(3);

  // Tick failures: written under tickLock, read by anyone.
  private final AtomicLong tickFailures = new AtomicLong();
  private volatile Throwable lastTickFailure;

  /**
   * Serializes ticks (harvest, rotation and the listener); taken before {@code lock}, never inside.
   */
  private final ReentrantLock tickLock = new ReentrantLock();

  /** Guards everything below. Never held while calling the owner's gauges or tick listener. */
  private final Object lock = new Object();

  private final RegisteredRecorders recorders = new RegisteredRecorders();
  private final MeasurementWindow window;
  private final Histogram queueScratch = new Histogram(3);

  /** Counter values at the last harvest, and the process CPU time then (-1: unknown). */
  private long harvestedArrivals, harvestedRejected;

  private long harvestedUnregisteredCompleted, harvestedUnregisteredFailed;
  private long lastProcessCpu = processCpuNanos();

  /** The counts of every completed tick, for JFR samples ({@link MeterEvents}). */
  private final MeterTotals ticked = new MeterTotals();

  /** Null when the owner ticks. Its thread only runs {@link #tick()}. */
  private final ScheduledExecutorService ticker;

  PoolMeter(PoolMeterBuilder b) {
    this.name = b.name != null ? b.name : "pool-meter-" + SEQ.incrementAndGet();
    this.sampling = b.sampling;
    this.processors = b.processors;
    this.tickNanos = b.tick.toNanos();
    this.gauges = b.gauges;
    this.onTick = b.onTick;
    this.newTimings = b.newTimings;
    this.window = new MeasurementWindow(System.nanoTime(), tickNanos, b.window.toNanos());
    if (b.ownTicker) {
      ScheduledThreadPoolExecutor t =
          new ScheduledThreadPoolExecutor(
              1,
              r -> {
                Thread th = new Thread(r, name + "-ticker");
                th.setDaemon(true);
                return th;
              });
      t.setRemoveOnCancelPolicy(true);
      t.scheduleAtFixedRate(this::tick, tickNanos, tickNanos, TimeUnit.NANOSECONDS);
      this.ticker = t;
    } else {
      this.ticker = null;
    }
    MeterEvents.register(this); // JFR samples; forgotten when closed
  }

  /** {@return a builder for a meter of a pool this code did not create} */
  public static PoolMeterBuilder builder() {
    return new PoolMeterBuilder();
  }

  // ---------------------------------------------------------------------------------------------
  // Submit side

  /**
   * Counts one task offered to the pool, exactly, and decides whether its times are sampled. Call
   * it before handing the task to the pool (so the queue length it samples is the one the task
   * finds) and carry the result with the task to {@link ThreadRecorder#record}. If the pool then
   * refuses the task, also call {@link #reject()}. With {@linkplain PoolMeterBuilder#gauges
   * gauges}, one call in eight also records the queue length ({@link Gauges#queueLength()}; a gauge
   * that throws loses that sample only). Lock-free; never throws.
   *
   * @return {@code System.nanoTime()} now if this task's times are sampled, else {@link #UNTIMED}
   *     (a clock reading that happens to equal {@code UNTIMED} is returned as 1)
   */
  public long arrive() {
    arrivals.increment();
    if (gauges == null && sampling == 1) return now();
    int r = ThreadLocalRandom.current().nextInt();
    if (gauges != null && (r & (QUEUE_SAMPLE - 1)) == 0) {
      try {
        queueLengths.recordValue(Math.max(0, gauges.queueLength()));
      } catch (RuntimeException e) {
        // a sample lost; the submitter must not fail for it
      }
    }
    return sampling == 1 || (r >>> 3) % sampling == 0 ? now() : UNTIMED;
  }

  private static long now() {
    long t = System.nanoTime();
    return t != UNTIMED ? t : 1;
  }

  /** Counts one task the pool refused (after its {@link #arrive()}). Lock-free. */
  public void reject() {
    rejected.increment();
    if (MeterEvents.ready) MeterJfr.rejected(this);
  }

  /**
   * Records one queue-length sample (negative counts as 0), for owners that give no gauges or
   * sample the queue themselves. Every call is recorded: call it for a sample of arrivals (one in
   * eight is plenty for percentiles), not for each. Lock-free.
   *
   * @param n the queue length now
   */
  public void queueLength(int n) {
    queueLengths.recordValue(Math.max(0, n));
  }

  /**
   * Counts one task that ended on a thread with no recorder, e.g. run on the submitting thread by a
   * caller-runs rejection policy: exact, untimed, and slower than a recorder (a shared counter).
   * Pool threads should use {@link #recorder()}.
   *
   * @param failed counts one task that ended on a thread with no recorder, e.g
   */
  public void completed(boolean failed) {
    unregisteredCompleted.increment();
    if (failed) unregisteredFailed.increment();
  }

  // ---------------------------------------------------------------------------------------------
  // Worker side

  /**
   * Makes and registers a recorder for the calling thread; only that thread may record into it.
   * Each call registers a new one: call it once per thread and cache the result. If the heap cannot
   * spare its histograms (about 1.1 MB) the recorder counts but does not time ({@link
   * ThreadRecorder#timesTasks()}). Takes the meter's lock briefly.
   *
   * @return the calling thread's new recorder
   */
  public ThreadRecorder recorder() {
    TaskTimings active, inactive;
    try {
      active = newTimings.get();
      inactive = newTimings.get();
    } catch (OutOfMemoryError e) {
      active = inactive = null; // counts stay exact; timings of this thread's tasks are lost
    }
    Thread t = Thread.currentThread();
    ThreadRecorder r = new ThreadRecorder(this, t, active, inactive);
    long cpu = RegisteredRecorders.currentThreadCpuNanos();
    synchronized (lock) {
      recorders.add(r, cpu);
    }
    return r;
  }

  /**
   * Takes a recorder out of the meter: what it recorded is harvested into the current tick (so it
   * stays in the totals and the window), then the meter lets go of it. Call it when the thread
   * stops running the pool's tasks (its last {@code record} must be visible to the caller: call it
   * on that thread, or after it ended). Records made afterwards are lost. Releasing twice is
   * harmless.
   *
   * @param r a recorder of this meter
   * @throws IllegalArgumentException if the recorder belongs to another meter
   */
  public void release(ThreadRecorder r) {
    if (r.meter != this) {
      throw new IllegalArgumentException(r + " belongs to meter " + r.meter.name + ", not " + name);
    }
    synchronized (lock) {
      recorders.release(r, window.current);
    }
  }

  /**
   * {@return recorders registered now: one per live thread that recorded, once ended ones are
   * dropped}
   */
  public int recorderCount() {
    synchronized (lock) {
      return recorders.count();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Ticks and harvests

  /**
   * One tick: harvests everything into the current bucket, ends it (into the total and the window's
   * ring), drops the recorders of threads that have ended, then runs the tick listener. Never
   * throws: a failure is counted and kept, see {@link #tickFailures()}. Ticks are serialized; call
   * it from the owner's own scheduler when built with {@code ownTicker(false)}, about once per
   * {@linkplain PoolMeterBuilder#tick tick} (the window holds window/tick ticks, whatever their
   * length).
   */
  public void tick() {
    tickLock.lock();
    try {
      synchronized (lock) {
        long now = System.nanoTime();
        harvest(now);
        ticked.add(window.current);
        window.rotate(now);
      }
      if (onTick != null) onTick.accept(this);
    } catch (RuntimeException | Error e) {
      // A periodic task that throws is never run again, and an owner's scheduler may stop too:
      // count it, keep it, and let the next tick try again.
      tickFailures.incrementAndGet();
      lastTickFailure = e;
    } finally {
      tickLock.unlock();
    }
  }

  /** {@return ticks that threw since the meter started (also in every snapshot)} */
  public long tickFailures() {
    return tickFailures.get();
  }

  /** {@return what the last failed tick threw, or null if none has failed} */
  public Throwable lastTickFailure() {
    return lastTickFailure;
  }

  /** Everything recorded since the last harvest, into the current bucket; lock held. */
  private void harvest(long now) {
    MeasurementBucket cur = window.current;
    // Rejections first and arrivals last: every task counted in between arrived before its count
    // was read, so arrivals never fall behind completed + rejected.
    long rj = rejected.sum();
    recorders.harvestAll(cur); // drops the recorders of ended threads
    long uc = unregisteredCompleted.sum(), uf = unregisteredFailed.sum();
    cur.completed += uc - harvestedUnregisteredCompleted;
    cur.failed += uf - harvestedUnregisteredFailed;
    harvestedUnregisteredCompleted = uc;
    harvestedUnregisteredFailed = uf;
    long ar = arrivals.sum();
    cur.arrivals += ar - harvestedArrivals;
    cur.rejected += rj - harvestedRejected;
    harvestedArrivals = ar;
    harvestedRejected = rj;
    queueLengths.getIntervalHistogramInto(queueScratch); // replaces the scratch's contents
    cur.queue.add(queueScratch);
    long cpu = processCpuNanos();
    if (cpu >= 0 && lastProcessCpu >= 0) {
      cur.processCpuNanos = MeasurementBucket.addKnown(cur.processCpuNanos, cpu - lastProcessCpu);
    }
    lastProcessCpu = cpu;
    cur.endNanos = now;
  }

  private static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /**
   * The exact counts and timing sums since start into {@code into} (harvests first), for JFR
   * samples; returns the {@code System.nanoTime()} they are of.
   */
  long totals(MeterTotals into) {
    synchronized (lock) {
      long now = System.nanoTime();
      harvest(now);
      into.set(ticked, window.current);
      return now;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Snapshots

  /**
   * {@return figures since the meter was built, up to now (harvests first: the latest records
   * count)}
   */
  public ExecutorSnapshot snapshot() {
    int poolSize = poolSizeGauge(), queueLength = queueLengthGauge();
    synchronized (lock) {
      long now = System.nanoTime();
      harvest(now);
      return ExecutorSnapshot.of(
          "since start", window.sinceStart(now), processors, poolSize, queueLength, tickFailures());
    }
  }

  /**
   * Figures over the sliding window: the last {@linkplain PoolMeterBuilder#window window} of ticks
   * and the current one, up to now (harvests first).
   *
   * @return the window's figures
   */
  public ExecutorSnapshot windowSnapshot() {
    int poolSize = poolSizeGauge(), queueLength = queueLengthGauge();
    synchronized (lock) {
      long now = System.nanoTime();
      harvest(now);
      return ExecutorSnapshot.of(
          window.windowLabel(),
          window.window(now),
          processors,
          poolSize,
          queueLength,
          tickFailures());
    }
  }

  /**
   * Figures over the last {@code ticks} completed ticks, without a harvest (for the tick listener).
   */
  ExecutorSnapshot recentSnapshot(int ticks) {
    int poolSize = poolSizeGauge(), queueLength = queueLengthGauge();
    synchronized (lock) {
      return ExecutorSnapshot.of(
          "recent",
          window.recent(ticks, System.nanoTime()),
          processors,
          poolSize,
          queueLength,
          tickFailures());
    }
  }

  /** The gauges' readings for a snapshot, outside the lock; -1 for none, or one that threw. */
  int poolSizeGauge() {
    try {
      return gauges == null ? -1 : gauges.poolSize();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  int queueLengthGauge() {
    try {
      return gauges == null ? -1 : gauges.queueLength();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** {@return the meter's name (and its ticker thread's)} */
  public String name() {
    return name;
  }

  /**
   * Stops the meter's own ticker, if it has one, without waiting for a tick in progress, and ends
   * its JFR samples (a last one covers the time since the one before). Recording and snapshots
   * still work; {@link #tick()} still ticks.
   */
  @Override
  public void close() {
    if (ticker != null) ticker.shutdownNow();
    MeterEvents.closed(this); // a last JFR sample, and no more
  }

  @Override
  public String toString() {
    return "PoolMeter["
        + name
        + ", 1 in "
        + sampling
        + " timed, "
        + recorderCount()
        + " recorders]";
  }

  /**
   * Figures the meter cannot see, from the pool's owner: read by snapshots (outside the meter's
   * lock) and, for {@code queueLength}, by one arrival in eight. They should be cheap and should
   * not throw: a reading that throws is reported as -1 (unknown) in that snapshot, and a
   * queue-length sample that throws is skipped; neither reaches the caller.
   */
  public interface Gauges {
    /** {@return threads in the pool now} */
    int poolSize();

    /** {@return tasks waiting in the pool's queue now} */
    int queueLength();

    /**
     * Gauges from two suppliers.
     *
     * @param poolSize reads the pool's thread count
     * @param queueLength reads the pool's queue length
     * @return the gauges
     */
    static Gauges of(IntSupplier poolSize, IntSupplier queueLength) {
      Objects.requireNonNull(poolSize);
      Objects.requireNonNull(queueLength);
      return new Gauges() {
        @Override
        public int poolSize() {
          return poolSize.getAsInt();
        }

        @Override
        public int queueLength() {
          return queueLength.getAsInt();
        }
      };
    }
  }
}

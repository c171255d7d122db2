package dev.tine.agent.state;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the agent counts and times for one pool, in a fixed and small amount of heap whatever the
 * pool's thread count: exact counts of arrivals, rejections, completions and failures ({@link
 * LongAdder}s), and for the timed tasks exact sums of wait and service time with one histogram of
 * each ({@link TimeBuckets}, 2.2 KB).
 *
 * <p>Every pool thread records into the same tally (no per-thread recorder to hold, so every thread
 * is timed alike). The histograms are updated with atomic increments, which is cheap because timed
 * tasks are few: above {@code timedRate} tasks per second a pool's timing is sampled. Everything is
 * cumulative; the ticker reads it into {@link Totals} and takes differences for its window, so
 * nothing is ever reset under the recording threads.
 */
public final class PoolTally {
  /** An arrival that is not timed (the same value as tine-executor's {@code PoolMeter.UNTIMED}). */
  public static final long UNTIMED = 0;

  private final LongAdder arrivals = new LongAdder(),
      rejected = new LongAdder(),
      completed = new LongAdder(),
      failed = new LongAdder();
  private final AtomicLongArray wait = new AtomicLongArray(TimeBuckets.COUNT),
      service = new AtomicLongArray(TimeBuckets.COUNT);
  private final AtomicLong timed = new AtomicLong(),
      waitNanos = new AtomicLong(),
      serviceNanos = new AtomicLong();

  /** Longest wait and service since the ticker last took them. */
  private final AtomicLong waitMax = new AtomicLong(), serviceMax = new AtomicLong();

  /** Counts an arrival; returns its time ({@code System.nanoTime()}, never {@link #UNTIMED}). */
  public long arrive() {
    arrivals.increment();
    long t = System.nanoTime();
    return t == UNTIMED ? 1 : t;
  }

  /** Counts an arrival read at {@code t} ({@code System.nanoTime()}); returns its time. */
  public long arrive(long t) {
    arrivals.increment();
    return t == UNTIMED ? 1 : t;
  }

  public void reject() {
    rejected.increment();
  }

  /** A task ended, untimed. */
  public void completed(boolean failed) {
    completed.increment();
    if (failed) this.failed.increment();
  }

  /**
   * A task ended: counted, and timed if it has an arrival time ({@code arrival != UNTIMED}; {@code
   * start} and {@code end} are then {@code System.nanoTime()} readings).
   */
  public void record(long arrival, long start, long end, boolean failed) {
    completed(failed);
    if (arrival == UNTIMED) return;
    long w = Math.max(0, start - arrival), s = Math.max(0, end - start);
    wait.getAndIncrement(TimeBuckets.index(w));
    service.getAndIncrement(TimeBuckets.index(s));
    waitNanos.addAndGet(w);
    serviceNanos.addAndGet(s);
    timed.incrementAndGet();
    if (w > waitMax.get()) waitMax.accumulateAndGet(w, Math::max);
    if (s > serviceMax.get()) serviceMax.accumulateAndGet(s, Math::max);
  }

  /** The pool thread that records (kept for the hooks' protocol: every thread shares the tally). */
  PoolTally recorder() {
    return this;
  }

  /** A pool thread stops recording (nothing to free: the tally is shared). */
  public void release(PoolTally r) {}

  /**
   * Reads the cumulative figures into {@code t} (ticker only); takes the maxima since last time.
   */
  void read(Totals t, long nanos) {
    t.nanos = nanos;
    // completions before their timings: a task counted here has its times in the same reading or
    // the next one, never a timing without its completion
    t.timed = timed.get();
    t.waitNanos = waitNanos.get();
    t.serviceNanos = serviceNanos.get();
    for (int i = 0; i < TimeBuckets.COUNT; i++) {
      t.wait[i] = wait.get(i);
      t.service[i] = service.get(i);
    }
    t.completed = completed.sum();
    t.failed = failed.sum();
    t.rejected = rejected.sum();
    t.arrivals = arrivals.sum();
    t.waitMax = waitMax.getAndSet(0);
    t.serviceMax = serviceMax.getAndSet(0);
  }

  /** Cumulative figures at one tick (what the window's ring holds). */
  static final class Totals {
    long nanos, arrivals, rejected, completed, failed, timed, waitNanos, serviceNanos;

    /** Longest wait and service in the period that ended at this reading. */
    long waitMax, serviceMax;

    final long[] wait = new long[TimeBuckets.COUNT], service = new long[TimeBuckets.COUNT];

    void copyFrom(Totals o) {
      nanos = o.nanos;
      arrivals = o.arrivals;
      rejected = o.rejected;
      completed = o.completed;
      failed = o.failed;
      timed = o.timed;
      waitNanos = o.waitNanos;
      serviceNanos = o.serviceNanos;
      waitMax = o.waitMax;
      serviceMax = o.serviceMax;
      System.arraycopy(o.wait, 0, wait, 0, wait.length);
      System.arraycopy(o.service, 0, service, 0, service.length);
    }
  }
}

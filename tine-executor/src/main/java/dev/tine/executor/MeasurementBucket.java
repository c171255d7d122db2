package dev.tine.executor;

import org.HdrHistogram.Histogram;

/**
 * What a {@link PoolMeter} measured over one period: one tick, the sum of the ticks in the window,
 * or everything since start. Not thread-safe; its meter's lock guards it. {@link
 * ExecutorSnapshot#of} turns one into the figures.
 */
final class MeasurementBucket {
  final TaskTimings timings = new TaskTimings();

  /** Queue lengths found by arrivals (a sample of them). */
  final Histogram queue = new Histogram(3);

  long arrivals, rejected, completed, failed;

  /** CPU time of the process, and of the meter's registered threads, in the period; -1: unknown. */
  long processCpuNanos = -1, threadCpuNanos = -1;

  /** The period, in {@code System.nanoTime()}. */
  long startNanos, endNanos;

  MeasurementBucket(long now) {
    reset(now);
  }

  void reset(long now) {
    timings.reset();
    queue.reset();
    arrivals = rejected = completed = failed = 0;
    processCpuNanos = threadCpuNanos = -1;
    startNanos = endNanos = now;
  }

  /** Whether any time has been measured into it (a ring slot not yet used has not). */
  boolean covers() {
    return endNanos > startNanos;
  }

  void add(MeasurementBucket b) {
    timings.add(b.timings);
    queue.add(b.queue);
    arrivals += b.arrivals;
    rejected += b.rejected;
    completed += b.completed;
    failed += b.failed;
    processCpuNanos = addKnown(processCpuNanos, b.processCpuNanos);
    threadCpuNanos = addKnown(threadCpuNanos, b.threadCpuNanos);
    startNanos = Math.min(startNanos, b.startNanos);
    endNanos = Math.max(endNanos, b.endNanos);
  }

  /** CPU figures: -1 is unknown; unknown plus known is the known part. */
  static long addKnown(long sum, long add) {
    return add < 0 ? sum : Math.max(0, sum) + add;
  }
}

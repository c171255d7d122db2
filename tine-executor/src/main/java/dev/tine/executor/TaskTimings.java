package dev.tine.executor;

import org.HdrHistogram.Histogram;

/**
 * The timings of a set of tasks: histograms of wait, service and response times (microseconds, 1 µs
 * .. 1 hour at 3 significant digits) and exact sums over the timed tasks. Not thread-safe: a {@link
 * ThreadRecorder} fills one on its thread and swaps it out under its phaser; a {@link
 * MeasurementBucket} holds one under its meter's lock.
 *
 * <p>Each set holds three histograms of about 180 KB each.
 */
final class TaskTimings {
  /** Histograms track 1 µs .. 1 hour at 3 significant digits, in microseconds. */
  static final long MAX_MICROS = 3_600_000_000L;

  final Histogram wait = newHistogram();
  final Histogram service = newHistogram();
  final Histogram response = newHistogram();

  /** Sums over the timed tasks, in nanoseconds, and how many tasks were timed. */
  long waitNanos, serviceNanos, timed;

  static Histogram newHistogram() {
    return new Histogram(MAX_MICROS, 3);
  }

  /**
   * Longer times count as one hour: recordValue would throw on them, and from a pool thread that
   * would turn a task that succeeded into a failure and end its thread. Negative times (a caller's
   * mistake) count as zero.
   */
  static long micros(long nanos) {
    return Math.min(MAX_MICROS, Math.max(0, nanos / 1000));
  }

  /** One timed task. */
  void record(long waitNanos, long serviceNanos) {
    long w = Math.max(0, waitNanos), s = Math.max(0, serviceNanos);
    wait.recordValue(micros(w));
    service.recordValue(micros(s));
    response.recordValue(micros(w + s));
    this.waitNanos += w;
    this.serviceNanos += s;
    timed++;
  }

  void add(TaskTimings other) {
    wait.add(other.wait);
    service.add(other.service);
    response.add(other.response);
    waitNanos += other.waitNanos;
    serviceNanos += other.serviceNanos;
    timed += other.timed;
  }

  void reset() {
    wait.reset();
    service.reset();
    response.reset();
    waitNanos = serviceNanos = timed = 0;
  }
}

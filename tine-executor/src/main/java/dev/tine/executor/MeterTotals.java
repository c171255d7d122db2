package dev.tine.executor;

/**
 * A {@link PoolMeter}'s exact counts and timing sums since it started (the figures JFR samples are
 * differences of): the ticks so far plus the current one. Not thread-safe; the meter's lock guards
 * the meter's own, a sampler guards its copies.
 */
final class MeterTotals {
  long arrivals, rejected, completed, failed, timed, waitNanos, serviceNanos;

  /** Adds a bucket's counts (a tick that ends). */
  void add(MeasurementBucket b) {
    arrivals += b.arrivals;
    rejected += b.rejected;
    completed += b.completed;
    failed += b.failed;
    timed += b.timings.timed;
    waitNanos += b.timings.waitNanos;
    serviceNanos += b.timings.serviceNanos;
  }

  /** This = {@code ticks} + {@code current}. */
  void set(MeterTotals ticks, MeasurementBucket current) {
    copy(ticks);
    add(current);
  }

  void copy(MeterTotals o) {
    arrivals = o.arrivals;
    rejected = o.rejected;
    completed = o.completed;
    failed = o.failed;
    timed = o.timed;
    waitNanos = o.waitNanos;
    serviceNanos = o.serviceNanos;
  }
}

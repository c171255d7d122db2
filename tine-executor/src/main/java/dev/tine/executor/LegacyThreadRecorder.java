package dev.tine.executor;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.WriterReaderPhaser;

/**
 * Transitional (removed when MeasuredExecutor moves onto PoolMeter): one pool thread's measurements of the tasks it timed: wait, service and response histograms
 * plus exact sums, written only by that thread. The reader swaps the active and inactive sets under
 * a {@link WriterReaderPhaser} (the pattern of HdrHistogram's Recorder, here for three histograms
 * at once), so a record costs two uncontended atomic increments and no lock, and no state is
 * shared between pool threads on the task path.
 */
final class LegacyThreadRecorder {
  /** Histograms track 1 µs .. 1 hour at 3 significant digits, in microseconds. */
  static final long MAX_MICROS = 3_600_000_000L;

  static Histogram newHistogram() {
    return new Histogram(MAX_MICROS, 3);
  }

  /**
   * Longer times count as one hour: recordValue would throw on them, and from the task wrapper
   * that would turn a task that succeeded into a failure and end its thread.
   */
  private static long micros(long nanos) {
    return Math.min(MAX_MICROS, Math.max(0, nanos / 1000));
  }

  static final class Interval {
    final Histogram wait = newHistogram();
    final Histogram service = newHistogram();
    final Histogram response = newHistogram();
    /** Sums over the timed tasks, and how many were timed. */
    long waitNanos, serviceNanos, timed;

    void reset() {
      wait.reset();
      service.reset();
      response.reset();
      waitNanos = serviceNanos = timed = 0;
    }
  }

  private final WriterReaderPhaser phaser = new WriterReaderPhaser();
  private volatile Interval active = new Interval();
  private Interval inactive = new Interval();

  /** Pool thread only. */
  void record(long waitNanos, long serviceNanos) {
    long critical = phaser.writerCriticalSectionEnter();
    try {
      Interval a = active;
      a.wait.recordValue(micros(waitNanos));
      a.service.recordValue(micros(serviceNanos));
      a.response.recordValue(micros(waitNanos + serviceNanos));
      a.waitNanos += waitNanos;
      a.serviceNanos += serviceNanos;
      a.timed++;
    } finally {
      phaser.writerCriticalSectionExit(critical);
    }
  }

  /** Reader: moves everything recorded since the last harvest into {@code into}. */
  void harvestInto(Interval into) {
    phaser.readerLock();
    try {
      Interval fresh = inactive;
      fresh.reset();
      Interval done = active;
      active = fresh;
      phaser.flipPhase();
      into.wait.add(done.wait);
      into.service.add(done.service);
      into.response.add(done.response);
      into.waitNanos += done.waitNanos;
      into.serviceNanos += done.serviceNanos;
      into.timed += done.timed;
      inactive = done;
    } finally {
      phaser.readerUnlock();
    }
  }
}

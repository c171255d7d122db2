package dev.tine.executor;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.WriterReaderPhaser;

/**
 * One pool thread's measurements: wait, service and response histograms plus exact sums and a
 * failure count, written only by that thread. The reader swaps the active and inactive sets under
 * a {@link WriterReaderPhaser} (the pattern of HdrHistogram's Recorder, here for three histograms
 * at once), so a record costs two uncontended atomic increments and no lock, and no state is
 * shared between pool threads on the task path.
 */
final class ThreadRecorder {
  /** Histograms track 1 µs .. 1 hour at 3 significant digits, in microseconds. */
  static Histogram newHistogram() {
    return new Histogram(3_600_000_000L, 3);
  }

  static final class Interval {
    final Histogram wait = newHistogram();
    final Histogram service = newHistogram();
    final Histogram response = newHistogram();
    long waitNanos, serviceNanos, completed, failed;

    void reset() {
      wait.reset();
      service.reset();
      response.reset();
      waitNanos = serviceNanos = completed = failed = 0;
    }
  }

  private final WriterReaderPhaser phaser = new WriterReaderPhaser();
  private volatile Interval active = new Interval();
  private Interval inactive = new Interval();

  /** Pool thread only. */
  void record(long waitNanos, long serviceNanos, boolean failed) {
    long critical = phaser.writerCriticalSectionEnter();
    try {
      Interval a = active;
      a.wait.recordValue(Math.max(0, waitNanos / 1000));
      a.service.recordValue(Math.max(0, serviceNanos / 1000));
      a.response.recordValue(Math.max(0, (waitNanos + serviceNanos) / 1000));
      a.waitNanos += waitNanos;
      a.serviceNanos += serviceNanos;
      a.completed++;
      if (failed) a.failed++;
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
      into.completed += done.completed;
      into.failed += done.failed;
      inactive = done;
    } finally {
      phaser.readerUnlock();
    }
  }
}

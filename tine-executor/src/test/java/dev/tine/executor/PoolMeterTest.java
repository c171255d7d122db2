package dev.tine.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class PoolMeterTest {
  static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  /** A meter the test ticks itself: nothing happens behind its back. */
  static PoolMeterBuilder ownerTicked() {
    return PoolMeter.builder().ownTicker(false).tick(Duration.ofMillis(100)).window(Duration.ofSeconds(1));
  }

  /** Wait, service and response from timestamps the test makes up (no clock involved). */
  @Test
  void waitAndServiceFromGivenTimestamps() {
    try (PoolMeter meter = ownerTicked().build()) {
      for (int i = 0; i < 4; i++) assertNotEquals(PoolMeter.UNTIMED, meter.arrive(), "sampling 1: every arrival timed");
      meter.arrive();
      meter.reject();
      ThreadRecorder rec = meter.recorder();
      long t0 = 1_000 * MS;
      // waits 10, 20, 30, 40 ms; services 5, 5, 5, 45 ms; the last one failed
      rec.record(t0, t0 + 10 * MS, t0 + 15 * MS, false);
      rec.record(t0, t0 + 20 * MS, t0 + 25 * MS, false);
      rec.record(t0, t0 + 30 * MS, t0 + 35 * MS, false);
      rec.record(t0, t0 + 40 * MS, t0 + 85 * MS, true);
      ExecutorSnapshot s = meter.snapshot();
      assertEquals(5, s.arrivals(), s.toString());
      assertEquals(1, s.rejected(), s.toString());
      assertEquals(4, s.completed(), s.toString());
      assertEquals(1, s.failed(), s.toString());
      assertEquals(25.0, s.avgWaitMs(), 1e-9);
      assertEquals(15.0, s.avgServiceMs(), 1e-9);
      assertEquals(40.0, s.avgResponseMs(), 1e-9);
      assertEquals(100.0 / 160.0, s.deadTimeRatio(), 1e-9);
      assertEquals(40.0, s.maxWaitMs(), 0.05); // histograms: 3 significant digits
      assertEquals(45.0, s.maxServiceMs(), 0.05);
      assertEquals(85.0, s.maxResponseMs(), 0.1);
      assertEquals(20.0, s.p50WaitMs(), 0.05);
      assertEquals(5.0, s.p50ServiceMs(), 0.01);
      assertEquals(-1, s.poolSize(), "no gauges");
      assertEquals(0, s.tickFailures());
      // Little's law over the period: retirement rate × mean response
      assertEquals(s.retirementRate() * s.avgResponseMs() / 1000, s.littlesL(), 1e-9);
    }
  }

  /** An untimed arrival is counted, its task counted, and no times are recorded for it. */
  @Test
  void untimedTasksAreCountedNotTimed() {
    try (PoolMeter meter = ownerTicked().build()) {
      ThreadRecorder rec = meter.recorder();
      rec.record(PoolMeter.UNTIMED, PoolMeter.UNTIMED, PoolMeter.UNTIMED, false);
      rec.record(PoolMeter.UNTIMED, 5 * MS, 999 * MS, true);
      ExecutorSnapshot s = meter.snapshot();
      assertEquals(2, s.completed());
      assertEquals(1, s.failed());
      assertEquals(0, s.avgServiceMs());
      assertEquals(0, s.maxServiceMs());
    }
  }

  /** Released recorders leave the meter; what they recorded stays, in the totals and the window. */
  @Test
  void releasedRecordersKeepTheirFigures() {
    try (PoolMeter meter = ownerTicked().build()) {
      ThreadRecorder rec = meter.recorder();
      assertEquals(1, meter.recorderCount());
      rec.record(10 * MS, 11 * MS, 14 * MS, true);
      meter.release(rec);
      meter.release(rec); // harmless
      assertEquals(0, meter.recorderCount());
      rec.record(10 * MS, 11 * MS, 14 * MS, false); // after release: lost
      meter.tick();
      ExecutorSnapshot s = meter.snapshot(), w = meter.windowSnapshot();
      assertEquals(1, s.completed());
      assertEquals(1, s.failed());
      assertEquals(3.0, s.avgServiceMs(), 1e-9);
      assertEquals(1, w.completed());
      assertEquals(3.0, w.avgServiceMs(), 1e-9);
      try (PoolMeter other = ownerTicked().build()) {
        assertThrows(IllegalArgumentException.class, () -> other.release(rec));
      }
    }
  }

  /** Gauges supply the pool size and queue length; one arrival in eight samples the queue. */
  @Test
  void gaugesSupplyPoolSizeAndQueueSamples() {
    try (PoolMeter meter = ownerTicked().gauges(PoolMeter.Gauges.of(() -> 3, () -> 42)).build()) {
      for (int i = 0; i < 800; i++) meter.arrive();
      ExecutorSnapshot s = meter.snapshot();
      assertEquals(3, s.poolSize());
      assertEquals(42, s.queueLength());
      assertEquals(800, s.arrivals());
      assertEquals(42, s.maxQueueLength(), 0.05 * 42, "sampled queue lengths");
    }
  }
}

package dev.tine.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class PoolMeterTest {
  static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  /** A meter the test ticks itself: nothing happens behind its back. */
  static PoolMeterBuilder ownerTicked() {
    return PoolMeter.builder()
        .ownTicker(false)
        .tick(Duration.ofMillis(100))
        .window(Duration.ofSeconds(1));
  }

  /** Wait, service and response from timestamps the test makes up (no clock involved). */
  @Test
  void waitAndServiceFromGivenTimestamps() throws InterruptedException {
    long beforeBuild = System.nanoTime();
    try (PoolMeter meter = ownerTicked().build()) {
      long built = System.nanoTime();
      Thread.sleep(300); // a period long beside build()'s own time, so its bounds are tight
      for (int i = 0; i < 4; i++)
        assertNotEquals(PoolMeter.UNTIMED, meter.arrive(), "sampling 1: every arrival timed");
      meter.arrive();
      meter.reject();
      ThreadRecorder rec = meter.recorder();
      long t0 = 1_000 * MS;
      // waits 10, 20, 30, 40 ms; services 5, 5, 5, 45 ms; the last one failed
      rec.record(t0, t0 + 10 * MS, t0 + 15 * MS, false);
      rec.record(t0, t0 + 20 * MS, t0 + 25 * MS, false);
      rec.record(t0, t0 + 30 * MS, t0 + 35 * MS, false);
      rec.record(t0, t0 + 40 * MS, t0 + 85 * MS, true);
      long beforeSnapshot = System.nanoTime();
      ExecutorSnapshot s = meter.snapshot();
      long after = System.nanoTime();
      // the period runs from the meter's start (inside build) to the snapshot
      assertTrue(
          s.seconds() >= (beforeSnapshot - built) / 1e9 - 1e-9
              && s.seconds() <= (after - beforeBuild) / 1e9 + 1e-9,
          "period "
              + s.seconds()
              + " s, between the test's readings "
              + (beforeSnapshot - built) / 1e9
              + " and "
              + (after - beforeBuild) / 1e9);
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
      assertEquals(40.0, s.p90WaitMs(), 0.05); // nearest rank: the 4th of 4
      // Little's L: the mean number of tasks in the pool over the period, from the made-up times:
      // their responses (15 + 25 + 35 + 85 ms) over the period's length
      assertEquals(0.160 / s.seconds(), s.littlesL(), 1e-9, s.toString());
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

  /** Runs body on a new thread and waits for it to end, rethrowing what it threw. */
  static void onNewThread(String name, Runnable body) throws InterruptedException {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread t =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (Throwable e) {
                failure.set(e);
              }
            },
            name);
    t.start();
    t.join();
    if (failure.get() != null) throw new AssertionError(failure.get());
  }

  /**
   * Several submitters, several recording threads and a thread that ticks and snapshots as fast as
   * it can, all at once and for as long as it takes the harvester to tick 200 times: every arrival,
   * rejection, completion, failure and timed task is counted exactly once, whether its recorder was
   * released, dropped after its thread ended, or harvested while it recorded.
   */
  @Test
  void exactCountsUnderConcurrentRecordingAndHarvests() throws Exception {
    int submitters = 1, workers = 2, harvests = 200;
    int minEach = 1_000;
    try (PoolMeter meter = ownerTicked().build()) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong ticks = new AtomicLong();
      CountDownLatch go = new CountDownLatch(1);
      Thread harvester =
          new Thread(
              () -> {
                await(go);
                while (!stop.get()) {
                  meter.tick();
                  if (ticks.incrementAndGet() % 16 == 0) meter.windowSnapshot();
                }
              },
              "harvester");
      List<Thread> threads = new ArrayList<>();
      AtomicLong arrived = new AtomicLong(), rejected = new AtomicLong();
      AtomicLong completed = new AtomicLong(), failed = new AtomicLong(), timed = new AtomicLong();
      for (int k = 0; k < submitters; k++) {
        threads.add(
            new Thread(
                () -> {
                  await(go);
                  long i = 0;
                  // at least minEach records: on a loaded box a thread may first run after the
                  // harvester's last tick, and a test with nothing recorded checks nothing
                  for (; i < minEach || ticks.get() < harvests; i++) {
                    meter.arrive();
                    if (i % 7 == 0) meter.reject();
                  }
                  arrived.addAndGet(i);
                  rejected.addAndGet((i + 6) / 7);
                },
                "submitter-" + k));
      }
      for (int k = 0; k < workers; k++) {
        boolean release = k % 2 == 0; // the others end without releasing: dropped by a harvest
        threads.add(
            new Thread(
                () -> {
                  ThreadRecorder rec = meter.recorder();
                  await(go);
                  long t0 = 1_000 * MS, i = 0, n = 0, f = 0;
                  for (; i < minEach || ticks.get() < harvests; i++) {
                    boolean fails = i % 5 == 0;
                    if (fails) f++;
                    if (i % 3 == 0) {
                      rec.record(t0, t0 + MS, t0 + 3 * MS, fails); // wait 1 ms, service 2 ms
                      n++;
                    } else {
                      rec.record(PoolMeter.UNTIMED, PoolMeter.UNTIMED, PoolMeter.UNTIMED, fails);
                    }
                  }
                  completed.addAndGet(i);
                  failed.addAndGet(f);
                  timed.addAndGet(n);
                  if (release) meter.release(rec);
                },
                "worker-" + k));
      }
      harvester.start();
      for (Thread t : threads) t.start();
      go.countDown();
      for (Thread t : threads) t.join();
      // a few more harvests after every thread ended: the unreleased recorders are dropped
      long after = ticks.get() + 3;
      while (ticks.get() < after) Thread.onSpinWait();
      stop.set(true);
      harvester.join();

      ExecutorSnapshot s = meter.snapshot();
      assertEquals(arrived.get(), s.arrivals(), s.toString());
      assertEquals(rejected.get(), s.rejected(), s.toString());
      assertEquals(completed.get(), s.completed(), s.toString());
      assertEquals(failed.get(), s.failed(), s.toString());
      assertEquals(timed.get(), s.timedTasks(), s.toString());
      assertEquals(2.0, s.avgServiceMs(), 1e-9);
      assertEquals(1.0, s.avgWaitMs(), 1e-9);
      assertEquals(0, meter.recorderCount(), "released or dropped");
      assertEquals(0, meter.tickFailures(), String.valueOf(meter.lastTickFailure()));
    }
  }

  static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * A thread that ends without releasing its recorder (a pool's owner cannot always see its threads
   * end): the next tick drops the recorder and keeps what it recorded.
   */
  @Test
  void aDeadThreadsRecorderIsDroppedAtTheNextTickAndItsFiguresKept() throws Exception {
    try (PoolMeter meter = ownerTicked().build()) {
      ThreadRecorder[] held = new ThreadRecorder[1];
      onNewThread(
          "short-lived",
          () -> {
            ThreadRecorder rec = meter.recorder();
            rec.record(10 * MS, 12 * MS, 19 * MS, false);
            rec.record(PoolMeter.UNTIMED, 0, 0, true);
            held[0] = rec;
          });
      ThreadRecorder live = meter.recorder(); // this thread's: alive, must stay
      assertEquals(2, meter.recorderCount());
      meter.tick();
      assertEquals(1, meter.recorderCount(), "the ended thread's recorder is dropped");
      meter.release(held[0]); // harmless: already out
      ExecutorSnapshot s = meter.snapshot();
      assertEquals(2, s.completed(), s.toString());
      assertEquals(1, s.failed(), s.toString());
      assertEquals(1, s.timedTasks(), s.toString());
      assertEquals(7.0, s.avgServiceMs(), 1e-9);
      assertEquals(2, meter.windowSnapshot().completed(), "in the window too");
      meter.release(live);
      assertEquals(0, meter.recorderCount());
    }
  }

  /**
   * Sampling 1 in 4: about a quarter of the arrivals are timed, every one is counted, and the means
   * come from the timed tasks only.
   */
  @Test
  void samplingTimesSomeTasksAndCountsAll() throws Exception {
    int threads = 4, each = 4_000;
    try (PoolMeter meter = ownerTicked().sampling(4).build()) {
      AtomicLong timed = new AtomicLong();
      List<Thread> ts = new ArrayList<>();
      for (int k = 0; k < threads; k++) {
        ts.add(
            new Thread(() -> {
              ThreadRecorder rec = meter.recorder();
              for (int i = 0; i < each; i++) {
                long arrival = meter.arrive();
                if (arrival != PoolMeter.UNTIMED) {
                  timed.incrementAndGet();
                  rec.record(arrival, arrival + 4 * MS, arrival + 9 * MS, false); // made-up times
                } else {
                  rec.record(arrival, 0, 999 * MS, false); // must not count as a time
                }
              }
              meter.release(rec);
            }));
      }
      for (Thread t : ts) t.start();
      for (Thread t : ts) t.join();
      ExecutorSnapshot s = meter.snapshot();
      long n = (long) threads * each;
      assertEquals(n, s.arrivals());
      assertEquals(n, s.completed());
      assertEquals(timed.get(), s.timedTasks());
      // binomial(16000, 1/4): mean 4000, sd 55; 3000..5000 is 18 sd either side
      assertTrue(timed.get() > 3000 && timed.get() < 5000, "timed " + timed.get() + " of " + n);
      assertEquals(5.0, s.avgServiceMs(), 1e-9);
      assertEquals(4.0, s.avgWaitMs(), 1e-9);
      assertEquals(9.0, s.maxResponseMs(), 0.01);
    }
  }

  /**
   * Real clocks: a task that waited about 30 ms and ran about 20 ms (bounds generous below, loose
   * above).
   */
  @Test
  void waitAndServiceFromTheClock() throws Exception {
    try (PoolMeter meter = ownerTicked().build()) {
      long arrival = meter.arrive();
      Thread.sleep(30);
      ThreadRecorder rec = meter.recorder();
      long start = System.nanoTime();
      Thread.sleep(20);
      long end = System.nanoTime();
      rec.record(arrival, start, end, false);
      ExecutorSnapshot s = meter.snapshot();
      assertTrue(s.avgWaitMs() >= 29.5 && s.avgWaitMs() < 10_000, s.toString());
      assertTrue(s.avgServiceMs() >= 19.5 && s.avgServiceMs() < 10_000, s.toString());
      // exactly the clock readings the test made (one timed task: the means are its times)
      assertEquals((start - arrival) / 1e6, s.avgWaitMs(), 1e-9, s.toString());
      assertEquals((end - start) / 1e6, s.avgServiceMs(), 1e-9, s.toString());
      assertEquals((end - arrival) / 1e6, s.avgResponseMs(), 1e-9, s.toString());
    }
  }

  /** A tick that throws is counted and kept; the meter keeps harvesting and rotating after it. */
  @Test
  void failedTicksAreCountedAndTheMeterKeepsMeasuring() {
    AtomicInteger failuresLeft = new AtomicInteger(2);
    IllegalStateException planted = new IllegalStateException("planted tick failure");
    try (PoolMeter meter =
        ownerTicked()
            .onTick(m -> {
              if (failuresLeft.getAndDecrement() > 0) throw planted;
            })
            .build()) {
      ThreadRecorder rec = meter.recorder();
      rec.record(PoolMeter.UNTIMED, 0, 0, false);
      meter.tick();
      meter.tick();
      assertEquals(2, meter.tickFailures());
      assertSame(planted, meter.lastTickFailure());
      assertEquals(2, meter.snapshot().tickFailures());
      rec.record(PoolMeter.UNTIMED, 0, 0, false);
      rec.record(PoolMeter.UNTIMED, 0, 0, false);
      meter.tick(); // succeeds
      assertEquals(2, meter.tickFailures());
      assertEquals(
          2, meter.recentSnapshot(1).completed(), "the last tick harvested the new records");
      assertEquals(3, meter.snapshot().completed());
    }
  }

  /**
   * The meter's own ticker survives failing ticks (a periodic task that throws is never run again).
   */
  @Test
  void theOwnTickerKeepsTickingThroughFailures() throws Exception {
    try (PoolMeter meter =
        PoolMeter.builder()
            .tick(Duration.ofMillis(10))
            .onTick(m -> {
              throw new IllegalStateException("planted");
            })
            .build()) {
      // No look before the first tick: the 10 ms ticker may already have failed (a loaded
      // machine can hold this thread back for longer). What must hold is that it goes on.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (meter.tickFailures() < 5 && System.nanoTime() < deadline) Thread.sleep(5);
      long seen = meter.tickFailures();
      assertTrue(seen >= 5, "ticks went on failing: " + seen);
      assertEquals("planted", meter.lastTickFailure().getMessage());
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (meter.tickFailures() == seen && System.nanoTime() < deadline) Thread.sleep(5);
      assertTrue(meter.tickFailures() > seen, "the ticker stopped after " + seen + " failures");
    }
  }

  /** Pool-thread CPU: what a recording thread burned shows in poolCpuUtilization. */
  @Test
  void poolCpuTimeOfRegisteredThreads() throws Exception {
    var threads = ManagementFactory.getThreadMXBean();
    if (!threads.isThreadCpuTimeSupported() || !threads.isThreadCpuTimeEnabled()) return;
    try (PoolMeter meter = ownerTicked().processors(1).build()) {
      long[] burned = new long[1];
      onNewThread(
          "burner",
          () -> {
            ThreadRecorder rec = meter.recorder();
            long from = threads.getCurrentThreadCpuTime();
            long x = 0;
            while (threads.getCurrentThreadCpuTime() - from < 30 * MS) x += System.nanoTime() & 1;
            rec.record(PoolMeter.UNTIMED, 0, x, false);
            burned[0] = threads.getCurrentThreadCpuTime() - from;
            meter.release(rec); // on the thread: its CPU time is read up to here
          });
      ExecutorSnapshot s = meter.snapshot();
      double cpuNanos = s.poolCpuUtilization() * s.seconds() * 1e9; // processors(1)
      assertTrue(
          cpuNanos >= 0.95 * burned[0],
          "pool CPU " + cpuNanos / 1e6 + " ms, burned " + burned[0] / 1e6 + " ms");
      assertTrue(s.poolCpuPerTaskMs() >= 25, s.toString());
    }
  }

  /**
   * A gauge that throws costs the submitter nothing but a queue sample, and a snapshot that figure.
   */
  @Test
  void aThrowingGaugeFailsNeitherArrivalsNorSnapshots() {
    PoolMeter.Gauges broken =
        PoolMeter.Gauges.of(
            () -> 1,
            () -> {
              throw new IllegalStateException("broken gauge");
            });
    try (PoolMeter meter = ownerTicked().gauges(broken).build()) {
      for (int i = 0; i < 100; i++) meter.arrive();
      meter.completed(false);
      meter.completed(true);
      meter.tick();
      assertEquals(0, meter.tickFailures(), "ticks do not read the gauges");
      ExecutorSnapshot s = meter.snapshot();
      assertEquals(-1, s.queueLength(), "unknown");
      assertEquals(1, s.poolSize());
      assertEquals(100, s.arrivals());
      assertEquals(0, s.maxQueueLength(), "no sample recorded");
      assertEquals(2, s.completed(), "completions on threads without a recorder");
      assertEquals(1, s.failed());
    }
  }
}

package dev.tine.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JFR events of {@link PoolMeter} ({@link MeterEvents}), so of {@link MeasuredExecutor}: a
 * workload is recorded with {@link Recording}, the file read back with {@link RecordingFile}, and
 * the events' values checked against what the workload itself measured. Planted bugs each test
 * catches are named at the test.
 */
@Timeout(120)
class FlightRecorderTest {
  static final String STATS = "dev.tine.PoolMeterStatistics";
  static final String WAIT = "dev.tine.QueueWait";
  static final String REJECTED = "dev.tine.TaskRejected";

  /** The settings shipped in tine-core's jar (this module's tests run in its directory). */
  static final Path JFC = Path.of("../tine-core/src/main/resources/META-INF/tine/tine.jfc");

  @TempDir Path dir;

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static List<RecordedEvent> events(Recording r, Path file, String type, String pool)
      throws IOException {
    r.dump(file);
    return RecordingFile.readAllEvents(file).stream()
        .filter(e -> e.getEventType().getName().equals(type))
        .filter(e -> pool.equals(e.getString("pool")))
        .sorted(
            Comparator.comparing(RecordedEvent::getEndTime)) // a file is in order per thread only
        .toList();
  }

  static long sum(List<RecordedEvent> es, String field) {
    return es.stream().mapToLong(e -> e.getLong(field)).sum();
  }

  /** Marks a submission in the recording, on the clock of the samples' timestamps. */
  @jdk.jfr.Name("test.Submitted")
  @jdk.jfr.StackTrace(false)
  static final class Submitted extends jdk.jfr.Event {}

  /**
   * An executor driven at a known rate (200 tasks a second for 3 s, paced by the clock) and sampled
   * every second: each periodic sample that lies inside the drive has λ within 10% of the rate the
   * test's own submissions (marked in the recording) give for that sample's interval, and together
   * they are within 10% of the rate the test measured over the whole drive; S is at least the
   * tasks' sleep; L is the completion rate times R; all samples (the last at close) add up to every
   * task, exactly. Planted bugs it catches: λ over the wrong interval (the meter's tick instead of
   * the sample's), a baseline not moved (the counts grow each sample), no last sample at close.
   */
  @Test
  void samplesMeasureTheArrivalRate() throws Exception {
    String name = "jfr-rate";
    int perSecond = 200, tasks = 3 * perSecond;
    long driveNanos;
    try (Recording r = new Recording()) {
      r.enable(STATS).withPeriod(Duration.ofSeconds(1));
      r.enable("test.Submitted");
      r.start();
      try (MeasuredExecutor ex =
          MeasuredExecutor.builder().name(name).poolSize(4).registerMXBean(false).build()) {
        long start = System.nanoTime(), gap = TimeUnit.SECONDS.toNanos(1) / perSecond;
        for (int i = 0; i < tasks; i++) {
          long due = start + i * gap;
          for (long left; (left = due - System.nanoTime()) > 0; ) LockSupport.parkNanos(left);
          new Submitted().commit();
          ex.execute(() -> sleep(2));
        }
        driveNanos = System.nanoTime() - start;
      } // close: waits for the tasks, then the meter's last sample
      r.stop();
      List<RecordedEvent> samples = events(r, dir.resolve("rate.jfr"), STATS, name);
      assertEquals(tasks, sum(samples, "arrivals"), "every arrival, in some sample");
      assertEquals(tasks, sum(samples, "completed"));
      assertEquals(0, sum(samples, "rejected"));
      List<Instant> submitted =
          RecordingFile.readAllEvents(dir.resolve("rate.jfr")).stream()
              .filter(e -> e.getEventType().getName().equals("test.Submitted"))
              .map(RecordedEvent::getEndTime)
              .sorted()
              .toList();
      assertEquals(tasks, submitted.size());
      double measuredRate = (tasks - 1) / (driveNanos / 1e9); // the drive as the test timed it
      Instant first = submitted.get(0), last = submitted.get(tasks - 1);
      int inside = 0;
      long insideArrivals = 0, insideNanos = 0;
      for (RecordedEvent e : samples) {
        long interval = e.getLong("interval");
        Instant to = e.getEndTime(), from = to.minusNanos(interval);
        // Periodic samples inside the drive only: not the first and last, which cover time
        // without submissions, nor the one at close (a few ms: one task is more than 10%).
        if (from.isBefore(first) || to.isAfter(last) || interval < 500_000_000) continue;
        inside++;
        insideArrivals += e.getLong("arrivals");
        insideNanos += interval;
        long expected = submitted.stream().filter(t -> t.isAfter(from) && !t.isAfter(to)).count();
        double expectedRate = expected / (interval / 1e9);
        double lambda = e.getDouble("arrivalRate");
        assertTrue(
            Math.abs(lambda - expectedRate) <= 0.10 * expectedRate,
            "λ " + lambda + " vs " + expectedRate + "/s submitted in the sample's interval: " + e);
        assertEquals(e.getLong("arrivals") / (interval / 1e9), lambda, 1e-6 * lambda);
        long s = e.getLong("serviceTime"), w = e.getLong("queueWait");
        assertTrue(s >= 2_000_000 && s < 1_000_000_000L, "S at least the 2 ms sleep: " + e);
        assertEquals(s + w, e.getLong("responseTime"));
        assertEquals(e.getDouble("completionRate") * (s + w) / 1e9, e.getDouble("littlesL"), 1e-9);
        assertEquals(4, e.getInt("poolSize"));
      }
      assertTrue(inside >= 1, "a sample inside the drive: " + samples);
      // Together, those samples measured the rate the test drove (a stall and the catch-up after
      // it may straddle two samples; over both they cancel).
      double insideRate = insideArrivals / (insideNanos / 1e9);
      assertTrue(
          Math.abs(insideRate - measuredRate) <= 0.10 * measuredRate,
          "λ "
              + insideRate
              + " over the samples inside vs "
              + measuredRate
              + "/s over the whole drive");
    }
  }

  /**
   * A meter built before the recording: its samples in the recording count only what happened in it
   * (a recording's start moves the baseline), and add up to it exactly with the last sample at
   * close. Planted bug it catches: no rebase when a recording starts.
   */
  @Test
  void aRecordingCountsOnlyWhatHappensInIt() throws Exception {
    String name = "jfr-rebase";
    try (PoolMeter meter = PoolMeter.builder().name(name).ownTicker(false).build()) {
      ThreadRecorder rec = meter.recorder();
      for (int i = 0; i < 50; i++) rec.record(meter.arrive(), 0, 0, false); // before: not in it
      try (Recording warm = new Recording()) { // JFR initialized, our events registered
        warm.start();
      }
      for (int i = 0; i < 20; i++) rec.record(meter.arrive(), 0, 0, false); // between: not in it
      try (Recording r = new Recording()) {
        r.enable(STATS).withPeriod(Duration.ofMillis(100));
        r.start();
        for (int i = 0; i < 30; i++) {
          rec.record(meter.arrive(), 0, 0, false);
          meter.reject();
        }
        meter.close();
        r.stop();
        List<RecordedEvent> samples = events(r, dir.resolve("rebase.jfr"), STATS, name);
        assertEquals(30, sum(samples, "arrivals"), samples.toString());
        assertEquals(30, sum(samples, "completed"));
        assertEquals(30, sum(samples, "rejected"));
      }
    }
  }

  /**
   * A meter used as the agent uses one (no executor, the owner's clock readings), with the
   * threshold at 20 ms: a timed task that waited the threshold or more is an event with its exact
   * wait and service, one under it is not (15 ms: over the default 10 ms, so the setting must have
   * been applied), and untimed tasks never are. Planted bugs it catches: a strict comparison (the
   * task that waited exactly the threshold is lost), the service passed as the wait, the setting
   * not applied, the threshold ignored.
   */
  @Test
  void queueWaitsFromTheThresholdOnAreRecorded() throws Exception {
    String name = "jfr-wait-meter";
    try (Recording r = new Recording()) {
      r.enable(WAIT).with("waitThreshold", "20 ms");
      r.start();
      try (PoolMeter meter = PoolMeter.builder().name(name).ownTicker(false).build()) {
        ThreadRecorder rec = meter.recorder();
        long ms = 1_000_000;
        long a = meter.arrive();
        rec.record(a, a + 30 * ms, a + 35 * ms, false); // waited 30 ms: recorded
        a = meter.arrive();
        rec.record(a, a + 15 * ms, a + 16 * ms, false); // 15 ms: not
        a = meter.arrive();
        rec.record(a, a + 20 * ms - 1, a + 21 * ms, false); // a nanosecond short: not
        a = meter.arrive();
        rec.record(a, a + 20 * ms, a + 22 * ms, true); // exactly the threshold: recorded
        rec.record(PoolMeter.UNTIMED, PoolMeter.UNTIMED, PoolMeter.UNTIMED, false); // no wait known
      }
      r.stop();
      List<RecordedEvent> es = events(r, dir.resolve("wait-meter.jfr"), WAIT, name);
      assertEquals(2, es.size(), es.toString());
      es = es.stream().sorted(Comparator.comparingLong(e -> e.getLong("queueWait"))).toList();
      assertEquals(20_000_000, es.get(0).getLong("queueWait"));
      assertEquals(2_000_000, es.get(0).getLong("serviceTime"));
      assertTrue(es.get(0).getBoolean("failed"));
      assertEquals(30_000_000, es.get(1).getLong("queueWait"));
      assertEquals(5_000_000, es.get(1).getLong("serviceTime"));
      assertEquals(Thread.currentThread().getName(), es.get(1).getThread().getJavaName());
    }
  }

  /**
   * A real queue, with the shipped settings (and the threshold raised to 50 ms): a task queued
   * behind a blocker that the test releases only once its own clock says the queued task has waited
   * over the threshold is an event whose wait lies within what the test measured around it, and
   * tasks submitted to an idle pool are not, unless the test itself saw them wait that long (a
   * stalled box; the blocker too, whose start waits for the pool's first thread). Planted bugs it
   * catches: no event from the record path, the threshold ignored.
   */
  @Test
  void aTaskQueuedBehindALongOneIsRecordedAndAnIdlePoolsAreNot() throws Exception {
    String name = "jfr-wait-executor";
    long threshold = TimeUnit.MILLISECONDS.toNanos(50);
    try (Recording r = new Recording(Configuration.create(JFC))) {
      r.enable(WAIT).with("waitThreshold", "50 ms");
      r.start();
      long[] queuedStart = new long[1];
      long queuedBefore, queuedSubmitted, released;
      int othersThatWaited = 0;
      try (MeasuredExecutor ex =
          MeasuredExecutor.builder().name(name).poolSize(1).registerMXBean(false).build()) {
        CountDownLatch running = new CountDownLatch(1), release = new CountDownLatch(1);
        long[] blockerStart = new long[1];
        long blockerSubmitted = System.nanoTime();
        ex.execute(() -> {
          blockerStart[0] = System.nanoTime();
          running.countDown();
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        assertTrue(running.await(30, TimeUnit.SECONDS));
        // The first task starts the pool's thread; on a loaded box that alone can take 50 ms.
        if (blockerStart[0] - blockerSubmitted >= threshold) othersThatWaited++;
        queuedBefore = System.nanoTime();
        Future<?> queued = ex.submit(() -> queuedStart[0] = System.nanoTime());
        queuedSubmitted = System.nanoTime(); // after submit returned: after its arrival
        // hold the blocker until the queued task has waited past the threshold by this clock
        while (System.nanoTime() - queuedSubmitted <= threshold) sleep(10);
        released = System.nanoTime();
        release.countDown();
        queued.get(30, TimeUnit.SECONDS);
        for (int i = 0; i < 5; i++) {
          long before = System.nanoTime();
          long[] started = new long[1];
          ex.submit(() -> started[0] = System.nanoTime()).get(30, TimeUnit.SECONDS);
          if (started[0] - before >= threshold)
            othersThatWaited++; // what the meter saw is within this
        }
      }
      r.stop();
      List<RecordedEvent> es = events(r, dir.resolve("wait-executor.jfr"), WAIT, name);
      assertTrue(es.size() >= 1 && es.size() <= 1 + othersThatWaited, es.toString());
      long wait = es.stream().mapToLong(e -> e.getLong("queueWait")).max().getAsLong();
      // It arrived before submit returned and started after the blocker was released; the
      // longest wait is at least that, and no longer than the test saw the queued task wait.
      assertTrue(wait >= released - queuedSubmitted, "waited " + wait);
      assertTrue(wait > threshold, "waited " + wait);
      if (othersThatWaited == 0)
        assertTrue(wait <= queuedStart[0] - queuedBefore, "waited " + wait + ": the queued task's");
    }
  }

  /**
   * A bounded executor refusing three tasks: three TaskRejected events, on the submitting thread,
   * with its stack, the queue full; the samples count the same three. Planted bug it catches: no
   * event from reject().
   */
  @Test
  void rejectionsAreRecorded() throws Exception {
    String name = "jfr-reject";
    try (Recording r = new Recording()) {
      r.enable(REJECTED).withStackTrace();
      r.enable(STATS).withPeriod(Duration.ofSeconds(1));
      r.start();
      try (MeasuredExecutor ex =
          MeasuredExecutor.builder()
              .name(name)
              .poolSize(1)
              .queueCapacity(1)
              .registerMXBean(false)
              .build()) {
        CountDownLatch running = new CountDownLatch(1), release = new CountDownLatch(1);
        ex.execute(() -> {
          running.countDown();
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        assertTrue(running.await(30, TimeUnit.SECONDS));
        ex.execute(() -> {}); // fills the queue
        for (int i = 0; i < 3; i++) {
          assertThrows(RejectedExecutionException.class, () -> ex.execute(() -> {}));
        }
        release.countDown();
      }
      r.stop();
      List<RecordedEvent> es = events(r, dir.resolve("reject.jfr"), REJECTED, name);
      assertEquals(3, es.size(), es.toString());
      for (RecordedEvent e : es) {
        assertEquals(1, e.getInt("queueLength"));
        assertEquals(1, e.getInt("poolSize"));
        assertEquals(Thread.currentThread().getName(), e.getThread().getJavaName());
        assertNotNull(e.getStackTrace());
        assertTrue(
            e.getStackTrace().getFrames().stream()
                .map(RecordedFrame::getMethod)
                .anyMatch(m -> m.getName().equals("rejectionsAreRecorded")),
            "the submitter's stack");
      }
      assertEquals(3, sum(events(r, dir.resolve("reject2.jfr"), STATS, name), "rejected"));
    }
  }
}

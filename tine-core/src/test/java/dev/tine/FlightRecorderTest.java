package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JFR events of {@link WorkStealingPool} ({@link PoolEvents}): a workload is recorded with
 * {@link Recording}, the file read back with {@link RecordingFile}, and the events' values checked
 * against what the workload itself counted. Planted bugs they catch are named at each test.
 */
class FlightRecorderTest {
  static final String STATS = "dev.tine.WorkStealingPoolStatistics";
  static final String BLOCKED = "dev.tine.JoinBlocked";

  @TempDir Path dir;

  /** Forks made by {@code new Fib(n).invoke()}: one per call with n >= 2, i.e. fib(n + 1) - 1. */
  static long fibForks(int n) {
    return Programs.seqFib(n + 1) - 1;
  }

  static List<RecordedEvent> events(Recording r, Path file, String type, String pool)
      throws IOException {
    r.dump(file);
    return RecordingFile.readAllEvents(file).stream()
        .filter(e -> e.getEventType().getName().equals(type))
        .filter(e -> pool.equals(e.getString("pool")))
        .sorted(
            java.util.Comparator.comparing(
                RecordedEvent::getEndTime)) // a file is in order per thread only
        .toList();
  }

  static long sum(List<RecordedEvent> es, String field) {
    return es.stream().mapToLong(e -> e.getLong(field)).sum();
  }

  /**
   * A pool's samples in a recording add up to what its workers counted: forks to the known count of
   * the programs, executed tasks and steals to the pool's own stats; each covers a positive
   * interval, and the last (at termination) sees no live worker. Planted bugs it catches: a sample
   * that forgets to move its baseline (sums count forks again), a sample that reads one slot only,
   * no last sample at termination (the forks after the last period are missing).
   */
  @Test
  void samplesOfAClosedPoolAddUpToItsCounters() throws Exception {
    try (Recording r = new Recording()) {
      r.enable(STATS).withPeriod(Duration.ofMillis(100));
      r.start();
      String name = "jfr-fib-closed";
      long forks = 0;
      PoolStats stats;
      try (WorkStealingPool pool =
          WorkStealingPool.builder().name(name).parallelism(2).registerMXBean(false).build()) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(600); // several periods
        do {
          assertEquals(Programs.seqFib(20), pool.invoke(new Programs.Fib(20)));
          forks += fibForks(20);
        } while (System.nanoTime() < end);
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        stats = pool.stats();
      }
      r.stop();
      List<RecordedEvent> samples = events(r, dir.resolve("closed.jfr"), STATS, name);
      assertTrue(samples.size() >= 2, "samples: " + samples.size());
      assertEquals(forks, stats.forks(), "the workload's forks, as the pool counted them");
      assertEquals(forks, sum(samples, "forks"), "sum of the samples' forks");
      assertEquals(stats.tasksExecuted(), sum(samples, "tasksExecuted"));
      assertEquals(stats.steals(), sum(samples, "steals"));
      assertEquals(stats.parks(), sum(samples, "parks"));
      assertEquals(stats.idleNanos(), sum(samples, "idleTime"));
      for (RecordedEvent e : samples) {
        assertTrue(e.getLong("interval") > 0, e.toString());
        assertEquals(2, e.getInt("parallelism"));
      }
      // Each sample counts its own period: the workload spans several, so the forks are spread
      // over more than one sample (a pool that reported everything in its last sample, zeros
      // before, would still add up).
      long withForks = samples.stream().filter(e -> e.getLong("forks") > 0).count();
      assertTrue(withForks >= 2, "samples with forks: " + withForks + " of " + samples.size());
      // The termination's sample (or one the periodic hook took just after it) sees no live worker.
      RecordedEvent last = samples.get(samples.size() - 1);
      assertEquals(0, last.getInt("liveWorkers"), "the last sample is the termination's: " + last);
    }
  }

  /**
   * A pool that stays open: the periodic samples alone add up, once a period has passed after the
   * work, and a pool built before the recording counts nothing from before it. Planted bug it
   * catches: no rebase when a recording starts (the first sample counts the forks made before).
   */
  @Test
  void samplesOfALivePoolCountOnlyWhatHappensInTheRecording() throws Exception {
    String name = "jfr-fib-live";
    try (WorkStealingPool pool =
        WorkStealingPool.builder().name(name).parallelism(2).registerMXBean(false).build()) {
      pool.invoke(new Programs.Fib(18)); // before the recording: not in it
      try (Recording warm = new Recording()) { // JFR initialized and our events registered
        warm.start();
      }
      try (Recording r = new Recording()) {
        r.enable(STATS).withPeriod(Duration.ofMillis(100));
        r.start();
        long before = pool.stats().forks();
        long forks = 0;
        for (int i = 0; i < 5; i++) {
          pool.invoke(new Programs.Fib(20));
          forks += fibForks(20);
        }
        assertEquals(forks, pool.stats().forks() - before);
        // A sample or more after the work, whose forks are then zero. JFR's periodic thread can
        // run late on a loaded machine (a fixed 400 ms pause saw no sample at all beside two
        // builds and a busy loop per core), so wait, up to a minute, until the recording so far
        // holds two samples and the last one is after the work.
        Path file = dir.resolve("live.jfr");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<RecordedEvent> sofar;
        do {
          Thread.sleep(200);
          sofar = events(r, file, STATS, name);
        } while ((sofar.size() < 2 || sofar.get(sofar.size() - 1).getLong("forks") != 0)
            && System.nanoTime() < deadline);
        r.stop();
        List<RecordedEvent> samples = events(r, file, STATS, name);
        assertTrue(samples.size() >= 2, "samples: " + samples.size());
        assertEquals(forks, sum(samples, "forks"));
        assertEquals(0, samples.get(samples.size() - 1).getLong("forks"));
      }
    }
  }

  /**
   * A task that a second worker steals: once the pool has counted a blocked join, it sleeps a while
   * longer, so that the joiner is surely blocked for that long.
   */
  static final class Sleeper extends Task<Long> {
    final CountDownLatch started = new CountDownLatch(1);
    final WorkStealingPool pool;
    final long sleepMs;
    volatile long blockSeenNanos, endNanos;

    Sleeper(WorkStealingPool pool, long sleepMs) {
      this.pool = pool;
      this.sleepMs = sleepMs;
    }

    @Override
    protected Long compute() {
      started.countDown();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (pool.stats().joinsBlocked() == 0 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      blockSeenNanos = System.nanoTime();
      try {
        Thread.sleep(sleepMs);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      endNanos = System.nanoTime();
      return sleepMs;
    }
  }

  /**
   * A worker joins a task another worker stole and is still running: there is nothing to help with,
   * so the join blocks, and one JoinBlocked event says so, with the task's class, the join's stack,
   * and a duration that covers the time the test saw the joiner blocked and lies within the join as
   * the joiner measured it. Planted bugs it catches: the event begun again at every timed wait (its
   * duration is one wait, not the block), no event, the wrong class.
   */
  @Test
  void aJoinThatBlocksIsRecorded() throws Exception {
    String name = "jfr-blocked-join";
    try (Recording r = new Recording()) {
      r.enable(BLOCKED).withThreshold(Duration.ofMillis(1)).withStackTrace();
      r.start();
      long[] join = new long[2];
      Sleeper[] sleeper = new Sleeper[1];
      try (WorkStealingPool pool =
          WorkStealingPool.builder()
              .name(name)
              .parallelism(2)
              .eagerForks(true)
              .registerMXBean(false)
              .build()) {
        long slept =
            pool.invoke(
                Task.of(() -> {
                  Sleeper s = sleeper[0] = new Sleeper(pool, 50);
                  s.fork(); // on the deque at once (eager): the idle worker steals it
                  try {
                    assertTrue(
                        s.started.await(30, TimeUnit.SECONDS), "the other worker took the task");
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                  join[0] = System.nanoTime();
                  long v = s.join(); // stolen and running: nothing to help with
                  join[1] = System.nanoTime();
                  return v;
                }));
        assertEquals(50, slept);
        assertEquals(1, pool.stats().joinsBlocked(), pool.stats().toString());
      }
      r.stop();
      List<RecordedEvent> es = events(r, dir.resolve("blocked.jfr"), BLOCKED, name);
      assertEquals(1, es.size(), es.toString());
      RecordedEvent e = es.get(0);
      assertEquals(Sleeper.class.getName(), e.getClass("taskClass").getName());
      assertTrue(e.getBoolean("done"));
      long d = e.getDuration().toNanos(), joined = join[1] - join[0];
      long seenBlocked = sleeper[0].endNanos - sleeper[0].blockSeenNanos; // >= 50 ms
      assertTrue(
          d >= seenBlocked && d <= joined,
          "blocked "
              + d
              + " ns: at least the "
              + seenBlocked
              + " ns the sleeper saw, within the join's "
              + joined
              + " ns");
      // Timed waits of at most 1 ms each (one may oversleep on a loaded box), helping in between.
      assertTrue(e.getInt("waits") >= 1 && e.getInt("waits") <= d / 1_000_000 + 1, e.toString());
      assertNotNull(e.getStackTrace());
      assertTrue(
          e.getStackTrace().getFrames().stream()
              .map(RecordedFrame::getMethod)
              .anyMatch(m -> m.getName().equals("join")),
          "the stack is the join's");
      assertTrue(e.getThread().getJavaName().startsWith(name), e.getThread().getJavaName());
    }
  }

  /**
   * The .jfc shipped in the jar parses, and enables the pool's events with the documented periods
   * and thresholds (a recording made with it has the pool's samples).
   */
  @Test
  void theShippedSettingsEnableTheEvents() throws Exception {
    Configuration c;
    try (InputStream in = WorkStealingPool.class.getResourceAsStream("/META-INF/tine/tine.jfc")) {
      assertNotNull(in, "META-INF/tine/tine.jfc is in the jar");
      c = Configuration.create(new InputStreamReader(in, StandardCharsets.UTF_8));
    }
    assertEquals("true", c.getSettings().get(STATS + "#enabled"));
    assertEquals("1 s", c.getSettings().get(STATS + "#period"));
    assertEquals("1 ms", c.getSettings().get(BLOCKED + "#threshold"));
    assertEquals("10 ms", c.getSettings().get("dev.tine.QueueWait#waitThreshold"));
    try (Recording r = new Recording(c)) {
      r.start();
      String name = "jfr-settings";
      try (WorkStealingPool pool =
          WorkStealingPool.builder().name(name).parallelism(1).registerMXBean(false).build()) {
        pool.invoke(new Programs.Fib(15));
      }
      r.stop();
      List<RecordedEvent> samples = events(r, dir.resolve("settings.jfr"), STATS, name);
      assertFalse(samples.isEmpty());
      assertEquals(fibForks(15), sum(samples, "forks"));
    }
    assertTrue(Files.exists(dir.resolve("settings.jfr")));
  }
}

package dev.tine.agent.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.AgentConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The agent's tally against exact computation: counts and means exact, percentiles within the
 * buckets' resolution, the window sliding, and L = λ·(Wq + S).
 */
class PoolTallyTest {
  static final double RESOLUTION = 1.0 / TimeBuckets.PER_OCTAVE / 2; // half a bucket, relative

  @Test
  void bucketsCoverTheirRangeInOrder() {
    for (int i = 1; i < TimeBuckets.COUNT; i++) {
      assertTrue(TimeBuckets.lower(i) > TimeBuckets.lower(i - 1), "bucket " + i);
      assertEquals(i, TimeBuckets.index((long) Math.ceil(TimeBuckets.lower(i))), "bucket " + i);
      assertEquals(
          i, TimeBuckets.index((long) Math.ceil(TimeBuckets.upper(i)) - 1), "end of bucket " + i);
    }
    assertEquals(0, TimeBuckets.index(-5));
    assertEquals(TimeBuckets.COUNT - 1, TimeBuckets.index(Long.MAX_VALUE));
  }

  @Test
  void percentilesAreWithinHalfABucketOfTheExactOnesAndMeansAreExact() {
    SplittableRandom r = new SplittableRandom(42);
    for (int round = 0; round < 20; round++) {
      int n = 1 + r.nextInt(20_000);
      long[] waits = new long[n], services = new long[n];
      PoolTally t = new PoolTally();
      long sumW = 0, sumS = 0;
      for (int i = 0; i < n; i++) {
        // log-uniform from 1 µs to 10 s, like real waits and services
        waits[i] = (long) Math.exp(Math.log(1e3) + r.nextDouble() * Math.log(1e7));
        services[i] = (long) Math.exp(Math.log(1e3) + r.nextDouble() * Math.log(1e7));
        long arrival = 1_000_000_000L + i;
        t.record(arrival, arrival + waits[i], arrival + waits[i] + services[i], i % 7 == 0);
        sumW += waits[i];
        sumS += services[i];
      }
      PoolTally.Totals now = new PoolTally.Totals(), base = new PoolTally.Totals();
      t.read(now, 2_000_000_000L);
      base.nanos = 1_000_000_000L;
      PoolFigures f = new PoolFigures();
      TallyWindow.figures(now, base, now.waitMax, now.serviceMax, f);
      assertEquals(n, f.completed);
      assertEquals((n + 6) / 7, f.failed);
      assertEquals(n, f.timedTasks);
      assertEquals(sumW / 1e6 / n, f.waitMs, 1e-9, "mean wait is exact");
      assertEquals(sumS / 1e6 / n, f.serviceMs, 1e-9, "mean service is exact");
      Arrays.sort(waits);
      Arrays.sort(services);
      for (double p : new double[] {50, 90, 99}) {
        double exactW = waits[(int) Math.ceil(p / 100 * n) - 1] / 1e6;
        double exactS = services[(int) Math.ceil(p / 100 * n) - 1] / 1e6;
        double w = p == 50 ? f.waitP50Ms : p == 90 ? f.waitP90Ms : f.waitP99Ms;
        double s = p == 50 ? f.serviceP50Ms : p == 90 ? f.serviceP90Ms : f.serviceP99Ms;
        assertEquals(exactW, w, exactW * 2 * RESOLUTION, "p" + p + " wait of " + n);
        assertEquals(exactS, s, exactS * 2 * RESOLUTION, "p" + p + " service of " + n);
      }
      assertEquals(waits[n - 1] / 1e6, f.waitMaxMs, 1e-9, "the longest wait is exact");
    }
  }

  @Test
  void littlesLIsTheArrivalRateTimesWaitPlusServiceNotTheCompletionRate() {
    // A queue that grows: 100 arrivals in 1 s (10 of them rejected), 50 completions, each having
    // waited 200 ms and run 10 ms.
    PoolTally t = new PoolTally();
    for (int i = 0; i < 100; i++) t.arrive();
    for (int i = 0; i < 10; i++) t.reject();
    for (int i = 0; i < 50; i++) t.record(1_000, 1_000 + 200_000_000L, 1_000 + 210_000_000L, false);
    PoolTally.Totals now = new PoolTally.Totals(), base = new PoolTally.Totals();
    t.read(now, 1_000_000_000L);
    PoolFigures f = new PoolFigures();
    TallyWindow.figures(now, base, now.waitMax, now.serviceMax, f);
    assertEquals(100, f.arrivalRate, 1e-9);
    assertEquals(50, f.retirementRate, 1e-9);
    // accepted arrivals (90/s) × (200 + 10) ms
    assertEquals(90 * 0.210, f.littlesL, 1e-9);
  }

  @Test
  void theWindowSlidesAndALongWindowKeepsABoundedRing() {
    AgentConfig c = AgentConfig.parse("window=3,tick=1000");
    PoolTally t = new PoolTally();
    TallyWindow w = new TallyWindow(c, 0);
    PoolFigures f = new PoolFigures();
    long s = 1_000_000_000L;
    // 10 arrivals in each of the first 3 seconds, then 1 per second
    for (int sec = 1; sec <= 8; sec++) {
      for (int i = 0; i < (sec <= 3 ? 10 : 1); i++) t.arrive();
      w.tick(t, sec * s, f);
      if (sec <= 3) assertEquals(10, f.arrivalRate, 1e-9, "second " + sec);
    }
    assertEquals(3, f.windowSeconds, 1e-9);
    assertEquals(1, f.arrivalRate, 1e-9, "the first seconds have left the 3 s window");
    assertEquals(35, f.arrivals, "since the start");

    AgentConfig longOne = AgentConfig.parse("window=3600,tick=1000");
    assertTrue(
        TallyWindow.bytes(longOne) < 100 * 1024,
        "an hour's window holds at most " + TallyWindow.MAX_SLOTS + " readings");
    TallyWindow hour = new TallyWindow(longOne, 0);
    for (int sec = 1; sec <= 7300; sec++) {
      t.arrive();
      hour.tick(t, sec * s, f);
    }
    assertTrue(f.windowSeconds >= 3600 && f.windowSeconds <= 3600 + 225, "" + f.windowSeconds);
    assertEquals(1, f.arrivalRate, 1e-9);
  }

  @Test
  void aPoolsHeapIsBoundedWhateverItsWindow() {
    for (String w : new String[] {"window=5", "window=60", "window=3600,tick=10"}) {
      AgentConfig c = AgentConfig.parse(w);
      long tally = 2 * (16 + 8L * TimeBuckets.COUNT) + 200;
      long pending = c.pendingCapacity() * 96L; // an entry and its slot, generously
      long threads = ThreadSet.MAX_MEMBERS * 160L;
      long total = tally + TallyWindow.bytes(c) + pending + threads;
      assertTrue(total <= AgentConfig.BYTES_PER_POOL, w + ": " + total + " bytes per pool");
    }
  }

  @Test
  void configRefusesWhatWouldUnboundAPool() {
    assertTrue(
        org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> AgentConfig.parse("pendingCapacity=100000"))
            .getMessage()
            .contains("at most 1024"));
    assertEquals(Duration.ofSeconds(5), AgentConfig.DEFAULT.window());
  }
}

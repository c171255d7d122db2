package dev.tine.agent.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The curve against an exact FIFO of arrival times: the summed waits of the tasks started are exact
 * whatever the queue's depth (but for a bucket being consumed), one task's wait is within its
 * bucket's span, and the heap stays bounded.
 */
class ArrivalCurveTest {
  /** Bursts of arrivals (many per ms, gaps between), starts interleaved: a deep FIFO queue. */
  @Test
  void summedWaitsAreExactAndEachWithinItsBucketWhateverTheDepth() {
    for (int depth : new int[] {5_000, 50_000, 500_000}) {
      Random r = new Random(depth);
      ArrivalCurve c = new ArrivalCurve();
      c.activate(0);
      ArrayDeque<Long> truth = new ArrayDeque<>();
      long t = 1_000_000_000L, exactSum = 0, curveSum = 0, worst = 0;
      long started = 0;
      int maxBuckets = 0;
      for (int burst = 0; burst < 6; burst++) {
        for (int i = 0; i < depth; i++) {
          t += r.nextInt(2_000); // a burst: about 1,000 arrivals per ms
          assertTrue(c.arrive(t));
          truth.add(t);
        }
        maxBuckets = Math.max(maxBuckets, c.buckets());
        // drain most of it, arrivals continuing slowly beside
        for (int i = 0; i < depth * 9 / 10; i++) {
          t += 5_000;
          if (i % 50 == 0) {
            assertTrue(c.arrive(t));
            truth.add(t);
          }
          long a = truth.poll(), e = c.takeOldest();
          exactSum += t - a;
          curveSum += t - e;
          worst = Math.max(worst, Math.abs(e - a));
          started++;
        }
      }
      // what remains is consumed too: then every bucket is consumed whole and the sum is exact
      while (!truth.isEmpty()) {
        t += 5_000;
        long a = truth.poll(), e = c.takeOldest();
        exactSum += t - a;
        curveSum += t - e;
        worst = Math.max(worst, Math.abs(e - a));
        started++;
      }
      assertEquals(exactSum, curveSum, "summed waits, depth " + depth);
      assertEquals(0, c.held());
      assertFalse(c.active(), "an emptied curve lets arrivals go to the table again");
      assertTrue(maxBuckets <= ArrivalCurve.MAX_BUCKETS, "buckets " + maxBuckets);
      assertTrue(c.capacity() <= ArrivalCurve.MAX_BUCKETS);
      assertTrue(
          worst <= c.widthNanos(),
          "one task's arrival within its bucket's span: off by "
              + worst
              + " ns, span "
              + c.widthNanos()
              + " (depth "
              + depth
              + ", "
              + started
              + " starts)");
    }
  }

  /** A mean over a window: exact but for the bucket at each edge. */
  @Test
  void aWindowsMeanWaitIsExactButForItsEdgeBuckets() {
    ArrivalCurve c = new ArrivalCurve();
    c.activate(0);
    ArrayDeque<Long> truth = new ArrayDeque<>();
    long t = 0;
    for (int i = 0; i < 50_000; i++) {
      t += 100; // 50,000 in 5 ms
      c.arrive(t);
      truth.add(t);
    }
    long exact = 0, curve = 0;
    for (int i = 0; i < 20_000; i++) {
      t += 10_000;
      exact += t - truth.poll();
      curve += t - c.takeOldest();
    }
    double meanExact = exact / 20_000.0, meanCurve = curve / 20_000.0;
    // the 20,000 took from 2 whole buckets and part of a third: off by at most a bucket's span
    assertTrue(
        Math.abs(meanCurve - meanExact) <= ArrivalCurve.FIRST_WIDTH_NANOS,
        meanCurve + " vs " + meanExact);
    assertTrue(Math.abs(meanCurve - meanExact) / meanExact < 0.01, meanCurve + " vs " + meanExact);
  }

  @Test
  void newestLeavesFromTheTailAndTasksAheadStartUntimed() {
    ArrivalCurve c = new ArrivalCurve();
    assertFalse(c.arrive(5), "inactive: the arrival is the table's");
    c.activate(2);
    c.arrive(10);
    c.arrive(20);
    c.arrive(5_000_000);
    assertEquals(5_000_000, c.takeNewest(), "a refused or bypassing task: the newest");
    assertEquals(PoolTally.UNTIMED, c.takeOldest(), "queued before the curve began");
    assertEquals(PoolTally.UNTIMED, c.takeOldest());
    long a = c.takeOldest(), b = c.takeOldest();
    assertEquals(30, a + b, "the bucket's sum is exact");
    assertTrue(a <= b);
    assertFalse(c.active());
    c.activate(0);
    for (int i = 0; i < 10; i++) c.arrive(100 + i);
    assertEquals(4, c.dropOldest(4));
    assertEquals(6, c.held());
  }

  /**
   * Two bursts seconds apart, more 1 ms buckets than the ring holds: neighbours merge, but never
   * across the gap, so no task of the first burst is dated into the second or the gap.
   */
  @Test
  void mergedBucketsNeverSpanTheGapBetweenBursts() {
    ArrivalCurve c = new ArrivalCurve();
    c.activate(0);
    long gapStart = 0, gapEnd = 0, t = 0;
    ArrayDeque<Long> truth = new ArrayDeque<>();
    for (int burst = 0; burst < 2; burst++) {
      for (int i = 0; i < 701_000; i++) {
        t += 1_000; // 701 ms of arrivals, one a µs: 701 buckets of 1 ms each burst (an odd count: a
        // pairwise merge would join the gap)
        c.arrive(t);
        truth.add(t);
      }
      if (burst == 0) {
        gapStart = t;
        t += 3_000_000_000L;
        gapEnd = t;
      }
    }
    assertTrue(c.widthNanos() > ArrivalCurve.FIRST_WIDTH_NANOS, "the ring was full: merged");
    long worst = 0;
    while (!truth.isEmpty()) {
      long a = truth.poll(), e = c.takeOldest();
      assertFalse(e > gapStart && e < gapEnd + 1_000, "dated into the gap: " + e);
      worst = Math.max(worst, Math.abs(e - a));
    }
    assertTrue(worst < c.widthNanos(), "off by " + worst + " ns, span " + c.widthNanos());
  }
}

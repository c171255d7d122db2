package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Index ranges at the ends of {@code int}: every join form that takes a range visits each index of
 * {@code [from, to)} exactly once and combines in index order, as a sequential loop over the same
 * indices does, for ranges that end at {@code Integer.MAX_VALUE} or start at {@code MIN_VALUE},
 * empty and one-element ones included. The JDK's {@code IntStream.range(MAX - 100, MAX)} counts
 * 100.
 *
 * <p>Planted bug it catches (the original code): the lazy loop's chunk end {@code Math.min(end, i +
 * POLL_EVERY)} overflows within 32 of {@code MAX_VALUE}, the chunk is empty, and the worker spins
 * for ever without running the last iterations.
 */
class RangeBoundsTest {
  static final int MAX = Integer.MAX_VALUE, MIN = Integer.MIN_VALUE;
  static final long BOUND_S = 60;

  /** Ranges at both ends of int, and a few ordinary ones for contrast. */
  static final int[][] RANGES = {
    {MAX - 100, MAX},
    {MAX - 33, MAX},
    {MAX - 32, MAX},
    {MAX - 31, MAX},
    {MAX - 2, MAX},
    {MAX - 1, MAX},
    {MAX, MAX},
    {MAX - 2, MAX - 1},
    {MAX - 20_000, MAX},
    {MIN, MIN + 100},
    {MIN, MIN + 1},
    {MIN, MIN},
    {MIN, MIN + 20_000},
    {-500, 500},
    {0, 0},
  };

  static Stream<Arguments> pools() {
    List<Arguments> a = new ArrayList<>();
    for (int p : new int[] {1, 2, 4}) {
      a.add(Arguments.of(p, false));
      a.add(Arguments.of(p, true));
    }
    return a.stream();
  }

  // ---------------------------------------------------------------------------------------------
  // Ground truth: sequential loops over the same indices, in long so that they cannot overflow

  static long hash(int i) {
    return SoakTest.mix(i);
  }

  static long seqHashSum(int from, int to) {
    long s = 0;
    for (long i = from; i < to; i++) s += hash((int) i);
    return s;
  }

  static double seqDoubleSum(int from, int to) {
    double s = 0;
    for (long i = from; i < to; i++) s += (double) (i & 1023); // integers: exact in any order
    return s;
  }

  /** An associative, non-commutative combine: the rightmost operand that is not the identity. */
  static long last(long a, long b) {
    return b == Long.MIN_VALUE ? a : b;
  }

  static double lastDouble(double a, double b) {
    return Double.isNaN(b) ? a : b;
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void theJdkCountsTheIndicesUpToMaxValue() {
    assertEquals(100, IntStream.range(MAX - 100, MAX).parallel().count());
    assertEquals(100, IntStream.range(MIN, MIN + 100).parallel().count());
  }

  @Test
  void theChunkEndAndTheSplitTestNeverOverflow() {
    assertEquals(MAX, Ranges.chunkEnd(MAX - 10, MAX));
    assertEquals(MAX, Ranges.chunkEnd(MAX - 1, MAX));
    assertEquals(MAX - 1, Ranges.chunkEnd(MAX - 1 - Ranges.POLL_EVERY, MAX));
    assertEquals(MIN + Ranges.POLL_EVERY, Ranges.chunkEnd(MIN, MAX));
    assertEquals(MIN + 1, Ranges.chunkEnd(MIN, MIN + 1));
    // [MIN, MAX) holds 2^32 - 1 indices: end - i overflows, and it must still split.
    assertTrue(Ranges.splittable(MIN, MAX));
    assertTrue(Ranges.splittable(-1, MAX));
    assertTrue(Ranges.splittable(MIN, 1));
    assertTrue(Ranges.splittable(MAX - 2, MAX));
    assertFalse(Ranges.splittable(MAX - 1, MAX));
    assertFalse(Ranges.splittable(MAX, MAX));
    assertFalse(Ranges.splittable(MIN, MIN + 1));
  }

  @ParameterizedTest(name = "p={0} eager={1}")
  @MethodSource("pools")
  void tineRangesMatchTheSequentialLoopAtBothEnds(int p, boolean eager) throws Exception {
    withPool(
        p,
        eager,
        pool -> {
          for (int[] r : RANGES) {
            int from = r[0], to = r[1];
            String what = "[" + from + ", " + to + ") at p=" + p + " eager=" + eager;
            assertVisitsEachOnce(
                from,
                to,
                what,
                counts ->
                    within(
                        pool,
                        () -> {
                          Tine.forRange(from, to, i -> counts.incrementAndGet(i - from));
                          return null;
                        }));
            assertEquals(
                seqHashSum(from, to),
                within(pool, () -> Tine.reduceLong(from, to, 0L, RangeBoundsTest::hash, Long::sum)),
                "reduceLong " + what);
            assertEquals(
                to > from ? to - 1L : Long.MIN_VALUE,
                within(
                    pool,
                    () -> Tine.reduceLong(from, to, Long.MIN_VALUE, i -> i, RangeBoundsTest::last)),
                "reduceLong in index order " + what);
            assertEquals(
                seqDoubleSum(from, to),
                within(
                    pool,
                    () -> Tine.reduceDouble(from, to, 0.0, i -> (double) (i & 1023), Double::sum)),
                "reduceDouble " + what);
            assertEquals(
                to > from ? to - 1.0 : Double.NaN,
                within(
                    pool,
                    () ->
                        Tine.reduceDouble(
                            from, to, Double.NaN, i -> (double) i, RangeBoundsTest::lastDouble)),
                "reduceDouble in index order " + what);
          }
        });
  }

  /** Called from a thread that is not a worker, the range runs on the common pool. */
  @Test
  void tineRangesFromOutsideAPoolMatchTheSequentialLoop() throws Exception {
    ExecutorService outside = Executors.newSingleThreadExecutor();
    try {
      for (int[] r : RANGES) {
        int from = r[0], to = r[1];
        String what = "[" + from + ", " + to + ") from outside";
        assertVisitsEachOnce(
            from,
            to,
            what,
            counts ->
                within(
                    outside,
                    () -> {
                      Tine.forRange(from, to, i -> counts.incrementAndGet(i - from));
                      return null;
                    }));
        assertEquals(
            seqHashSum(from, to),
            within(outside, () -> Tine.reduceLong(from, to, 0L, RangeBoundsTest::hash, Long::sum)),
            "reduceLong " + what);
        assertEquals(
            seqDoubleSum(from, to),
            within(
                outside,
                () -> Tine.reduceDouble(from, to, 0.0, i -> (double) (i & 1023), Double::sum)),
            "reduceDouble " + what);
      }
    } finally {
      outside.shutdownNow();
    }
  }

  // Scope's range joins: recursive halving whose halves travel packed in one long when promoted.

  static long sumRange(Scope s, int lo, int hi) {
    if (hi - (long) lo <= 16) {
      long acc = 0;
      for (long i = lo; i < hi; i++) acc += hash((int) i);
      return acc;
    }
    int mid = lo + (int) ((hi - (long) lo) >>> 1);
    return s.joinLong(
        RangeBoundsTest::sumRange, lo, mid, RangeBoundsTest::sumRange, mid, hi, Long::sum);
  }

  static double sumRangeDouble(Scope s, int lo, int hi) {
    if (hi - (long) lo <= 16) {
      double acc = 0;
      for (long i = lo; i < hi; i++) acc += (double) (i & 1023);
      return acc;
    }
    int mid = lo + (int) ((hi - (long) lo) >>> 1);
    return s.joinDouble(
        RangeBoundsTest::sumRangeDouble,
        lo,
        mid,
        RangeBoundsTest::sumRangeDouble,
        mid,
        hi,
        Double::sum);
  }

  /** The range's indices as a string "lo..hi-1", combined in index order. */
  static String spanOf(Scope s, int lo, int hi) {
    if (hi - (long) lo <= 16) {
      return hi == lo ? "" : lo + ".." + (hi - 1);
    }
    int mid = lo + (int) ((hi - (long) lo) >>> 1);
    return s.join(
        RangeBoundsTest::spanOf,
        lo,
        mid,
        RangeBoundsTest::spanOf,
        mid,
        hi,
        (String a, String b) -> a.substring(0, a.indexOf("..")) + b.substring(b.indexOf("..")));
  }

  static void visit(Scope s, int lo, int hi, AtomicIntegerArray counts, int base) {
    if (hi - (long) lo <= 16) {
      for (long i = lo; i < hi; i++) counts.incrementAndGet((int) (i - base));
      return;
    }
    int mid = lo + (int) ((hi - (long) lo) >>> 1);
    s.join(
        (sc, a, b) -> visit(sc, a, b, counts, base),
        lo,
        mid,
        (sc, a, b) -> visit(sc, a, b, counts, base),
        mid,
        hi);
  }

  @ParameterizedTest(name = "p={0} eager={1}")
  @MethodSource("pools")
  void scopeRangeJoinsMatchTheSequentialLoopAtBothEnds(int p, boolean eager) throws Exception {
    withPool(
        p,
        eager,
        pool -> {
          for (int[] r : RANGES) {
            int from = r[0], to = r[1];
            String what = "[" + from + ", " + to + ") at p=" + p + " eager=" + eager;
            assertEquals(
                seqHashSum(from, to),
                (long) within(pool, () -> pool.invoke(s -> (Long) sumRange(s, from, to))),
                "joinLong " + what);
            assertEquals(
                seqDoubleSum(from, to),
                (double) within(pool, () -> pool.invoke(s -> (Double) sumRangeDouble(s, from, to))),
                "joinDouble " + what);
            if (to > from) {
              assertEquals(
                  from + ".." + (to - 1),
                  within(pool, () -> pool.invoke(s -> spanOf(s, from, to))),
                  "join (object) " + what);
            }
            assertVisitsEachOnce(
                from,
                to,
                what,
                counts ->
                    within(
                        pool,
                        () ->
                            pool.invoke(s -> {
                              visit(s, from, to, counts, from);
                              return null;
                            })));
          }
        });
  }

  // ---------------------------------------------------------------------------------------------

  static WorkStealingPool pool(int p, boolean eager) {
    return WorkStealingPool.builder()
        .parallelism(p)
        .eagerForks(eager)
        .registerMXBean(false)
        .build();
  }

  interface PoolBody {
    void run(WorkStealingPool pool) throws Exception;
  }

  /**
   * Runs {@code body} with a fresh pool and closes it; if the body fails, the pool is shut down
   * from a daemon thread instead, so that a worker stuck in a loop cannot hang the test run.
   */
  static void withPool(int p, boolean eager, PoolBody body) throws Exception {
    WorkStealingPool pool = pool(p, eager);
    boolean ok = false;
    try {
      body.run(pool);
      ok = true;
    } finally {
      if (ok) {
        pool.close();
      } else {
        Thread.ofPlatform().daemon().name("range-bounds-abandon").start(pool::shutdownNow);
      }
    }
  }

  interface Visit {
    void run(AtomicIntegerArray counts) throws Exception;
  }

  static void assertVisitsEachOnce(int from, int to, String what, Visit visit) throws Exception {
    AtomicIntegerArray counts = new AtomicIntegerArray(to - from);
    visit.run(counts);
    for (int k = 0; k < counts.length(); k++) {
      if (counts.get(k) != 1) {
        fail("index " + (from + k) + " visited " + counts.get(k) + " times: " + what);
      }
    }
  }

  /** Runs {@code c} as a task of {@code pool}, failing (not hanging) if it does not return. */
  static <T> T within(ExecutorService executor, Callable<T> c) throws Exception {
    return within(executor.submit(c), executor.toString());
  }

  private static <T> T within(Future<T> f, String where) throws Exception {
    try {
      return f.get(BOUND_S, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new AssertionError("did not return within " + BOUND_S + " s, run from " + where, e);
    }
  }
}

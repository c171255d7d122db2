package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A scope or primitive join that finds {@link LatentStack#RECORD_DEPTH} latent entries below it,
 * with no hungry thief, records nothing: its second half runs here after the first, as the
 * sequential program's call. What users see must not change: the values, each half run exactly
 * once, the exceptions, the counts (each join is a fork, taken back by its join).
 */
class UnrecordedJoinTest {
  /** The chain recursion: the first half is the rest of the chain, the second the leaf here. */
  static long chain(Scope s, int i, int n, AtomicIntegerArray leafRuns, int[] maxLatent) {
    if (Thread.currentThread() == s.worker) {
      maxLatent[0] = Math.max(maxLatent[0], s.size());
    }
    if (i == n) {
      return 0;
    }
    return s.joinLong(
        (Scope.IntToLong) (t, j) -> chain(t, j, n, leafRuns, maxLatent),
        i + 1,
        (t, j) -> leaf(j, leafRuns),
        i,
        Long::sum);
  }

  static long leaf(int i, AtomicIntegerArray leafRuns) {
    leafRuns.incrementAndGet(i);
    return i;
  }

  static long tineFib(int n, int[] maxLatent) {
    if (Thread.currentThread() instanceof Worker w) {
      maxLatent[0] = Math.max(maxLatent[0], w.scope.size());
    }
    return n < 2
        ? n
        : Tine.joinLong(
            k -> tineFib(k, maxLatent), n - 1, k -> tineFib(k, maxLatent), n - 2, Long::sum);
  }

  /** At p=1 nobody is ever hungry: a 300-deep recursion keeps at most RECORD_DEPTH entries. */
  @Test
  void aDeepRecursionAtOneWorkerKeepsOnlyTheOutermostForks() throws Exception {
    int n = 300;
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
      AtomicIntegerArray runs = new AtomicIntegerArray(n);
      int[] maxLatent = {0};
      long r = pool.<Long>invoke(s -> chain(s, 0, n, runs, maxLatent));
      assertEquals((long) n * (n - 1) / 2, r);
      for (int i = 0; i < n; i++) assertEquals(1, runs.get(i), "leaf " + i);
      assertEquals(LatentStack.RECORD_DEPTH, maxLatent[0], "latent entries at most, and that many");
      PoolStats st = pool.stats();
      assertEquals(n, st.forks(), "each join is a fork, recorded or not: " + st);
      assertEquals(n, st.joins(), "and each was taken back by its join: " + st);

      int[] fibMax = {0};
      assertEquals(Programs.seqFib(25), (long) pool.invoke(Task.of(() -> tineFib(25, fibMax))));
      assertEquals(LatentStack.RECORD_DEPTH, fibMax[0], "Tine.joinLong: the same bound");
    }
  }

  /** Every leaf once and the exact sum, wherever the thieves find work (many rounds, p=2 and 4). */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {2, 4})
  void deepJoinsKeepEachHalfExactlyOnceWithThieves(int p) throws Exception {
    int n = 2_000;
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(p).build()) {
      for (int round = 0; round < 20; round++) {
        AtomicIntegerArray runs = new AtomicIntegerArray(n);
        long r = pool.<Long>invoke(s -> chain(s, 0, n, runs, new int[1]));
        assertEquals((long) n * (n - 1) / 2, r, "round " + round);
        for (int i = 0; i < n; i++) assertEquals(1, runs.get(i), "leaf " + i + ", round " + round);
        int[] fibMax = {0};
        assertEquals(Programs.seqFib(22), (long) pool.invoke(Task.of(() -> tineFib(22, fibMax))));
      }
      long forksPerRound = n + Programs.seqFib(23) - 1;
      assertEquals(20 * forksPerRound, pool.stats().forks(), "every join a fork: " + pool.stats());
    }
  }

  static final class Thrown extends RuntimeException {
    Thrown() {
      super(null, null, false, false);
    }
  }

  static long throwingChain(Scope s, int i, int throwAt, AtomicIntegerArray leafRuns, Thrown e) {
    if (i == throwAt) {
      throw e;
    }
    return s.joinLong(
        (Scope.IntToLong) (t, j) -> throwingChain(t, j, throwAt, leafRuns, e),
        i + 1,
        (t, j) -> leaf(j, leafRuns),
        i,
        Long::sum);
  }

  /**
   * A first half that throws drops its join's second half, recorded or not: the same object
   * arrives, no leaf runs, and no join counts as taken back.
   */
  @ParameterizedTest(name = "thrown {0} joins deep")
  @ValueSource(ints = {1, LatentStack.RECORD_DEPTH, LatentStack.RECORD_DEPTH + 1, 200})
  void aFirstHalfThatThrowsDropsTheSecondAtEveryDepth(int depth) throws Exception {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
      AtomicIntegerArray runs = new AtomicIntegerArray(depth + 1);
      Thrown e = new Thrown();
      Thrown got =
          assertThrows(
              Thrown.class, () -> pool.<Long>invoke(s -> throwingChain(s, 0, depth, runs, e)));
      assertSame(e, got);
      for (int i = 0; i <= depth; i++) assertEquals(0, runs.get(i), "leaf " + i + " ran");
      PoolStats st = pool.stats();
      assertEquals(depth, st.forks(), "" + st);
      assertEquals(0, st.joins(), "dropped, not joined: " + st);
      // and the worker is fine afterwards: the next recursion records from an empty stack
      int[] maxLatent = {0};
      AtomicIntegerArray again = new AtomicIntegerArray(50);
      assertEquals(50L * 49 / 2, pool.<Long>invoke(s -> chain(s, 0, 50, again, maxLatent)));
      assertEquals(LatentStack.RECORD_DEPTH, maxLatent[0]);
    }
  }

  static long nested(Scope s, int depth, Scope.IntToLong innermost) {
    Scope.IntToLong zero = (t, x) -> 0L;
    return depth == 0
        ? innermost.apply(s, 0)
        : s.joinLong((t, d) -> nested(t, d, innermost), depth - 1, zero, 0, Long::sum);
  }

  /**
   * A null second half is an NPE before the first half runs, at every depth (ScopeTest's, deep).
   */
  @ParameterizedTest(name = "{0} joins deep")
  @ValueSource(ints = {1, LatentStack.RECORD_DEPTH + 4})
  void aNullSecondHalfIsAnNpeBeforeTheFirstHalfRunsAtEveryDepth(int depth) throws Exception {
    int[] firstRan = {0};
    Scope.IntToLong first =
        (t, x) -> {
          firstRan[0]++;
          return 0;
        };
    Scope.IntToLong innermost =
        (t, x) -> t.joinLong(first, 0, (Scope.IntToLong) null, 5, Long::sum);
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
      assertThrows(
          NullPointerException.class, () -> pool.<Long>invoke(s -> nested(s, depth, innermost)));
      assertEquals(0, firstRan[0], "the first half ran before the null was noticed");
    }
  }

  /** After close, no worker thread is left (the unrecorded path holds nothing of the pool's). */
  @Test
  void noThreadIsLeftAfterClose() throws Exception {
    WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build();
    AtomicIntegerArray runs = new AtomicIntegerArray(500);
    assertEquals(500L * 499 / 2, pool.<Long>invoke(s -> chain(s, 0, 500, runs, new int[1])));
    pool.close();
    assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    assertTrue(pool.isTerminated());
  }
}

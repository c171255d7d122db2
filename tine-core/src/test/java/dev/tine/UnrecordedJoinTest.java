package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A scope or primitive join that finds {@link LatentStack#RECORD_DEPTH} latent entries below it,
 * with no hungry thief, records nothing: its second half runs here after the first, as the
 * sequential program's call. What users see must not change: the values, each half run exactly
 * once, the exceptions; and the counts say what was forked: the recorded joins only.
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
      assertEquals(LatentStack.RECORD_DEPTH, st.forks(), "the recorded joins are the forks: " + st);
      assertEquals(LatentStack.RECORD_DEPTH, st.joins(), "each taken back by its join: " + st);

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
      long joinCallsPerRound = n + Programs.seqFib(23) - 1;
      PoolStats st = pool.stats();
      assertTrue(st.forks() > 0 && st.forks() <= 20 * joinCallsPerRound, "forks: " + st);
      assertTrue(st.joins() <= st.forks(), "joins: " + st);
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
      assertEquals(Math.min(depth, LatentStack.RECORD_DEPTH), st.forks(), "recorded: " + st);
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

  /** Nests {@code d} joins with trivial second halves; at the bottom runs {@code inner}. */
  static long nest(Scope s, int d, Scope.IntToLong inner) {
    if (d == 0) return inner.apply(s, 0);
    return s.joinLong(
        (Scope.IntToLong) (t, x) -> nest(t, x, inner), d - 1, (t, x) -> 0L, 0, Long::sum);
  }

  /**
   * A fork the first half left unjoined runs exactly once: before the second half of a recorded
   * join (its take-back runs it), and, below the outermost six, at the next recorded join above or
   * when the worker is done (an unrecorded join does not look for it: the look cost 0.15-0.2 of
   * sequential per join).
   */
  @ParameterizedTest(name = "{0} joins deep")
  @ValueSource(ints = {2, 10})
  void aFirstHalfsUnjoinedForkRunsOnce(int depth) throws Exception {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
      AtomicInteger ran = new AtomicInteger();
      boolean[] ranBeforeSecond = {false};
      pool.<Long>invoke(s ->
          nest(
              s,
              depth,
              (t, x) ->
                  t.joinLong(
                      (Scope.IntToLong)
                          (u, y) -> {
                            Task.of(() -> ran.incrementAndGet()).fork(); // never joined
                            return 0L;
                          },
                      0,
                      (u, y) -> {
                        ranBeforeSecond[0] = ran.get() == 1;
                        return 0L;
                      },
                      0,
                      Long::sum)));
      if (depth < LatentStack.RECORD_DEPTH) {
        assertTrue(ranBeforeSecond[0], "a recorded join runs the fork before its second half");
      }
      assertEquals(1, ran.get(), "the fork ran exactly once");
    }
  }

  /**
   * A second half that waits for a fork its first half left unjoined, ten joins deep (so the join
   * is not recorded and the fork is still latent while the second half waits), completes: the fork
   * is a recorded task entry, which the stall spare at p=1 and the idle worker at p=2 claim.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void aSecondHalfWaitingForTheFirstHalfsForkCompletes(int p) throws Exception {
    CountDownLatch latch = new CountDownLatch(1);
    Scope.IntToLong inner =
        (t, x) ->
            t.joinLong(
                (Scope.IntToLong)
                    (u, y) -> {
                      Task.of(
                              () -> {
                                latch.countDown();
                                return null;
                              })
                          .fork(); // never joined
                      return 1L;
                    },
                0,
                (u, y) -> {
                  try {
                    return latch.await(20, TimeUnit.SECONDS) ? 1L : -1000L;
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                },
                0,
                Long::sum);
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(p).build()) {
      assertEquals(
          2L, (long) pool.<Long>invoke(s -> nest(s, 10, inner)), "-999: the wait timed out");
    }
  }

  static long overflow(Scope s, long n) {
    return 1 + overflow(s, n + 1);
  }

  /**
   * A StackOverflowError in the second half of an unrecorded join fails a fork its first half left
   * unjoined and unstarted, as the README's {@code overflow-leftover-forks} row says of any fork an
   * overflowed computation leaves behind (a recorded join would have run it before its second
   * half). Pinned, so that a change here is seen.
   */
  @Test
  void anOverflowInAnUnrecordedSecondHalfFailsTheFirstHalfsUnstartedFork() throws Exception {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
      AtomicInteger ran = new AtomicInteger();
      AtomicReference<Task<Object>> fork = new AtomicReference<>();
      assertThrows(
          StackOverflowError.class,
          () ->
              pool.<Long>invoke(s -> {
                for (int i = 0; i < LatentStack.RECORD_DEPTH; i++) Task.of(() -> null).fork();
                return s.joinLong(
                    (Scope.IntToLong)
                        (u, y) -> {
                          Task<Object> t =
                              Task.of(() -> {
                                ran.incrementAndGet();
                                return "the fork's result";
                              });
                          fork.set(t);
                          t.fork(); // never joined
                          return 0L;
                        },
                    0,
                    (u, y) -> overflow(u, 0),
                    0,
                    Long::sum);
              }));
      assertEquals(0, ran.get(), "the fork did not run");
      assertThrows(StackOverflowError.class, () -> fork.get().join());
    }
  }

  /**
   * The rule's premise, "an empty deque implies the restock word is set", also after {@code
   * tryUnfork} pops a promoted fork (it left the word clear, and a p=2 program then ran on one
   * thread: the review's finding, older than the rule).
   */
  @Test
  void aTryUnforkThatEmptiesTheDequeSetsTheRestockWord() throws Exception {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      int checked = 0;
      for (int round = 0; round < 500 && checked < 20; round++) {
        String seen =
            pool.invoke(
                Task.of(() -> {
                  Worker w = (Worker) Thread.currentThread();
                  Task<Object> x = Task.of(() -> null);
                  x.fork();
                  if (w.latent.size() == 0 && w.deque.size() == 1 && x.tryUnfork()) {
                    return w.deque.size() == 0 && w.latent.dequeEmptied == 0
                        ? "an empty deque with the word clear"
                        : "ok";
                  }
                  x.join(); // not promoted, or a thief took it: not this round
                  return null;
                }));
        if (seen != null) {
          assertEquals("ok", seen);
          checked++;
        }
      }
      assertTrue(checked > 0, "no round took a promoted fork back");
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

package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every join form on one latent stack, under promotion, stealing and claims: each level of a range
 * recursion picks a form by its position (a scope join over ranges, scope closures, a scope join
 * with object results, {@link Tine#joinLong} with suppliers, a {@code Task} fork and join), so the
 * same slot is used by different forms and kinds from one join to the next, and functions left in
 * slots by earlier pops meet pushes of other kinds. Some leaves park briefly, so idle workers claim
 * the blocked owner's latent entries too. Every leaf must run exactly once per round and every sum
 * must be exact.
 *
 * <p>What it catches: a kind recorded for the wrong function (a promoted half calling another
 * interface), a fast push that trusted a slot's stale function, an entry lost or run twice by a
 * promotion or a claim racing the owner's pop. Checked by planting: with the storing push not
 * recording the kind, or the fast push trusting whatever function its slot holds, parallelism 2 and
 * 4 fail (a promoted half cast to the wrong interface; a null function run). At parallelism 1
 * nothing is promoted, so the slot's function is never read. About 15 (p=2) to 190 (p=4) claims and
 * a few hundred promotions happen per run of 12 rounds on a 2-core box.
 */
class MixedJoinStressTest {
  static final int LEAVES = 4096;
  static final int ROUNDS = 30;

  /** Runs per leaf; static so that the joins' functions are non-capturing method references. */
  static AtomicIntegerArray runs;

  static long leaf(int i) {
    runs.incrementAndGet(i);
    if ((i & 63) == 7) {
      LockSupport.parkNanos(
          20_000); // the owner blocks outside Tine: its latent entries are claimable
    } else {
      long x = 0;
      for (int k = 0; k < 200; k++) x += (k ^ i) & 1;
      if (x < 0) throw new AssertionError();
    }
    return i;
  }

  static Long boxed(Scope s, int lo, int hi) {
    return node(s, lo, hi);
  }

  static long node(Scope s, int lo, int hi) {
    if (hi - lo == 1) return leaf(lo);
    int mid = (lo + hi) >>> 1;
    switch ((lo / (hi - lo) + Integer.numberOfTrailingZeros(hi - lo)) % 5) {
      case 0 -> {
        return s.joinLong(
            MixedJoinStressTest::node, lo, mid, MixedJoinStressTest::node, mid, hi, Long::sum);
      }
      case 1 -> {
        return s.joinLong(t -> node(t, lo, mid), t -> node(t, mid, hi), Long::sum);
      }
      case 2 -> {
        Long r =
            s.<Long, Long, Long>join(
                MixedJoinStressTest::boxed,
                lo,
                mid,
                MixedJoinStressTest::boxed,
                mid,
                hi,
                Long::sum);
        return r;
      }
      case 3 -> {
        return Tine.joinLong(
            () -> node(Scope.current(), lo, mid), () -> node(Scope.current(), mid, hi), Long::sum);
      }
      default -> {
        Task<Long> right = Task.of(() -> node(Scope.current(), mid, hi));
        right.fork();
        long l = node(s, lo, mid);
        return l + right.join();
      }
    }
  }

  @ParameterizedTest(name = "parallelism {0}")
  @CsvSource({"1", "2", "4"})
  void everyLeafRunsOnceAndEverySumIsExact(int p) {
    long expect = (long) LEAVES * (LEAVES - 1) / 2;
    runs = new AtomicIntegerArray(LEAVES);
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(p).build()) {
      for (int round = 1; round <= ROUNDS; round++) {
        assertEquals((Object) expect, pool.invoke(s -> node(s, 0, LEAVES)), "round " + round);
        for (int i = 0; i < LEAVES; i++) {
          assertEquals(round, runs.get(i), "leaf " + i + " after round " + round);
        }
      }
      PoolStats st = pool.stats();
      if (p > 1) {
        assertTrue(st.promotions() > 0, "nothing promoted: the test did not test stealing");
      }
    }
  }
}

package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The counters count what the primitive and scope joins do: each latent second half is a fork, and
 * one taken back by its own join is a join (they read "forks 0, joins 0" for fork-every fib
 * before); a join below the outermost {@link LatentStack#RECORD_DEPTH} latent levels that records
 * nothing forks nothing and counts as neither. The counts outlive the workers (they move to the
 * slot when a worker exits).
 */
class JoinCountsTest {
  static long joinFib(int n) {
    return n < 2
        ? n
        : Tine.joinLong(JoinCountsTest::joinFib, n - 1, JoinCountsTest::joinFib, n - 2, Long::sum);
  }

  static long scopeFib(Scope s, int n) {
    return n < 2
        ? n
        : s.joinLong(JoinCountsTest::scopeFib, n - 1, JoinCountsTest::scopeFib, n - 2, Long::sum);
  }

  static final int N = 20;

  /**
   * The joins fib(n) records at one worker, where nobody is ever hungry: a join records when fewer
   * than RECORD_DEPTH latent entries are below it, and its first half then runs one entry deeper.
   */
  static long recordedAtOneWorker(int n, int latentBelow) {
    if (n < 2) return 0;
    boolean recorded = latentBelow < LatentStack.RECORD_DEPTH;
    return (recorded ? 1 : 0)
        + recordedAtOneWorker(n - 1, recorded ? latentBelow + 1 : latentBelow)
        + recordedAtOneWorker(n - 2, latentBelow);
  }

  @ParameterizedTest(name = "{0}, parallelism {1}, eager {2}")
  @CsvSource({
    "Tine.joinLong, 1, false",
    "Tine.joinLong, 2, false",
    "Scope.joinLong, 1, false",
    "Scope.joinLong, 2, false",
    "Tine.joinLong, 2, true",
    "Scope.joinLong, 2, true"
  })
  void forksAndJoinsAreCounted(String form, int parallelism, boolean eager) throws Exception {
    ToLongFunction<WorkStealingPool> run =
        form.equals("Scope.joinLong")
            ? pool -> pool.<Long>invoke(s -> scopeFib(s, N))
            : pool -> pool.invoke(Task.of(() -> joinFib(N)));
    long joinCalls = Programs.seqFib(N + 1) - 1; // one per internal node of the call tree
    long forks = recordedAtOneWorker(N, 0);
    WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(parallelism).eagerForks(eager).build();
    PoolStats s;
    try {
      assertEquals(Programs.seqFib(N), run.applyAsLong(pool));
      s = pool.stats();
      if (eager) {
        assertEquals(joinCalls, s.forks(), "an eager pool forks every second half: " + s);
      } else if (parallelism == 1) {
        assertEquals(forks, s.forks(), "every recorded second half is a fork: " + s);
        assertEquals(forks, s.joins(), "nobody is hungry: every join takes its half back: " + s);
      } else {
        // hungry thieves make deeper joins record: more forks than at one worker, never more
        // than the joins made
        assertTrue(s.forks() > 0 && s.forks() <= joinCalls, "forks: " + s);
        assertTrue(
            s.joins() <= s.forks() && s.joins() >= s.forks() - s.promotions(),
            "joins: taken back, or promoted and joined as a task: " + s);
      }
      long firstForks = s.forks();
      pool.resetStats();
      assertEquals(0, pool.stats().forks(), "reset");
      assertEquals(0, pool.stats().joins(), "reset");
      assertEquals(Programs.seqFib(N), run.applyAsLong(pool));
      s = pool.stats();
      if (eager || parallelism == 1) {
        assertEquals(firstForks, s.forks(), "counted from the reset: " + s);
      } else {
        assertTrue(s.forks() > 0 && s.forks() <= joinCalls, "counted from the reset: " + s);
      }
    } finally {
      pool.shutdown();
    }
    assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    PoolStats after = pool.stats();
    assertEquals(s.forks(), after.forks(), "the counts outlive the workers: " + after);
    assertEquals(s.joins(), after.joins(), "the counts outlive the workers: " + after);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"Tine.joinLong", "Scope.joinLong"})
  void statsOffCountNothing(String form) {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(2).recordStats(false).build()) {
      long r =
          form.equals("Scope.joinLong")
              ? pool.<Long>invoke(s -> scopeFib(s, N))
              : pool.invoke(Task.of(() -> joinFib(N)));
      assertEquals(Programs.seqFib(N), r);
      assertEquals(0, pool.stats().forks());
      assertEquals(0, pool.stats().joins());
    }
  }
}

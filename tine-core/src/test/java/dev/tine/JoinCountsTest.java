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
 * before). The counts outlive the workers (they move to the slot when a worker exits).
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
    long forks = Programs.seqFib(N + 1) - 1; // one per internal node of the call tree
    WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(parallelism).eagerForks(eager).build();
    PoolStats s;
    try {
      assertEquals(Programs.seqFib(N), run.applyAsLong(pool));
      s = pool.stats();
      assertEquals(forks, s.forks(), "every second half is a fork: " + s);
      if (!eager && parallelism == 1) {
        assertEquals(forks, s.joins(), "nobody is hungry: every join takes its half back: " + s);
      } else if (!eager) {
        assertTrue(
            s.joins() <= forks && s.joins() >= forks - s.promotions(),
            "joins: taken back, or promoted and joined as a task: " + s);
      }
      pool.resetStats();
      assertEquals(0, pool.stats().forks(), "reset");
      assertEquals(0, pool.stats().joins(), "reset");
      assertEquals(Programs.seqFib(N), run.applyAsLong(pool));
      s = pool.stats();
      assertEquals(forks, s.forks(), "counted from the reset: " + s);
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

package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The root of the {@code OverflowTest} wedge, made deterministic. An overflow at the very call of a
 * {@code join()} (the callee's entry, before any handler of the runtime: out of every runtime's
 * reach) leaves the fork behind its failed join, an orphan. A {@link Orphaner} does exactly that on
 * every run: it forks its successor and throws a {@link StackOverflowError} where the join would
 * have been. Run inside a join's own frame (its own forks first), or as a scope join's left-behind
 * fork, each orphan left another one and the join ran them forever: the pool wedged (in the real
 * recursion until the JIT happened to recompile something, about one {@code OverflowTest} run in
 * five on a busy box). Now what a run that overflowed left behind fails with its error: the
 * successor never runs, and the join returns the first half's error.
 *
 * <p>The JDK's pool, given the same program, returns from the join too (it takes the target out
 * from under the orphan) and then runs the orphans from its run loop, one after another, for as
 * long as the pool lives; the test compares the join's outcome and stops that pool.
 */
class OverflowOrphanTest {
  static final int GIVE_UP_S = 30;

  /** Forks its successor, then "overflows" where it would join it. */
  static final class Orphaner extends Task<Long> {
    final AtomicInteger runs;
    final StackOverflowError error;

    Orphaner(AtomicInteger runs, StackOverflowError error) {
      this.runs = runs;
      this.error = error;
    }

    @Override
    protected Long compute() {
      runs.incrementAndGet();
      new Orphaner(runs, error).fork();
      throw error;
    }
  }

  static final class JdkOrphaner extends RecursiveTask<Long> {
    final AtomicInteger runs;
    final StackOverflowError error;

    JdkOrphaner(AtomicInteger runs, StackOverflowError error) {
      this.runs = runs;
      this.error = error;
    }

    @Override
    protected Long compute() {
      runs.incrementAndGet();
      new JdkOrphaner(runs, error).fork();
      throw error;
    }
  }

  /**
   * {@code invokeAll(orphaner, leaf)}: the leaf is forked, the orphaner runs and leaves an orphan
   * above it, and the join of the leaf finds the orphan first (shape 0). {@code Tine.joinLong} with
   * the orphaner as its first half: the orphan is a fork the first half left behind (shape 1).
   */
  @ParameterizedTest(name = "shape {0}")
  @ValueSource(ints = {0, 1})
  void anOrphanOfAnOverflowIsFailedNotRunOverAndOver(int shape) throws Exception {
    StackOverflowError error = new StackOverflowError("at the call of join()");
    AtomicInteger tineRuns = new AtomicInteger();
    String tine;
    WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).registerMXBean(false).build();
    {
      Task<String> t =
          pool.submit(
              Task.of(() -> {
                try {
                  if (shape == 0) {
                    Task.invokeAll(new Orphaner(tineRuns, error), Task.of(() -> 1L));
                  } else {
                    Tine.joinLong(
                        () -> new Orphaner(tineRuns, error).invoke(), () -> 1L, Long::sum);
                  }
                  return "returned";
                } catch (StackOverflowError e) {
                  return e == error ? "the first half's error" : "another error: " + e;
                }
              }));
      try {
        tine = t.get(GIVE_UP_S, TimeUnit.SECONDS);
        pool.close();
      } catch (TimeoutException e) {
        // The worker runs orphans in a join and never looks at the pool's state: close() would
        // wait for ever. Leave the (daemon) worker to spin and report.
        tine = "wedged after " + tineRuns.get() + " orphan runs";
        pool.shutdownNow();
      }
    }
    assertEquals("the first half's error", tine, "Tine");
    // The orphaner ran once in its join, and its orphan once more in the run that failed it at
    // most; the orphan's own orphan was failed, not run.
    assertTrue(tineRuns.get() <= 2, "orphan runs: " + tineRuns.get());

    if (shape == 0) {
      AtomicInteger jdkRuns = new AtomicInteger();
      ForkJoinPool fj = new ForkJoinPool(1);
      try {
        String jdk =
            fj.submit(
                    () -> {
                      try {
                        ForkJoinTask.invokeAll(
                            new JdkOrphaner(jdkRuns, error), ForkJoinTask.adapt(() -> 1L));
                        return "returned";
                      } catch (StackOverflowError e) {
                        return e == error ? "the first half's error" : "another error: " + e;
                      }
                    })
                .get(GIVE_UP_S, TimeUnit.SECONDS);
        assertEquals("the first half's error", jdk, "the JDK's pool");
      } finally {
        fj.shutdownNow(); // it runs orphan after orphan for as long as it lives
      }
    }
  }

  /** A task left behind by an overflowed run completes with that run's error, for its waiters. */
  @ParameterizedTest(name = "p={0}")
  @ValueSource(ints = {1, 2})
  void theFailedOrphanReportsTheOverflow(int p) throws Exception {
    StackOverflowError error = new StackOverflowError("at the call of join()");
    Task<?>[] orphan = new Task<?>[1];
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(p).registerMXBean(false).build()) {
      Task<Long> t =
          pool.submit(
              Task.of(() -> {
                Task<Long> o = Task.of(() -> 7L);
                orphan[0] = o;
                o.fork();
                throw error;
              }));
      try {
        t.get(GIVE_UP_S, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        assertSame(error, e.getCause());
      }
      try {
        Object v = orphan[0].get(GIVE_UP_S, TimeUnit.SECONDS);
        // Stolen and run before the overflow: at p=2 another worker may take it first.
        assertEquals(2, p, "at p=1 nobody else could run it, yet it returned " + v);
      } catch (ExecutionException e) {
        assertSame(error, e.getCause(), "the orphan fails with the overflow's error");
      }
    }
  }
}

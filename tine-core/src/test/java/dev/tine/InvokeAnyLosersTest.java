package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * invokeAny interrupts the candidates still running once one has won, as the JDK's pool does; the
 * previous runtime cancelled them without an interrupt, so a loser blocked in an interruptible wait
 * ran on until its own timeout. And the loser's interrupt never reaches a later task.
 */
class InvokeAnyLosersTest {

  static final long DEADLINE_S = 20;

  /**
   * Two losers that wait (interruptibly, bounded) and one winner that returns once both losers have
   * started. Returns the winner's value and how many losers saw their interrupt in time.
   */
  static String race(ExecutorService pool, boolean fromWorker, boolean timed) throws Exception {
    CountDownLatch losersStarted = new CountDownLatch(2);
    CountDownLatch losersInterrupted = new CountDownLatch(2);
    CountDownLatch never = new CountDownLatch(1);
    List<Callable<String>> cs = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      cs.add(() -> {
        losersStarted.countDown();
        try {
          never.await(DEADLINE_S, TimeUnit.SECONDS);
          return "loser ran to its timeout";
        } catch (InterruptedException e) {
          losersInterrupted.countDown();
          throw e;
        }
      });
    }
    cs.add(() -> {
      losersStarted.await(DEADLINE_S, TimeUnit.SECONDS);
      return "win";
    });
    Callable<String> call =
        () -> timed ? pool.invokeAny(cs, DEADLINE_S, TimeUnit.SECONDS) : pool.invokeAny(cs);
    String won = fromWorker ? pool.submit(call).get(DEADLINE_S * 2, TimeUnit.SECONDS) : call.call();
    boolean interrupted = losersInterrupted.await(DEADLINE_S, TimeUnit.SECONDS);
    return won + ", losers interrupted=" + interrupted;
  }

  @ParameterizedTest(name = "fromWorker={0} timed={1}")
  @CsvSource({"false, false", "false, true", "true, false", "true, true"})
  void losersAreInterrupted(boolean fromWorker, boolean timed) throws Exception {
    ForkJoinPool fj = new ForkJoinPool(4);
    try {
      assertEquals("win, losers interrupted=true", race(fj, fromWorker, timed), "JDK control");
    } finally {
      fj.shutdownNow();
    }
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(4).registerMXBean(false).build()) {
      assertEquals("win, losers interrupted=true", race(pool, fromWorker, timed), pool.toString());
      // The interrupt ended with the loser: later tasks on every worker start with a clear flag.
      AtomicInteger dirty = new AtomicInteger();
      List<Task<Boolean>> probes = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        probes.add(pool.submit(Task.of(() -> Thread.currentThread().isInterrupted())));
      }
      for (Task<Boolean> p : probes) {
        if (p.get(DEADLINE_S, TimeUnit.SECONDS)) {
          dirty.incrementAndGet();
        }
      }
      assertEquals(0, dirty.get(), "tasks that started interrupted");
    }
  }

  /** A loser's interrupt targets its own run: a candidate that already finished is not touched. */
  @ParameterizedTest(name = "p={0}")
  @CsvSource({"1", "2"})
  void finishedCandidatesAreNotInterrupted(int p) throws Exception {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(p).registerMXBean(false).build()) {
      for (int round = 0; round < 50; round++) {
        List<Callable<Integer>> cs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          int k = i;
          cs.add(() -> {
            if (k < 3) {
              throw new IllegalStateException("fails " + k);
            }
            return k;
          });
        }
        assertEquals(3, pool.invokeAny(cs));
        assertFalse(Thread.currentThread().isInterrupted());
      }
      assertTrue(pool.submit(() -> !Thread.currentThread().isInterrupted()).get());
    }
  }
}

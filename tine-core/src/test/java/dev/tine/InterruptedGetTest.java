package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code Future.get()} and {@code get(timeout)} called by a worker throw InterruptedException when
 * the worker is interrupted while it waits, as {@link Future#get} specifies and the JDK's pool
 * does. The previous runtime's helping wait ignored the interrupt and returned the value later.
 */
class InterruptedGetTest {

  static final long DEADLINE_S = 20;

  /**
   * Worker A runs F, which waits (outside the pool) for a release; worker B runs G, which calls
   * F.get(). Once G is parked in the wait, the test interrupts G's thread, and only then (after a
   * pause, or at once when G returned) releases F. G reports how its get ended.
   */
  static String run(
      Function<Callable<Integer>, Future<Integer>> submit,
      Function<Callable<String>, Future<String>> submitG,
      boolean timed)
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Future<Integer> f =
        submit.apply(() -> {
          release.await(DEADLINE_S, TimeUnit.SECONDS);
          return 7;
        });
    AtomicReference<Thread> gThread = new AtomicReference<>();
    Future<String> g =
        submitG.apply(() -> {
          gThread.set(Thread.currentThread());
          try {
            int v = timed ? f.get(DEADLINE_S, TimeUnit.SECONDS) : f.get();
            return "returned " + v + ", interrupted=" + Thread.interrupted();
          } catch (InterruptedException e) {
            return "InterruptedException";
          }
        });
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
      Thread t;
      while ((t = gThread.get()) == null || !parked(t)) {
        if (System.nanoTime() > deadline) {
          return "G never waited";
        }
        Thread.sleep(1);
      }
      Thread.sleep(20); // well inside its wait
      t.interrupt();
      try {
        return g.get(2, TimeUnit.SECONDS); // an interrupted get returns at once
      } catch (java.util.concurrent.TimeoutException e) {
        release.countDown();
        return g.get(DEADLINE_S, TimeUnit.SECONDS) + " (only after the release)";
      }
    } finally {
      release.countDown();
      f.get(DEADLINE_S, TimeUnit.SECONDS);
    }
  }

  static boolean parked(Thread t) {
    Thread.State s = t.getState();
    return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
  }

  @ParameterizedTest(name = "timed={0}")
  @ValueSource(booleans = {false, true})
  void getOnAWorkerThrowsWhenInterruptedWhileWaiting(boolean timed) throws Exception {
    ForkJoinPool fj = new ForkJoinPool(2);
    try {
      assertEquals(
          "InterruptedException",
          run(c -> fj.submit(ForkJoinTask.adapt(c)), c -> fj.submit(ForkJoinTask.adapt(c)), timed),
          "JDK control");
    } finally {
      fj.shutdownNow();
    }
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(2).registerMXBean(false).build()) {
      assertEquals("InterruptedException", run(pool::submit, pool::submit, timed), pool.toString());
    }
  }
}

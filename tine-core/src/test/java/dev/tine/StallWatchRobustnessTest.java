package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The stall watch is one thread for the JVM: one pool's trouble must not reach another pool. It
 * calls no user code itself (the uncaught-exception handler runs on a thread of its own, outside
 * any pool's lock), and survives anything thrown inside it. Pool A is stalled at its spare bound
 * (maxSpares 0: fork, then cf.join, at p=1), so the watch reports a RejectedExecutionException to
 * A's handler; pool B then forks and waits in cf.join, which needs the watch's spare. The JDK's
 * pool serves B's program in a few ms (the control in each test).
 */
class StallWatchRobustnessTest {

  static final long DEADLINE_S = 30;

  /** Fork a child that completes {@code cf}, then wait for it in cf.join (unseen by Tine). */
  static long forkThenCfJoin(CompletableFuture<Long> cf, boolean onJdk) {
    if (onJdk) {
      ForkJoinTask.adapt(() -> cf.complete(42L)).fork();
    } else {
      Task.of(() -> cf.complete(42L)).fork();
    }
    return cf.join();
  }

  /** Pool B's program on the JDK (the control) and on a fresh Tine pool: both must complete. */
  static void anotherPoolStillProgresses() throws Exception {
    ForkJoinPool jdk = new ForkJoinPool(1);
    try {
      CompletableFuture<Long> cf = new CompletableFuture<>();
      assertEquals(
          42L,
          jdk.submit(() -> forkThenCfJoin(cf, true)).get(DEADLINE_S, TimeUnit.SECONDS),
          "JDK control");
    } finally {
      jdk.shutdownNow();
    }
    CompletableFuture<Long> cf = new CompletableFuture<>();
    try (WorkStealingPool b =
        WorkStealingPool.builder().parallelism(1).name("pool-b").registerMXBean(false).build()) {
      Future<Long> f = b.submit(() -> forkThenCfJoin(cf, false));
      try {
        assertEquals(42L, f.get(DEADLINE_S, TimeUnit.SECONDS));
      } catch (TimeoutException e) {
        cf.complete(-1L);
        fail("pool B wedged: the stall watch is stuck in pool A's trouble: " + b);
      }
    }
  }

  /** Pool A at its bound: its root waits in cf.join for a fork no spare may run. */
  static WorkStealingPool stalledAtTheBound(
      Thread.UncaughtExceptionHandler h, CompletableFuture<Long> cf) {
    WorkStealingPool a =
        WorkStealingPool.builder()
            .parallelism(1)
            .maxSpares(0)
            .name("pool-a")
            .uncaughtExceptionHandler(h)
            .registerMXBean(false)
            .build();
    a.submit(() -> forkThenCfJoin(cf, false));
    return a;
  }

  /**
   * A handler that blocks: the old watch called it on its own thread inside {@code synchronized
   * (pool.lock)}, so pool B got no spare and A's shutdownNow() blocked on the lock.
   */
  @Test
  void aBlockingHandlerDelaysNeitherAnotherPoolNorShutdownNow() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Throwable> reported = new AtomicReference<>();
    AtomicReference<Thread> reporter = new AtomicReference<>();
    CompletableFuture<Long> cfA = new CompletableFuture<>();
    WorkStealingPool a =
        stalledAtTheBound(
            (t, e) -> {
              reported.compareAndSet(null, e);
              reporter.compareAndSet(null, t);
              entered.countDown();
              try {
                release.await(DEADLINE_S, TimeUnit.SECONDS);
              } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
              }
            },
            cfA);
    try {
      assertTrue(entered.await(DEADLINE_S, TimeUnit.SECONDS), "A's stall was never reported");
      assertInstanceOf(RejectedExecutionException.class, reported.get());
      anotherPoolStillProgresses();
      // A's shutdownNow while its handler still blocks: it must not wait for the handler.
      CompletableFuture<List<Runnable>> stopped = new CompletableFuture<>();
      Thread stopper = new Thread(() -> stopped.complete(a.shutdownNow()), "stopper");
      stopper.start();
      try {
        stopped.get(DEADLINE_S, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        fail("pool A's shutdownNow() blocked behind its handler");
      }
      assertTrue(reporter.get().isAlive(), "the handler returned early: nothing was tested");
      assertNotEquals(
          "tine-stall-watch", reporter.get().getName(), "the handler ran on the watch thread");
    } finally {
      release.countDown();
      cfA.complete(-1L);
      a.shutdownNow();
      assertTrue(a.awaitTermination(DEADLINE_S, TimeUnit.SECONDS), a.toString());
    }
  }

  /**
   * A handler that throws StackOverflowError: the old watch rethrew it and died, its static field
   * still pointing at the dead thread, so no watch ever started again and every later stall in
   * every pool wedged.
   */
  @Test
  void aHandlerThrowingStackOverflowErrorLeavesTheWatchWorking() throws Exception {
    CountDownLatch thrown = new CountDownLatch(1);
    CompletableFuture<Long> cfA = new CompletableFuture<>();
    WorkStealingPool a =
        stalledAtTheBound(
            (t, e) -> {
              thrown.countDown();
              throw new StackOverflowError("planted by the handler");
            },
            cfA);
    try {
      assertTrue(thrown.await(DEADLINE_S, TimeUnit.SECONDS), "A's stall was never reported");
      anotherPoolStillProgresses();
    } finally {
      cfA.complete(-1L);
      a.shutdownNow();
      assertTrue(a.awaitTermination(DEADLINE_S, TimeUnit.SECONDS), a.toString());
    }
  }

  /**
   * Anything thrown inside the watch's own tick (planted): the watch goes on, and stalls resolve.
   */
  @Test
  void aFaultInsideTheWatchIsSurvived() throws Exception {
    CountDownLatch faulted = new CountDownLatch(3);
    StallWatch.faultForTest =
        () -> {
          if (faulted.getCount() > 0) {
            faulted.countDown();
            throw new StackOverflowError("planted in the watch");
          }
        };
    try {
      try (WorkStealingPool keep =
          WorkStealingPool.builder().parallelism(1).registerMXBean(false).build()) {
        keep.submit(() -> 1).get(DEADLINE_S, TimeUnit.SECONDS); // a live worker: watched
        assertTrue(faulted.await(DEADLINE_S, TimeUnit.SECONDS), "the watch never ticked");
        anotherPoolStillProgresses();
        assertTrue(StallWatch.running(), "the watch is gone");
      }
    } finally {
      StallWatch.faultForTest = null;
    }
  }

  /**
   * An interrupt of the watch thread (by a tool that interrupts every thread, say) is no request to
   * stop and must not stay set: with the flag set, every parkNanos returns at once and the watch
   * spins. Planted (no Thread.interrupted() after the park): the flag stayed set until the
   * deadline.
   */
  @Test
  void anInterruptedWatchClearsItsFlagAndGoesOn() throws Exception {
    try (WorkStealingPool keep =
        WorkStealingPool.builder().parallelism(1).registerMXBean(false).build()) {
      keep.submit(() -> 1).get(DEADLINE_S, TimeUnit.SECONDS); // a live worker: watched
      Thread watch = StallWatch.threadForTest();
      assertTrue(watch != null && watch.isAlive(), "no watch thread");
      watch.interrupt();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (watch.isInterrupted() && System.nanoTime() - end < 0) {
        Thread.sleep(1);
      }
      assertTrue(!watch.isInterrupted(), "the watch kept its interrupt flag: it spins");
      anotherPoolStillProgresses();
      assertTrue(StallWatch.running(), "the watch is gone");
    }
  }

  /**
   * A report due while the last one's handler still blocks is dropped, and counted; and the report
   * thread holds the handler, not the pool, so a closed pool whose handler never returns is not
   * kept reachable by it. Before: dropped silently, and the thread held the pool.
   */
  @Test
  void aReportDueWhileTheHandlerBlocksIsCountedAndHoldsNoPool() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Thread> reporter = new AtomicReference<>();
    CompletableFuture<Long> cf1 = new CompletableFuture<>();
    CompletableFuture<Long> cf2 = new CompletableFuture<>();
    WorkStealingPool a =
        stalledAtTheBound(
            (t, e) -> {
              reporter.compareAndSet(null, t);
              entered.countDown();
              try {
                release.await(DEADLINE_S, TimeUnit.SECONDS);
              } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
              }
            },
            cf1);
    java.lang.ref.WeakReference<WorkStealingPool> weak = new java.lang.ref.WeakReference<>(a);
    try {
      assertTrue(entered.await(DEADLINE_S, TimeUnit.SECONDS), "A's stall was never reported");
      cf1.complete(-1L); // the first stall ends; the watch sees it end before the second
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
      while (a.stallBoundReported && System.nanoTime() - end < 0) {
        Thread.sleep(1);
      }
      Future<Long> second = a.submit(() -> forkThenCfJoin(cf2, false));
      while (a.stallReportsDropped.get() == 0 && System.nanoTime() - end < 0) {
        Thread.sleep(1);
      }
      assertEquals(1, a.stallReportsDropped.get(), "the second stall's report, dropped");
      cf2.complete(-2L);
      assertEquals(-2L, second.get(DEADLINE_S, TimeUnit.SECONDS));
      a.shutdownNow();
      assertTrue(a.awaitTermination(DEADLINE_S, TimeUnit.SECONDS), a.toString());
      a = null;
      second = null;
      for (int i = 0; i < 50 && weak.get() != null; i++) {
        System.gc();
        Thread.sleep(10);
      }
      assertTrue(reporter.get().isAlive(), "the handler returned early: nothing was tested");
      assertTrue(weak.get() == null, "the blocked report thread keeps the closed pool reachable");
    } finally {
      release.countDown();
      cf1.complete(-1L);
      cf2.complete(-1L);
      if (a != null) {
        a.shutdownNow();
      }
    }
  }
}

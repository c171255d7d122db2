package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Blocking that latent forks must survive: code that forks and then blocks in something Tine cannot
 * see, as is correct on the JDK's pool, and {@link WorkStealingPool#managedBlock}. Waits are
 * bounded (generous, for a loaded 2-core box), so a regression fails instead of hanging.
 */
class BlockingTest {

  /** Forks {@code k} children that count down a latch, then awaits it (bounded). */
  static boolean forkThenAwait(int k, long pauseBetweenForksMs) {
    CountDownLatch latch = new CountDownLatch(k);
    for (int i = 0; i < k; i++) {
      Task.of(
              () -> {
                latch.countDown();
                return null;
              })
          .fork();
      if (pauseBetweenForksMs > 0) {
        sleep(pauseBetweenForksMs);
      }
    }
    try {
      return latch.await(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Forks as many children as there are workers, then blocks: some children are still latent.
   * Planted bug it catches: workers that never claim (the previous runtime) time out at p=2 and 4.
   */
  @ParameterizedTest(name = "p={0}")
  @ValueSource(ints = {2, 4})
  void forksMadeBeforeAnUnseenBlockRunElsewhere(int p) throws Exception {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(p).registerMXBean(false).build()) {
      for (int round = 0; round < 50; round++) {
        long pause = round % 5; // 0..4 ms between forks: thieves come and go meanwhile
        assertTrue(
            pool.submit(Task.of(() -> forkThenAwait(p, pause))).get(60, TimeUnit.SECONDS),
            "round " + round + ": the latch opened: " + pool);
      }
    }
  }

  /** The owner blocks on another task's timed get and on a CompletableFuture: same rule. */
  @Test
  void forksBeforeTimedGetAndFutureJoinRun() throws Exception {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(2).registerMXBean(false).build()) {
      for (int round = 0; round < 50; round++) {
        CompletableFuture<Integer> cf = new CompletableFuture<>();
        int r =
            pool.submit(
                    Task.of(() -> {
                      Task<Integer> a = Task.of(() -> 1).fork();
                      Task<Integer> b =
                          Task.of(
                                  () -> {
                                    cf.complete(2);
                                    return 2;
                                  })
                              .fork();
                      // Blocks on something Tine cannot see; b must run elsewhere.
                      int v = cf.orTimeout(20, TimeUnit.SECONDS).join();
                      return v + a.join() + b.join();
                    }))
                .get(60, TimeUnit.SECONDS);
        assertEquals(5, r);
      }
    }
  }

  /**
   * managedBlock promotes the caller's forks and runs a spare worker in its place: at p=1 a task
   * that forks a child and managed-blocks on it completes (the child runs on the spare).
   */
  @Test
  void managedBlockCompensatesAtParallelismOne() throws Exception {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(1).registerMXBean(false).build()) {
      for (int round = 0; round < 20; round++) {
        boolean released =
            pool.submit(
                    Task.of(() -> {
                      CountDownLatch latch = new CountDownLatch(1);
                      Task.of(
                              () -> {
                                latch.countDown();
                                return null;
                              })
                          .fork();
                      try {
                        WorkStealingPool.managedBlock(
                            new WorkStealingPool.ManagedBlocker() {
                              public boolean block() throws InterruptedException {
                                return latch.await(20, TimeUnit.SECONDS) || true;
                              }

                              public boolean isReleasable() {
                                return latch.getCount() == 0;
                              }
                            });
                      } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                      }
                      return latch.getCount() == 0;
                    }))
                .get(60, TimeUnit.SECONDS);
        assertTrue(released, "round " + round);
      }
    }
  }

  /**
   * The bound: with maxSpares(2) at p=1, at most 3 workers run while tasks are blocked, and a task
   * that would need a fourth fails with RejectedExecutionException (as the JDK's pool does) instead
   * of waiting silently. Two tasks block; the other four are rejected one after another.
   */
  @Test
  void sparesAreBounded() throws Exception {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(1).maxSpares(2).registerMXBean(false).build()) {
      CountDownLatch gate = new CountDownLatch(1);
      AtomicInteger blockedNow = new AtomicInteger();
      AtomicInteger maxLive = new AtomicInteger();
      Task<?>[] ts = new Task<?>[6];
      for (int i = 0; i < ts.length; i++) {
        ts[i] =
            pool.submit(
                Task.of(() -> {
                  try {
                    WorkStealingPool.managedBlock(
                        new WorkStealingPool.ManagedBlocker() {
                          boolean counted;

                          public boolean block() throws InterruptedException {
                            if (!counted) {
                              counted = true;
                              blockedNow.incrementAndGet();
                            }
                            maxLive.accumulateAndGet(pool.poolSize(), Math::max);
                            return gate.await(50, TimeUnit.MILLISECONDS);
                          }

                          public boolean isReleasable() {
                            return gate.getCount() == 0;
                          }
                        });
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                  return null;
                }));
      }
      int rejected = 0;
      try {
        for (int i = 2; i < ts.length; i++) {
          try {
            ts[i].get(30, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException e) {
            assertTrue(
                e.getCause() instanceof java.util.concurrent.RejectedExecutionException,
                e.toString());
            rejected++;
          } catch (java.util.concurrent.TimeoutException e) {
            fail("task " + i + " waits silently past the bound: " + pool);
          }
        }
      } finally {
        gate.countDown(); // so that close() returns whatever happened
      }
      assertEquals(4, rejected, "tasks past the bound fail loudly: " + pool);
      assertEquals(2, blockedNow.get(), "two blocked with spares: " + pool);
      ts[0].get(60, TimeUnit.SECONDS);
      ts[1].get(60, TimeUnit.SECONDS);
      assertTrue(maxLive.get() <= 3, "live workers " + maxLive.get());
    }
  }

  /**
   * Timed invokeAny/invokeAll from a worker, with one candidate that blocks until released: the
   * deadline holds and invokeAny returns the other's result. Found by review: the first version
   * joined the candidates in list order, running the blocked one inline past the deadline. (The
   * JDK's pool times out here at p=2. At p=1 Tine runs one spare while the caller waits, and if the
   * spare takes the candidate that blocks outside Tine, the other waits: the deadline still holds,
   * but invokeAny then times out.)
   */
  @ParameterizedTest(name = "p={0}")
  @ValueSource(ints = {2, 4})
  void timedInvokeAnyAndInvokeAllFromAWorkerKeepTheirDeadline(int p) throws Exception {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(p).registerMXBean(false).build()) {
      CountDownLatch never = new CountDownLatch(1);
      java.util.concurrent.Callable<String> blocked =
          () -> {
            never.await(30, TimeUnit.SECONDS);
            return "slow";
          };
      java.util.concurrent.Callable<String> fast = () -> "fast";
      try {
        String any =
            pool.submit(
                    Task.of(() -> {
                      try {
                        return pool.invokeAny(
                            java.util.List.of(blocked, fast), 10, TimeUnit.SECONDS);
                      } catch (Exception e) {
                        return e.toString();
                      }
                    }))
                .get(20, TimeUnit.SECONDS);
        assertEquals("fast", any);
        String all =
            pool.submit(
                    Task.of(() -> {
                      try {
                        var fs =
                            pool.invokeAll(
                                java.util.List.of(fast, blocked), 300, TimeUnit.MILLISECONDS);
                        return fs.get(0).get() + "," + fs.get(1).isCancelled();
                      } catch (Exception e) {
                        return e.toString();
                      }
                    }))
                .get(20, TimeUnit.SECONDS);
        assertEquals("fast,true", all, "the blocked task is cancelled at the deadline");
      } finally {
        never.countDown();
      }
    }
  }
}

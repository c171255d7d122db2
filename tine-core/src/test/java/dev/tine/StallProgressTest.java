package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Progress when every worker is parked in a wait Tine cannot see (StallWatch), and the spare bound
 * of managedBlock. Each program runs on the JDK's ForkJoinPool first, as a control that the program
 * is right, then on Tine. Waits are bounded; a wedged Tine pool is released by the test itself (it
 * completes every future and feeds every queue), so no thread is left behind.
 */
class StallProgressTest {

  static final long DEADLINE_S = 30;

  enum Wait {
    CF_JOIN,
    CF_GET,
    QUEUE_TAKE
  }

  /**
   * One root per worker: fork a child that completes a CompletableFuture and feeds a queue, then
   * wait for it in a way the pool cannot see. Every worker is then parked, and the children are
   * unstarted (latent, or in a deque). The JDK's waits call managedBlock on its own workers; Tine's
   * workers get a spare from the stall watch.
   */
  static int parent(
      int i, CompletableFuture<Integer> cf, LinkedBlockingQueue<Integer> q, Wait how, Fork fork)
      throws Exception {
    fork.fork(() -> {
      cf.complete(i);
      q.offer(i);
    });
    return switch (how) {
      case CF_JOIN -> cf.join() + 1000;
      case CF_GET -> cf.get() + 1000;
      case QUEUE_TAKE -> q.take() + 1000;
    };
  }

  interface Fork {
    void fork(Runnable child);
  }

  @ParameterizedTest(name = "p={0} {1} eager={2}")
  @CsvSource({
    "1, CF_JOIN, false",
    "1, CF_GET, false",
    "1, QUEUE_TAKE, false",
    "2, CF_JOIN, false",
    "2, CF_GET, false",
    "2, QUEUE_TAKE, false",
    "1, CF_JOIN, true",
    "2, QUEUE_TAKE, true"
  })
  void forkThenWaitUnseenWithEveryWorkerParked(int p, Wait how, boolean eager) throws Exception {
    // The JDK's pool, the same program: the control.
    ForkJoinPool jdk = new ForkJoinPool(p);
    try {
      List<Future<Integer>> roots = new ArrayList<>();
      for (int i = 0; i < p; i++) {
        int k = i;
        CompletableFuture<Integer> cf = new CompletableFuture<>();
        LinkedBlockingQueue<Integer> q = new LinkedBlockingQueue<>();
        roots.add(
            jdk.submit(
                ForkJoinTask.adapt(
                    () -> parent(k, cf, q, how, c -> ForkJoinTask.adapt(c).fork()))));
      }
      for (int i = 0; i < p; i++) {
        assertEquals(1000 + i, roots.get(i).get(DEADLINE_S, TimeUnit.SECONDS), "JDK control");
      }
    } finally {
      jdk.shutdownNow();
    }

    // Tine.
    List<CompletableFuture<Integer>> cfs = new ArrayList<>();
    List<LinkedBlockingQueue<Integer>> qs = new ArrayList<>();
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(p).eagerForks(eager).registerMXBean(false).build()) {
      List<Future<Integer>> roots = new ArrayList<>();
      for (int i = 0; i < p; i++) {
        int k = i;
        CompletableFuture<Integer> cf = new CompletableFuture<>();
        LinkedBlockingQueue<Integer> q = new LinkedBlockingQueue<>();
        cfs.add(cf);
        qs.add(q);
        roots.add(pool.submit(() -> parent(k, cf, q, how, c -> Task.of(asSupplier(c)).fork())));
      }
      try {
        for (int i = 0; i < p; i++) {
          assertEquals(1000 + i, roots.get(i).get(DEADLINE_S, TimeUnit.SECONDS), "root " + i);
        }
      } catch (TimeoutException e) {
        fail(
            "Tine wedged: every worker waits for a fork nobody runs (p="
                + p
                + ", "
                + how
                + "): "
                + pool);
      } finally {
        release(cfs, qs);
      }
    }
  }

  static java.util.function.Supplier<Void> asSupplier(Runnable r) {
    return () -> {
      r.run();
      return null;
    };
  }

  /** Unwedges a failed run so that close() returns: the parents' waits end. */
  static void release(List<CompletableFuture<Integer>> cfs, List<LinkedBlockingQueue<Integer>> qs) {
    cfs.forEach(cf -> cf.complete(-1000));
    qs.forEach(q -> q.offer(-1000));
  }

  /**
   * A stall that repeats: rounds of fork-then-wait at p=1, each one needing a fresh spare (the
   * earlier ones are asleep or busy). Catches a watch that grants one spare and never another.
   */
  @Test
  void repeatedStallsAllComplete() throws Exception {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(1).registerMXBean(false).build()) {
      for (int round = 0; round < 20; round++) {
        CompletableFuture<Integer> cf = new CompletableFuture<>();
        LinkedBlockingQueue<Integer> q = new LinkedBlockingQueue<>();
        int k = round;
        Future<Integer> root =
            pool.submit(() -> parent(k, cf, q, Wait.CF_JOIN, c -> Task.of(asSupplier(c)).fork()));
        try {
          assertEquals(1000 + round, root.get(DEADLINE_S, TimeUnit.SECONDS), "round " + round);
        } finally {
          release(List.of(cf), List.of(q));
        }
      }
    }
  }

  /**
   * Fork and wait unseen, twice in one task at p=1, with the spare of the first stall asleep before
   * the second fork. That sleeper parked while no worker held latent forks, so it parks without a
   * deadline and nothing signals it (latent forks never do); the stall watch must wake it rather
   * than take a sleeper as proof that the pool can move. Found by the differential fuzzer (about 1
   * run in 10 by timing); here the sleep is awaited, so the old watch wedges every time.
   */
  @ParameterizedTest(name = "second wait {0}")
  @CsvSource({"QUEUE_TAKE", "CF_JOIN"})
  void aSpareAsleepBeforeTheSecondStallIsWoken(Wait second) throws Exception {
    // The JDK's pool, the same program (a short pause stands in for "the spare is asleep").
    ForkJoinPool jdk = new ForkJoinPool(1);
    try {
      Future<Integer> root =
          jdk.submit(
              ForkJoinTask.adapt(() ->
                  twoStalls(
                      second,
                      c -> ForkJoinTask.adapt(c).fork(),
                      () -> Thread.sleep(50),
                      new CompletableFuture<>(),
                      new LinkedBlockingQueue<>())));
      assertEquals(2003, root.get(DEADLINE_S, TimeUnit.SECONDS), "JDK control");
    } finally {
      jdk.shutdownNow();
    }

    CompletableFuture<Integer> cf = new CompletableFuture<>();
    LinkedBlockingQueue<Integer> q = new LinkedBlockingQueue<>();
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(1).registerMXBean(false).build()) {
      Future<Integer> root =
          pool.submit(() ->
              twoStalls(
                  second,
                  c -> Task.of(asSupplier(c)).fork(),
                  () -> {
                    // until the first stall's spare sleeps or has exited, as a stall spare does
                    // once it has nothing to run (bounded: go on regardless)
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (pool.sleepingWorkers() == 0
                        && pool.poolSize() > 1
                        && System.nanoTime() - end < 0) {
                      Thread.sleep(1);
                    }
                  },
                  cf,
                  q));
      try {
        assertEquals(2003, root.get(DEADLINE_S, TimeUnit.SECONDS));
      } catch (TimeoutException e) {
        fail("Tine wedged: the second fork waits behind a sleeping spare: " + pool);
      } finally {
        release(List.of(cf), List.of(q));
      }
    }
  }

  interface Pause {
    void pause() throws InterruptedException;
  }

  /** First fork-then-wait in cf.join; then, after {@code settle}, a second in {@code second}. */
  static int twoStalls(
      Wait second,
      Fork fork,
      Pause settle,
      CompletableFuture<Integer> cf2,
      LinkedBlockingQueue<Integer> q2)
      throws Exception {
    CompletableFuture<Integer> cf1 = new CompletableFuture<>();
    fork.fork(() -> cf1.complete(1000));
    int a = cf1.join();
    settle.pause();
    fork.fork(() -> {
      cf2.complete(1003);
      q2.offer(1003);
    });
    int b = second == Wait.CF_JOIN ? cf2.join() : q2.take();
    return a + b;
  }

  // ---------------------------------------------------------------------------------------------
  // managedBlock: many blocked at once, and the bound

  /** Blocks in managedBlock until {@code all} have arrived (bounded). */
  static boolean meetAll(CountDownLatch all, boolean onJdk) throws InterruptedException {
    all.countDown();
    if (onJdk) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
      ForkJoinPool.managedBlock(
          new ForkJoinPool.ManagedBlocker() {
            public boolean block() throws InterruptedException {
              return all.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS) || true;
            }

            public boolean isReleasable() {
              return all.getCount() == 0;
            }
          });
    } else {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
      WorkStealingPool.managedBlock(
          new WorkStealingPool.ManagedBlocker() {
            public boolean block() throws InterruptedException {
              return all.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS) || true;
            }

            public boolean isReleasable() {
              return all.getCount() == 0;
            }
          });
    }
    return all.getCount() == 0;
  }

  /**
   * 300 tasks that block in managedBlock until all 300 have arrived. {@code new ForkJoinPool(2)}
   * runs them all (301 threads); the previous Tine stopped at 258 workers (a spare bound of 256,
   * the JDK's common pool's) and wedged silently.
   */
  @Test
  void threeHundredBlockedAtOnceAllArrive() throws Exception {
    int n = 300;
    ForkJoinPool jdk = new ForkJoinPool(2);
    try {
      CountDownLatch all = new CountDownLatch(n);
      List<Future<Boolean>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        fs.add(jdk.submit(() -> meetAll(all, true)));
      }
      for (Future<Boolean> f : fs) {
        assertTrue(f.get(DEADLINE_S * 2, TimeUnit.SECONDS), "JDK control");
      }
    } finally {
      jdk.shutdownNow();
    }
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(2).registerMXBean(false).build()) {
      CountDownLatch all = new CountDownLatch(n);
      List<Future<Boolean>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        fs.add(pool.submit(() -> meetAll(all, false)));
      }
      for (Future<Boolean> f : fs) {
        long arrived = n - all.getCount();
        String when = arrived + " of " + n + " arrived: " + pool;
        try {
          assertTrue(f.get(DEADLINE_S * 2, TimeUnit.SECONDS), () -> "only " + when);
        } catch (TimeoutException e) {
          fail("wedged: " + (n - all.getCount()) + " of " + n + " arrived: " + pool);
        }
      }
    }
  }

  /**
   * At the bound managedBlock fails loudly: with parallelism 1 and 2 spares, the third concurrent
   * blocker gets RejectedExecutionException, as on a JDK pool whose maximum size is 3; it never
   * waits silently for a worker that cannot start.
   */
  @Test
  void pastTheSpareBoundManagedBlockThrows() throws Exception {
    ForkJoinPool jdk =
        new ForkJoinPool(
            1,
            ForkJoinPool.defaultForkJoinWorkerThreadFactory,
            null,
            false,
            0,
            3,
            1,
            null,
            60,
            TimeUnit.SECONDS);
    try {
      assertEquals(
          List.of("ok", "ok", "rejected"), threeBlockers(jdk::submit, true), "JDK control");
    } finally {
      jdk.shutdownNow();
    }
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(1).maxSpares(2).registerMXBean(false).build()) {
      assertEquals(
          List.of("ok", "ok", "rejected"), threeBlockers(pool::submit, false), pool.toString());
    }
  }

  interface Submit {
    Future<String> submit(java.util.concurrent.Callable<String> c);
  }

  /**
   * Three tasks, each blocking in managedBlock until released; the third one starts only once two
   * are blocked. Returns each one's outcome, sorted ("ok" or "rejected").
   */
  static List<String> threeBlockers(Submit submit, boolean onJdk) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch twoBlocked = new CountDownLatch(2);
    AtomicInteger arrived = new AtomicInteger();
    List<Future<String>> fs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      fs.add(
          submit.submit(() -> {
            if (arrived.incrementAndGet() == 3 && !twoBlocked.await(DEADLINE_S, TimeUnit.SECONDS)) {
              return "two never blocked";
            }
            try {
              block(release, twoBlocked, onJdk);
              return "ok";
            } catch (RejectedExecutionException e) {
              release.countDown(); // the others may go now
              return "rejected";
            }
          }));
    }
    List<String> out = new ArrayList<>();
    try {
      for (Future<String> f : fs) {
        try {
          out.add(f.get(DEADLINE_S, TimeUnit.SECONDS));
        } catch (TimeoutException e) {
          out.add("wedged");
        } catch (ExecutionException e) {
          out.add(e.getCause().toString());
        }
      }
    } finally {
      release.countDown();
    }
    out.sort(null);
    return out;
  }

  static void block(CountDownLatch release, CountDownLatch blocked, boolean onJdk)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
    if (onJdk) {
      ForkJoinPool.managedBlock(
          new ForkJoinPool.ManagedBlocker() {
            boolean counted;

            public boolean block() throws InterruptedException {
              if (!counted) {
                counted = true;
                blocked.countDown();
              }
              return release.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS) || true;
            }

            public boolean isReleasable() {
              return release.getCount() == 0;
            }
          });
    } else {
      WorkStealingPool.managedBlock(
          new WorkStealingPool.ManagedBlocker() {
            boolean counted;

            public boolean block() throws InterruptedException {
              if (!counted) {
                counted = true;
                blocked.countDown();
              }
              return release.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS) || true;
            }

            public boolean isReleasable() {
              return release.getCount() == 0;
            }
          });
    }
  }
}

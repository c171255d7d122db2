package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A pool of p runs at most p submitted tasks at once, as {@code new ForkJoinPool(p)} does, unless
 * managedBlock says a worker is blocked: waits Tine cannot see (a sleep, a semaphore, a monitor)
 * get no spare worker for submissions. Each program runs on the JDK's pool and on Tine in the same
 * test; each counts the most tasks running at once and the threads the pool started. The stall
 * watch's spare still runs a parked worker's own forks (StallProgressTest), and exits as soon as it
 * has none; and every spare, the watch's and managedBlock's, counts against one bound.
 */
class SpareBoundTest {

  static final long DEADLINE_S = 30;

  /** The most tasks inside their bodies at once. */
  static final class Gauge {
    final AtomicInteger now = new AtomicInteger();
    final AtomicInteger max = new AtomicInteger();

    void enter() {
      int n = now.incrementAndGet();
      max.accumulateAndGet(n, Math::max);
    }

    void exit() {
      now.decrementAndGet();
    }
  }

  /** What one run saw: its results summed, the most running at once, threads started. */
  record Seen(long sum, int maxRunning, int threads) {}

  interface Body {
    long run(Gauge g, Fork fork) throws Exception;
  }

  /** Forks a child on the current pool and returns its joiner. */
  interface Fork {
    Supplier<Long> fork(Callable<Long> child);
  }

  static Fork jdkFork() {
    return c -> {
      ForkJoinTask<Long> t = ForkJoinTask.adapt(c).fork();
      return t::join;
    };
  }

  static Fork tineFork() {
    return c -> {
      Task<Long> t =
          Task.of(() -> {
            try {
              return c.call();
            } catch (Exception e) {
              throw new RuntimeException(e);
            }
          });
      t.fork();
      return t::join;
    };
  }

  /** Submits {@code n} tasks running {@code body} and waits for them all (bounded). */
  static long runAll(ExecutorService pool, int n, Body body, Gauge g, Fork fork) throws Exception {
    List<Future<Long>> fs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      fs.add(
          pool.submit(() -> {
            g.enter();
            try {
              return body.run(g, fork);
            } finally {
              g.exit();
            }
          }));
    }
    long sum = 0;
    for (Future<Long> f : fs) {
      try {
        sum += f.get(DEADLINE_S, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        fail("wedged: " + pool);
      }
    }
    return sum;
  }

  static Seen onJdk(int p, int n, Body body) throws Exception {
    AtomicInteger threads = new AtomicInteger();
    ForkJoinPool jdk =
        new ForkJoinPool(
            p,
            pool -> {
              threads.incrementAndGet();
              return ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            },
            null,
            false);
    try {
      Gauge g = new Gauge();
      long sum = runAll(jdk, n, body, g, jdkFork());
      return new Seen(sum, g.max.get(), threads.get());
    } finally {
      jdk.shutdownNow();
    }
  }

  static Seen onTine(int p, int n, boolean eager, Body body) throws Exception {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(p).eagerForks(eager).registerMXBean(false).build()) {
      Gauge g = new Gauge();
      long sum = runAll(pool, n, body, g, tineFork());
      int threads;
      synchronized (pool.lock) {
        threads = pool.threadsStarted;
      }
      return new Seen(sum, g.max.get(), threads);
    }
  }

  /** Both pools: the same sum, and Tine within the JDK's bound: p running, p threads. */
  static void compare(int p, int n, boolean eager, Body body) throws Exception {
    Seen jdk = onJdk(p, n, body);
    Seen tine = onTine(p, n, eager, body);
    assertTrue(jdk.maxRunning() <= p && jdk.threads() <= p, () -> "JDK control: " + jdk);
    assertEquals(jdk.sum(), tine.sum(), "results");
    assertTrue(
        tine.maxRunning() <= p,
        () -> "Tine ran " + tine.maxRunning() + " at once at p=" + p + "; the JDK " + jdk);
    assertTrue(
        tine.threads() <= p,
        () -> "Tine started " + tine.threads() + " threads at p=" + p + "; the JDK " + jdk);
  }

  /**
   * Submitted tasks that sleep (an unmanaged wait, like blocking I/O). The old watch took every
   * worker parked while submissions waited for a stall, and ran up to 46 at once at p=2.
   */
  @Test
  void sleepingSubmissionsRunAtMostP() throws Exception {
    compare(
        2,
        60,
        false,
        (g, f) -> {
          Thread.sleep(40);
          return 1;
        });
  }

  /**
   * Tasks sharing a Semaphore(2): the old watch started about 42 threads for 60 such tasks, 40 of
   * them queued on the semaphore.
   */
  @Test
  void aSemaphoreSharedByManyTasksGetsNoSpares() throws Exception {
    Semaphore sem = new Semaphore(2);
    compare(
        2,
        30,
        false,
        (g, f) -> {
          sem.acquire();
          try {
            Thread.sleep(50);
            return 1;
          } finally {
            sem.release();
          }
        });
  }

  /** Tasks sharing one monitor (BLOCKED workers, one of them sleeping inside). */
  @Test
  void oneSharedMonitorGetsNoSpares() throws Exception {
    Object monitor = new Object();
    compare(
        2,
        30,
        false,
        (g, f) -> {
          synchronized (monitor) {
            Thread.sleep(30);
          }
          return 1;
        });
  }

  /**
   * p=1 stays serial: while the first task sleeps, 8 queued submissions wait (the JDK starts none).
   */
  @Test
  void atP1QueuedSubmissionsWaitForASleepingTask() throws Exception {
    AtomicInteger first = new AtomicInteger();
    Body body =
        (g, f) -> {
          if (first.getAndIncrement() % 9 == 0) {
            Thread.sleep(300);
          }
          return 1;
        };
    compare(1, 9, false, body);
  }

  /**
   * p=1 stays serial: a task forks 8 children, then sleeps; the children wait for it (the JDK
   * starts none of them while it sleeps), then it joins them. The old watch ran all 8 on spares.
   */
  @ParameterizedTest(name = "eager={0}")
  @ValueSource(booleans = {false, true})
  void atP1ForksWaitForTheirSleepingParent(boolean eager) throws Exception {
    AtomicInteger ranDuringSleep = new AtomicInteger();
    java.util.concurrent.atomic.AtomicBoolean sleeping =
        new java.util.concurrent.atomic.AtomicBoolean();
    Body body =
        (g, fork) -> {
          List<Supplier<Long>> kids = new ArrayList<>();
          for (int i = 0; i < 8; i++) {
            long k = i;
            kids.add(
                fork.fork(() -> {
                  if (sleeping.get()) {
                    ranDuringSleep.incrementAndGet();
                  }
                  return k;
                }));
          }
          sleeping.set(true);
          Thread.sleep(300);
          sleeping.set(false);
          long s = 0;
          for (Supplier<Long> j : kids) {
            s += j.get();
          }
          return s;
        };
    Seen jdk = onJdk(1, 1, body);
    assertEquals(0, ranDuringSleep.get(), () -> "JDK control: " + jdk);
    Seen tine = onTine(1, 1, eager, body);
    assertEquals(jdk.sum(), tine.sum());
    assertEquals(0, ranDuringSleep.get(), () -> "Tine ran forks while their parent slept: " + tine);
    assertEquals(1, tine.threads(), () -> "Tine started a spare for a sleep: " + tine);
  }

  /**
   * The stall spare runs the parked worker's own fork: at p=1, the root waits in cf.join for its
   * child, with 8 submissions queued behind it. A cf.join is a wait the JDK compensates for, so the
   * spare may run the submissions too, as the JDK's compensating thread does; the fork comes first
   * (scanForParked). And the spare exits as soon as it has nothing left, not after the 60 s
   * keep-alive.
   */
  @Test
  void theStallSpareRunsTheForkAndExits() throws Exception {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(1).registerMXBean(false).build()) {
      CompletableFuture<Long> cf = new CompletableFuture<>();
      CountDownLatch rootRuns = new CountDownLatch(1);
      Future<Long> root =
          pool.submit(() -> {
            rootRuns.countDown();
            Task.of(() -> cf.complete(7L)).fork();
            long v = cf.join();
            return v;
          });
      assertTrue(rootRuns.await(DEADLINE_S, TimeUnit.SECONDS));
      List<Future<Integer>> queued = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        queued.add(
            pool.submit(() -> {
              return 1;
            }));
      }
      try {
        assertEquals(7L, root.get(DEADLINE_S, TimeUnit.SECONDS));
      } catch (TimeoutException e) {
        cf.complete(-1L);
        fail("wedged: the stall watch gave the fork no spare: " + pool);
      }
      for (Future<Integer> f : queued) {
        assertEquals(1, f.get(DEADLINE_S, TimeUnit.SECONDS));
      }
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
      while (pool.poolSize() > 1 && System.nanoTime() - end < 0) {
        Thread.sleep(5);
      }
      assertEquals(1, pool.poolSize(), () -> "the stall spare stayed: " + pool);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Waits the JDK compensates for

  /**
   * p submitted tasks wait for a later submission (cf.join, LinkedBlockingQueue.take, cf.get(5 s)):
   * on the JDK each wait goes through managedBlock, whose thread runs the later submission. Every
   * worker is in such a wait, so Tine's stall spare may run anything too. The watch that ran only
   * parked workers' own forks wedged all six (planted: allCompensated returning false).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"cf p=1", "cf p=2", "queue p=1", "queue p=2", "cfget p=1", "cfget p=2"})
  void waitersForALaterSubmissionComplete(String c) throws Exception {
    String kind = c.substring(0, c.indexOf(' '));
    int p = Integer.parseInt(c.substring(c.indexOf('=') + 1));
    ForkJoinPool jdk = new ForkJoinPool(p);
    try {
      assertEquals("completed", waitForLater(jdk, kind, p), "JDK control");
    } finally {
      jdk.shutdownNow();
    }
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(p).registerMXBean(false).build()) {
      assertEquals("completed", waitForLater(pool, kind, p), pool.toString());
    }
  }

  /** p waiters submitted first, their completer last; a wedge is released before returning. */
  static String waitForLater(ExecutorService pool, String kind, int p) throws Exception {
    CompletableFuture<Integer> cf = new CompletableFuture<>();
    java.util.concurrent.BlockingQueue<Integer> q =
        new java.util.concurrent.LinkedBlockingQueue<>();
    List<Future<?>> fs = new ArrayList<>();
    for (int i = 0; i < p; i++) {
      fs.add(
          switch (kind) {
            case "cf" -> pool.submit(() -> cf.join());
            case "queue" -> pool.submit(() -> q.take());
            default -> pool.submit(() -> cf.get(5, TimeUnit.SECONDS));
          });
    }
    fs.add(
        pool.submit(() -> {
          for (int i = 0; i < p; i++) {
            q.add(i);
          }
          return cf.complete(42);
        }));
    try {
      for (Future<?> f : fs) {
        f.get(20, TimeUnit.SECONDS);
      }
      return "completed";
    } catch (TimeoutException e) {
      return "wedged";
    } finally {
      cf.complete(-1);
      for (int i = 0; i < p; i++) {
        q.add(-1);
      }
    }
  }

  /** The most tasks running at once and the threads that ran them. */
  record Crowd(long sum, int maxRunning, int threads) {}

  /**
   * One task forks 20 children that sleep 30 ms (or hold a shared Semaphore(1) for 15 ms), then
   * waits for them all in {@code CompletableFuture.allOf(...).join()}. The JDK's join compensates
   * with one thread, which runs the children one at a time. Tine's spare runs them; while it sleeps
   * (or holds the semaphore and sleeps) the pool makes progress, so no other spare starts. The
   * watch that took a sleeping spare for a stalled one ran 11-20 children at once on as many
   * threads (planted: SLEEP counted as parked in parkedWorkers).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sleep p=1", "sleep p=2", "semaphore p=1", "semaphore p=2"})
  void forksBehindAWaitRunOneAtATimeAsOnTheJdk(String c) throws Exception {
    boolean sleep = c.startsWith("sleep");
    int p = Integer.parseInt(c.substring(c.indexOf('=') + 1));
    ForkJoinPool jdk = new ForkJoinPool(p);
    Crowd onJdk;
    try {
      onJdk = fanOutThenWait(jdk, jdkFork(), sleep);
    } finally {
      jdk.shutdownNow();
    }
    Crowd onTine;
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(p).registerMXBean(false).build()) {
      onTine = fanOutThenWait(pool, tineFork(), sleep);
    }
    Crowd j = onJdk, t = onTine;
    assertEquals(j.sum(), t.sum(), "results");
    assertTrue(
        t.maxRunning() <= Math.max(1, j.maxRunning()),
        () -> "Tine ran " + t.maxRunning() + " children at once; the JDK " + j);
    assertTrue(
        t.threads() <= Math.max(1, j.threads()),
        () -> "Tine ran children on " + t.threads() + " threads; the JDK " + j);
  }

  static Crowd fanOutThenWait(ExecutorService pool, Fork fork, boolean sleep) throws Exception {
    Gauge g = new Gauge();
    java.util.Set<Thread> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
    Semaphore sem = new Semaphore(1);
    Future<Long> root =
        pool.submit(() -> {
          List<CompletableFuture<Long>> cfs = new ArrayList<>();
          for (int i = 0; i < 20; i++) {
            long k = i;
            CompletableFuture<Long> cf = new CompletableFuture<>();
            cfs.add(cf);
            fork.fork(() -> {
              threads.add(Thread.currentThread());
              g.enter();
              try {
                if (sleep) {
                  Thread.sleep(30);
                } else {
                  sem.acquire();
                  try {
                    Thread.sleep(15);
                  } finally {
                    sem.release();
                  }
                }
              } finally {
                g.exit();
              }
              cf.complete(k);
              return k;
            });
          }
          CompletableFuture.allOf(cfs.toArray(new CompletableFuture<?>[0])).join();
          long s = 0;
          for (CompletableFuture<Long> cf : cfs) {
            s += cf.join();
          }
          return s;
        });
    try {
      return new Crowd(root.get(DEADLINE_S, TimeUnit.SECONDS), g.max.get(), threads.size());
    } catch (TimeoutException e) {
      return fail("wedged: " + pool);
    }
  }

  /**
   * p=2: task A forks a leaf that the other worker steals and sleeps in (400 ms), then A joins it
   * with nothing to help; 20 submissions that sleep 50 ms arrive meanwhile. A sleeping worker is
   * active, so the JDK adds no thread: at most 2 tasks run at once. The watch that let its spare
   * run anything while any Tine join waited, and took a sleeping worker for a parked one, ran 12-16
   * at once (planted, both old rules: 7 and 8 at once).
   */
  @ParameterizedTest(name = "eager={0}")
  @ValueSource(booleans = {false, true})
  void aJoinWaitingForASleepingThiefGetsNoSpare(boolean eager) throws Exception {
    ForkJoinPool jdk = new ForkJoinPool(2);
    Crowd j;
    try {
      j = joinASleepingThief(jdk, jdkFork());
    } finally {
      jdk.shutdownNow();
    }
    Crowd t;
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(2).eagerForks(eager).registerMXBean(false).build()) {
      t = joinASleepingThief(pool, tineFork());
    }
    assertEquals(j.sum(), t.sum(), "results");
    assertTrue(
        t.maxRunning() <= Math.max(2, j.maxRunning()),
        () -> "Tine ran " + t.maxRunning() + " at once at p=2; the JDK " + j);
    assertTrue(
        t.threads() <= Math.max(2, j.threads()),
        () -> "Tine ran tasks on " + t.threads() + " threads at p=2; the JDK " + j);
  }

  static Crowd joinASleepingThief(ExecutorService pool, Fork fork) throws Exception {
    Gauge g = new Gauge();
    java.util.Set<Thread> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
    CountDownLatch stolen = new CountDownLatch(1);
    List<Future<Long>> fs = new ArrayList<>();
    fs.add(
        pool.submit(() -> {
          threads.add(Thread.currentThread());
          g.enter();
          try {
            Thread self = Thread.currentThread();
            Supplier<Long> leaf =
                fork.fork(() -> {
                  threads.add(Thread.currentThread());
                  if (Thread.currentThread() != self) {
                    stolen.countDown();
                    Thread.sleep(400);
                  }
                  return 1L;
                });
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (stolen.getCount() != 0 && System.nanoTime() - end < 0) {
              Thread.onSpinWait(); // until the other worker steals (or claims) the leaf
            }
            return leaf.get();
          } finally {
            g.exit();
          }
        }));
    if (!stolen.await(DEADLINE_S, TimeUnit.SECONDS)) {
      fail("the leaf was never stolen: " + pool);
    }
    Thread.sleep(20);
    for (int i = 0; i < 20; i++) {
      fs.add(
          pool.submit(() -> {
            threads.add(Thread.currentThread());
            g.enter();
            try {
              Thread.sleep(50);
              return 1L;
            } finally {
              g.exit();
            }
          }));
    }
    long sum = 0;
    for (Future<Long> f : fs) {
      try {
        sum += f.get(DEADLINE_S, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        fail("wedged: " + pool);
      }
    }
    return new Crowd(sum, g.max.get(), threads.size());
  }

  // ---------------------------------------------------------------------------------------------
  // One bound for every spare

  /**
   * p=1 with room for one spare: A waits in cf.join for its fork B (the stall watch's spare, on
   * Tine; the JDK's join compensates), and B calls managedBlock waiting for its own fork C. The
   * spare room is taken, so B gets RejectedExecutionException, as on a JDK pool of maximum size 2;
   * B then runs C itself and A completes. The old Tine counted only managedBlock's spares against
   * maxSpares: B blocked with nobody to run C.
   */
  @Test
  void theWatchSpareCountsAgainstMaxSpares() throws Exception {
    ForkJoinPool jdk =
        new ForkJoinPool(
            1,
            ForkJoinPool.defaultForkJoinWorkerThreadFactory,
            null,
            false,
            0,
            2,
            1,
            null,
            60,
            TimeUnit.SECONDS);
    try {
      assertEquals("rejected", abc(jdk, jdkFork(), true), "JDK control");
    } finally {
      jdk.shutdownNow();
    }
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(1).maxSpares(1).registerMXBean(false).build()) {
      assertEquals("rejected", abc(pool, tineFork(), false), pool.toString());
    }
  }

  /** A forks B and waits in cf.join; B forks C and waits in managedBlock for C; C releases both. */
  static String abc(ExecutorService pool, Fork fork, boolean onJdk) throws Exception {
    CompletableFuture<Long> cf = new CompletableFuture<>();
    CountDownLatch cDone = new CountDownLatch(1);
    CompletableFuture<String> outcomeOfB = new CompletableFuture<>();
    Future<Long> a =
        pool.submit(() -> {
          fork.fork(() -> {
            Supplier<Long> c =
                fork.fork(() -> {
                  cDone.countDown();
                  cf.complete(1L);
                  return 1L;
                });
            try {
              blockUntil(cDone, onJdk);
              outcomeOfB.complete("ok");
            } catch (RejectedExecutionException e) {
              outcomeOfB.complete("rejected");
            }
            return c.get();
          });
          return cf.join();
        });
    try {
      assertEquals(1L, a.get(DEADLINE_S, TimeUnit.SECONDS));
    } catch (TimeoutException | ExecutionException e) {
      cDone.countDown();
      cf.complete(-1L);
      return "A did not complete: " + e;
    }
    return outcomeOfB.get(DEADLINE_S, TimeUnit.SECONDS);
  }

  /** managedBlock until {@code latch} opens (bounded, so a wedge ends as "ok" and fails). */
  static void blockUntil(CountDownLatch latch, boolean onJdk) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    if (onJdk) {
      ForkJoinPool.managedBlock(
          new ForkJoinPool.ManagedBlocker() {
            public boolean block() throws InterruptedException {
              return latch.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS) || true;
            }

            public boolean isReleasable() {
              return latch.getCount() == 0;
            }
          });
    } else {
      WorkStealingPool.managedBlock(
          new WorkStealingPool.ManagedBlocker() {
            public boolean block() throws InterruptedException {
              return latch.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS) || true;
            }

            public boolean isReleasable() {
              return latch.getCount() == 0;
            }
          });
    }
  }
}

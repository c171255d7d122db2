package dev.tine;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Code ported by renaming ({@code ForkJoinPool} → {@code WorkStealingPool}, {@code RecursiveTask}
 * and {@code ForkJoinTask} → {@code Task}, {@code inForkJoinPool} → {@code inWorkStealingPool})
 * compiles and means what it meant: each of ForkJoinPool's and ForkJoinTask's methods that Tine
 * offers under the JDK's name, run in the same scenario on both pools, with the JDK's answer as the
 * expected one. Counts and values only; no durations. Waits are bounded (seconds) for a loaded box;
 * pools are closed by the test and every worker thread must be gone.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PortingApiTest {
  private final List<ExecutorService> pools = new ArrayList<>();

  private <P extends ExecutorService> P track(P pool) {
    pools.add(pool);
    return pool;
  }

  @AfterEach
  void closePools() throws InterruptedException {
    for (ExecutorService p : pools) {
      p.shutdownNow();
      assertTrue(p.awaitTermination(20, TimeUnit.SECONDS), "pool terminated: " + p);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Constructors and the pool's figures

  @Test
  void constructorsTakeTheJdksArgumentsAndRejectWhatItRejects() {
    ForkJoinPool jdk = track(new ForkJoinPool(3));
    WorkStealingPool tine = track(new WorkStealingPool(3));
    assertEquals(jdk.getParallelism(), tine.getParallelism());
    ForkJoinPool jdkDefault = track(new ForkJoinPool());
    WorkStealingPool tineDefault = track(new WorkStealingPool());
    assertEquals(jdkDefault.getParallelism(), tineDefault.getParallelism());
    assertEquals(
        ForkJoinPool.getCommonPoolParallelism() > 0,
        WorkStealingPool.getCommonPoolParallelism() > 0);
    for (int bad : new int[] {0, -1, 32768}) {
      assertThrows(IllegalArgumentException.class, () -> new ForkJoinPool(bad), "JDK, " + bad);
      assertThrows(IllegalArgumentException.class, () -> new WorkStealingPool(bad), "Tine, " + bad);
    }
    // The workers of both are daemons: a ported program's main() still ends without close().
    assertEquals(
        daemonOf(jdk.submit(() -> Thread.currentThread().isDaemon())),
        daemonOf(tine.submit(() -> Thread.currentThread().isDaemon())));
  }

  private static boolean daemonOf(java.util.concurrent.Future<Boolean> f) {
    try {
      return f.get(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void submissionsWaitingBehindABlockedWorkerAreCountedAsTheJdkCountsThem() throws Exception {
    ForkJoinPool jdk = track(new ForkJoinPool(1));
    WorkStealingPool tine = track(new WorkStealingPool(1));
    int[] jdkFigures = queuedBehindBlockedWorker(jdk);
    int[] tineFigures = queuedBehindBlockedWorker(tine);
    assertArrayEquals(new int[] {3, 1, 0}, jdkFigures, "the JDK: queued submissions, has, queued");
    assertArrayEquals(jdkFigures, tineFigures, "Tine: queued submissions, has, queued tasks");
  }

  /** A pool of 1 whose worker waits on a latch, and 3 submissions behind it. */
  private static int[] queuedBehindBlockedWorker(ExecutorService pool) throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger ran = new AtomicInteger();
    pool.execute(() -> {
      started.countDown();
      try {
        release.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    assertTrue(started.await(20, TimeUnit.SECONDS));
    for (int i = 0; i < 3; i++) {
      pool.execute(ran::incrementAndGet);
    }
    int[] figures;
    if (pool instanceof ForkJoinPool p) {
      figures =
          new int[] {
            p.getQueuedSubmissionCount(),
            p.hasQueuedSubmissions() ? 1 : 0,
            (int) p.getQueuedTaskCount()
          };
    } else {
      WorkStealingPool p = (WorkStealingPool) pool;
      figures =
          new int[] {
            p.getQueuedSubmissionCount(),
            p.hasQueuedSubmissions() ? 1 : 0,
            (int) p.getQueuedTaskCount()
          };
    }
    release.countDown();
    awaitQuiescence(pool);
    assertEquals(3, ran.get(), "every submission ran: " + pool);
    return figures;
  }

  private static boolean awaitQuiescence(ExecutorService pool) {
    return pool instanceof ForkJoinPool p
        ? p.awaitQuiescence(20, TimeUnit.SECONDS)
        : ((WorkStealingPool) pool).awaitQuiescence(20, TimeUnit.SECONDS);
  }

  @Test
  void stealCountsAreTheStatsStealsAndSurviveAReset() {
    WorkStealingPool tine = track(new WorkStealingPool(2));
    assertEquals(0, tine.getStealCount());
    long r = tine.invoke(new Fib(22));
    assertEquals(Fib.seq(22), r);
    long steals = tine.getStealCount();
    assertEquals(tine.stats().steals(), steals, "before a reset: the stats' steals");
    tine.resetStats();
    assertEquals(steals, tine.getStealCount(), "getStealCount counts since the pool was built");
  }

  // ---------------------------------------------------------------------------------------------
  // Quiescence: forks that are never joined (the fork/join tuning study's quicksort, program 2)

  /** The study's program 2 on the JDK: fork the left part, compute the right, never join. */
  static final class JdkSort extends RecursiveAction {
    final int[] a;
    final int lo, hi;

    JdkSort(int[] a, int lo, int hi) {
      this.a = a;
      this.lo = lo;
      this.hi = hi;
    }

    @Override
    protected void compute() {
      int i = partition(a, lo, hi);
      if (i >= 0) {
        new JdkSort(a, lo, i).fork();
        new JdkSort(a, i + 1, hi).compute();
      }
    }
  }

  /** The same program, renamed. */
  static final class TineSort extends Task<Void> {
    final int[] a;
    final int lo, hi;

    TineSort(int[] a, int lo, int hi) {
      this.a = a;
      this.lo = lo;
      this.hi = hi;
    }

    @Override
    protected Void compute() {
      int i = partition(a, lo, hi);
      if (i >= 0) {
        new TineSort(a, lo, i).fork();
        new TineSort(a, i + 1, hi).compute();
      }
      return null;
    }
  }

  /** Lomuto partition of [lo, hi) around its last element: its final index, -1 if < 2 elements. */
  static int partition(int[] a, int lo, int hi) {
    if (hi - lo < 2) return -1;
    int pivot = a[hi - 1], i = lo;
    for (int j = lo; j < hi - 1; j++) {
      if (a[j] < pivot) {
        int t = a[i];
        a[i++] = a[j];
        a[j] = t;
      }
    }
    a[hi - 1] = a[i];
    a[i] = pivot;
    return i;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void helpQuiesceAtTheRootWaitsForEveryForkThatIsNeverJoined(int p) {
    int[] input = new SplittableRandom(p).ints(200_000, 0, 1_000_000).toArray();
    int[] sorted = input.clone();
    Arrays.sort(sorted);

    int[] jdkWork = input.clone();
    ForkJoinPool jdk = track(new ForkJoinPool(p));
    jdk.invoke(
        new RecursiveAction() {
          @Override
          protected void compute() {
            new JdkSort(jdkWork, 0, jdkWork.length).compute();
            ForkJoinTask.helpQuiesce();
          }
        });
    assertArrayEquals(sorted, jdkWork, "the JDK's program sorts (the test program is right)");

    int[] tineWork = input.clone();
    WorkStealingPool tine = track(new WorkStealingPool(p));
    tine.invoke(
        new Task<Void>() {
          @Override
          protected Void compute() {
            new TineSort(tineWork, 0, tineWork.length).compute();
            Task.helpQuiesce();
            return null;
          }
        });
    assertArrayEquals(sorted, tineWork, "sorted when invoke returns, at p=" + p);
    assertTrue(tine.awaitQuiescence(20, TimeUnit.SECONDS));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void awaitQuiescenceFromOutsideWaitsForForksNobodyJoins(int p) {
    int roots = 50, depth = 8; // each root forks a binary tree of 2^depth - 1 tasks, never joined
    int expected = roots * ((1 << depth) - 1);

    // The JDK is no reference here: on JDK 25 its awaitQuiescence from outside the pool returned
    // true at p=2 with 304 of these 12,750 tasks run (its isQuiescent after it is printed below).
    // The contract both state is the reference: it returns true only once every task has run.
    ForkJoinPool jdk = track(new ForkJoinPool(p));
    AtomicInteger jdkRan = new AtomicInteger();
    for (int i = 0; i < roots; i++) {
      jdk.execute(new JdkTree(depth, jdkRan));
    }
    boolean jdkQuiesced = jdk.awaitQuiescence(20, TimeUnit.SECONDS);
    String jdkSaw =
        "the JDK's awaitQuiescence: "
            + jdkQuiesced
            + " with "
            + jdkRan.get()
            + " of "
            + expected
            + " run, isQuiescent "
            + jdk.isQuiescent();

    WorkStealingPool tine = track(new WorkStealingPool(p));
    AtomicInteger tineRan = new AtomicInteger();
    for (int i = 0; i < roots; i++) {
      tine.execute(new TineTree(depth, tineRan));
    }
    assertTrue(tine.awaitQuiescence(20, TimeUnit.SECONDS), "Tine quiesces");
    assertEquals(
        expected,
        tineRan.get(),
        "every task ran once before awaitQuiescence returned (" + jdkSaw + ")");
    assertTrue(tine.isQuiescent());
  }

  static final class JdkTree extends RecursiveAction {
    final int depth;
    final AtomicInteger ran;

    JdkTree(int depth, AtomicInteger ran) {
      this.depth = depth;
      this.ran = ran;
    }

    @Override
    protected void compute() {
      ran.incrementAndGet();
      if (depth > 1) {
        new JdkTree(depth - 1, ran).fork();
        new JdkTree(depth - 1, ran).fork();
      }
    }
  }

  static final class TineTree extends Task<Void> {
    final int depth;
    final AtomicInteger ran;

    TineTree(int depth, AtomicInteger ran) {
      this.depth = depth;
      this.ran = ran;
    }

    @Override
    protected Void compute() {
      ran.incrementAndGet();
      if (depth > 1) {
        new TineTree(depth - 1, ran).fork();
        new TineTree(depth - 1, ran).fork();
      }
      return null;
    }
  }

  @Test
  void awaitQuiescenceTimesOutWhileATaskRunsAndIsTerminatingAsTheJdk() throws Exception {
    ForkJoinPool jdk = track(new ForkJoinPool(2));
    WorkStealingPool tine = track(new WorkStealingPool(2));
    boolean[] jdkFigures = whileATaskBlocks(jdk);
    boolean[] tineFigures = whileATaskBlocks(tine);
    assertArrayEquals(
        new boolean[] {false, false, false, true, false, true},
        jdkFigures,
        "the JDK: quiesced, isQuiescent, isTerminating before, during and after shutdownNow");
    assertArrayEquals(jdkFigures, tineFigures);
  }

  private static boolean[] whileATaskBlocks(ExecutorService pool) throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    pool.execute(() -> {
      started.countDown();
      boolean released = false;
      while (!released) {
        try {
          released = release.await(20, TimeUnit.SECONDS); // deaf to shutdownNow's interrupt
        } catch (InterruptedException e) {
          // keep waiting: the pool must stay "terminating" until this task ends
        }
      }
    });
    assertTrue(started.await(20, TimeUnit.SECONDS));
    boolean[] f = new boolean[6];
    if (pool instanceof ForkJoinPool p) {
      f[0] = p.awaitQuiescence(50, TimeUnit.MILLISECONDS);
      f[1] = p.isQuiescent();
      f[2] = p.isTerminating();
      p.shutdownNow();
      f[3] = p.isTerminating();
      release.countDown();
      assertTrue(p.awaitTermination(20, TimeUnit.SECONDS));
      f[4] = p.isTerminating();
      f[5] = p.isTerminated();
    } else {
      WorkStealingPool p = (WorkStealingPool) pool;
      f[0] = p.awaitQuiescence(50, TimeUnit.MILLISECONDS);
      f[1] = p.isQuiescent();
      f[2] = p.isTerminating();
      p.shutdownNow();
      f[3] = p.isTerminating();
      release.countDown();
      assertTrue(p.awaitTermination(20, TimeUnit.SECONDS));
      f[4] = p.isTerminating();
      f[5] = p.isTerminated();
    }
    return f;
  }

  // ---------------------------------------------------------------------------------------------
  // The task's methods

  static final class Fib extends Task<Long> {
    final int n;

    Fib(int n) {
      this.n = n;
    }

    static long seq(int n) {
      return n < 2 ? n : seq(n - 1) + seq(n - 2);
    }

    @Override
    protected Long compute() {
      if (n < 2) return (long) n;
      Fib f1 = new Fib(n - 2);
      f1.fork();
      return new Fib(n - 1).compute() + f1.join();
    }
  }

  /** What a task sees of the current thread, its own forks and tryUnfork, on one pool. */
  record Inside(
      boolean inPool,
      boolean poolIsTheCaller,
      int queuedAfterFiveForks,
      int surplusAfterFiveForks,
      boolean unforkNewest,
      boolean unforkOlder,
      int ranAfterJoins,
      int queuedAtEnd) {}

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aTaskSeesItsPoolItsForksAndTakesBackItsNewestForkAsOnTheJdk(int p) {
    ForkJoinPool jdkPool = track(new ForkJoinPool(p));
    AtomicInteger jdkRan = new AtomicInteger();
    Inside jdk =
        jdkPool.invoke(
            new RecursiveTask<Inside>() {
              @Override
              protected Inside compute() {
                boolean in = ForkJoinTask.inForkJoinPool();
                boolean caller = ForkJoinTask.getPool() == jdkPool;
                List<ForkJoinTask<Integer>> forks = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                  forks.add(countingLeaf(jdkRan, i).fork());
                }
                int queued = ForkJoinTask.getQueuedTaskCount();
                int surplus = ForkJoinTask.getSurplusQueuedTaskCount();
                ForkJoinTask<Integer> newest = forks.get(4);
                boolean unforkNewest = newest.tryUnfork();
                boolean unforkOlder = forks.get(0).tryUnfork();
                newest.invoke(); // computed in place after the take-back: runs once
                if (unforkOlder) {
                  forks.get(0).invoke(); // taken back: a join would wait for a run that never comes
                }
                for (ForkJoinTask<Integer> f : forks) f.join();
                return new Inside(
                    in,
                    caller,
                    queued,
                    surplus,
                    unforkNewest,
                    unforkOlder,
                    jdkRan.get(),
                    ForkJoinTask.getQueuedTaskCount());
              }
            });
    WorkStealingPool tinePool = track(new WorkStealingPool(p));
    AtomicInteger tineRan = new AtomicInteger();
    Inside tine =
        tinePool.invoke(
            new Task<Inside>() {
              @Override
              protected Inside compute() {
                boolean in = Task.inWorkStealingPool();
                boolean caller = Task.getPool() == tinePool;
                List<Task<Integer>> forks = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                  forks.add(Task.of(counting(tineRan, i)).fork());
                }
                int queued = Task.getQueuedTaskCount();
                int surplus = Task.getSurplusQueuedTaskCount();
                Task<Integer> newest = forks.get(4);
                boolean unforkNewest = newest.tryUnfork();
                boolean unforkOlder = forks.get(0).tryUnfork();
                newest.invoke(); // computed in place after the take-back: runs once
                if (unforkOlder) {
                  forks.get(0).invoke(); // taken back: a join would wait for a run that never comes
                }
                for (Task<Integer> f : forks) f.join();
                return new Inside(
                    in,
                    caller,
                    queued,
                    surplus,
                    unforkNewest,
                    unforkOlder,
                    tineRan.get(),
                    Task.getQueuedTaskCount());
              }
            });
    assertAll(
        () -> assertEquals(5, jdk.ranAfterJoins(), "the JDK ran each fork once"),
        () -> assertTrue(jdk.unforkNewest(), "the JDK takes back its newest fork"),
        () -> assertEquals(jdk.inPool(), tine.inPool(), "inWorkStealingPool"),
        () -> assertEquals(jdk.poolIsTheCaller(), tine.poolIsTheCaller(), "getPool"),
        () -> assertEquals(jdk.unforkNewest(), tine.unforkNewest(), "tryUnfork of the newest fork"),
        () -> assertEquals(jdk.unforkOlder(), tine.unforkOlder(), "tryUnfork of an older fork"),
        () -> assertEquals(5, tine.ranAfterJoins(), "each fork ran once, the taken-back one too"),
        () -> assertEquals(jdk.queuedAtEnd(), tine.queuedAtEnd(), "queued after the joins"));
    if (p == 1) {
      // At p=1 nobody can steal, so both count all five forks, and the surplus is all of them.
      assertEquals(5, jdk.queuedAfterFiveForks());
      assertEquals(jdk.queuedAfterFiveForks(), tine.queuedAfterFiveForks(), "getQueuedTaskCount");
      assertEquals(jdk.surplusAfterFiveForks(), tine.surplusAfterFiveForks(), "surplus");
    }
    assertFalse(Task.inWorkStealingPool(), "outside a pool");
    assertNull(Task.getPool());
    assertEquals(0, Task.getQueuedTaskCount());
    assertEquals(0, Task.getSurplusQueuedTaskCount());
  }

  private static ForkJoinTask<Integer> countingLeaf(AtomicInteger ran, int i) {
    return ForkJoinTask.adapt(() -> ran.incrementAndGet() > 0 ? i : -1);
  }

  private static java.util.function.Supplier<Integer> counting(AtomicInteger ran, int i) {
    return () -> ran.incrementAndGet() > 0 ? i : -1;
  }

  @Test
  void quietJoinsAndResultsReportAsTheJdk() {
    ForkJoinPool jdkPool = track(new ForkJoinPool(2));
    WorkStealingPool tinePool = track(new WorkStealingPool(2));
    IllegalStateException boom = new IllegalStateException("boom");

    Object[] jdk =
        jdkPool.invoke(
            new RecursiveTask<Object[]>() {
              @Override
              protected Object[] compute() {
                ForkJoinTask<Integer> ok = ForkJoinTask.adapt(() -> 42).fork();
                ForkJoinTask<Integer> bad =
                    ForkJoinTask.adapt(
                            (java.util.concurrent.Callable<Integer>)
                                () -> {
                                  throw boom;
                                })
                        .fork();
                ok.quietlyJoin();
                bad.quietlyJoin();
                ForkJoinTask<Integer> inPlace = ForkJoinTask.adapt(() -> 7);
                inPlace.quietlyInvoke();
                return new Object[] {
                  ok.isCompletedNormally(),
                  ok.getRawResult(),
                  bad.isCompletedNormally(),
                  bad.isCompletedAbnormally(),
                  bad.getRawResult(),
                  isBoom(bad.getException(), boom),
                  inPlace.getRawResult()
                };
              }
            });
    Object[] tine =
        tinePool.invoke(
            new Task<Object[]>() {
              @Override
              protected Object[] compute() {
                Task<Integer> ok = Task.adapt(() -> 42).fork();
                Task<Integer> bad =
                    Task.adapt(
                            (java.util.concurrent.Callable<Integer>)
                                () -> {
                                  throw boom;
                                })
                        .fork();
                ok.quietlyJoin();
                bad.quietlyJoin();
                Task<Integer> inPlace = Task.adapt(() -> 7);
                inPlace.quietlyInvoke();
                return new Object[] {
                  ok.isCompletedNormally(),
                  ok.getRawResult(),
                  bad.isCompletedNormally(),
                  bad.isCompletedAbnormally(),
                  bad.getRawResult(),
                  isBoom(bad.getException(), boom),
                  inPlace.getRawResult()
                };
              }
            });
    assertArrayEquals(new Object[] {true, 42, false, true, null, true, 7}, jdk, "the JDK");
    assertArrayEquals(jdk, tine);
  }

  /** The task's exception: the object thrown, or (the JDK, read on another thread) a copy of it. */
  private static boolean isBoom(Throwable e, Throwable boom) {
    return e == boom || (e != null && e.getClass() == boom.getClass() && e.getCause() == boom);
  }

  @Test
  void anAdaptedCallableWrapsACheckedExceptionAsTheJdk() {
    IOException io = new IOException("disk");
    java.util.concurrent.Callable<String> c =
        () -> {
          throw io;
        };
    ForkJoinPool jdkPool = track(new ForkJoinPool(1));
    WorkStealingPool tinePool = track(new WorkStealingPool(1));
    // What the task recorded, read on the thread that ran it (the JDK's join from another thread
    // would add a copy around it: the documented same-exception-object difference).
    ForkJoinTask<String> jdkTask = ForkJoinTask.adapt(c);
    Task<String> tineTask = Task.adapt(c);
    Throwable jdk =
        jdkPool.invoke(
            ForkJoinTask.adapt(() -> {
              jdkTask.quietlyInvoke();
              return jdkTask.getException();
            }));
    Throwable tine =
        tinePool.invoke(
            Task.adapt(() -> {
              tineTask.quietlyInvoke();
              return tineTask.getException();
            }));
    assertEquals(RuntimeException.class, jdk.getClass(), "the JDK wraps it in a RuntimeException");
    assertSame(io, jdk.getCause(), "the JDK: the checked exception is the cause");
    assertEquals(jdk.getClass(), tine.getClass());
    assertSame(io, tine.getCause());
    RuntimeException joined =
        assertThrows(RuntimeException.class, () -> tinePool.invoke(Task.adapt(c)));
    assertSame(io, joined.getCause(), "invoke rethrows the task's own exception");
    Runnable r = () -> {};
    assertNull(jdkPool.invoke(ForkJoinTask.adapt(r)));
    assertNull(tinePool.invoke(Task.adapt(r)));
    assertEquals(
        jdkPool.invoke(ForkJoinTask.adapt(r, "done")), tinePool.invoke(Task.adapt(r, "done")));
  }

  @Test
  void aReinitializedTaskRunsAgainAsOnTheJdk() {
    ForkJoinPool jdkPool = track(new ForkJoinPool(2));
    WorkStealingPool tinePool = track(new WorkStealingPool(2));
    AtomicInteger jdkRuns = new AtomicInteger();
    AtomicInteger tineRuns = new AtomicInteger();
    ForkJoinTask<Integer> jdkTask = ForkJoinTask.adapt(jdkRuns::incrementAndGet);
    Task<Integer> tineTask = Task.adapt(tineRuns::incrementAndGet);
    int[] jdk = new int[3];
    int[] tine = new int[3];
    jdk[0] = jdkPool.invoke(jdkTask);
    tine[0] = tinePool.invoke(tineTask);
    jdkTask.reinitialize();
    tineTask.reinitialize();
    jdk[1] = jdkTask.isDone() ? 1 : 0;
    tine[1] = tineTask.isDone() ? 1 : 0;
    jdk[2] = jdkPool.invoke(jdkTask);
    tine[2] = tinePool.invoke(tineTask);
    assertArrayEquals(
        new int[] {1, 0, 2}, jdk, "the JDK: ran, not done after reinitialize, ran again");
    assertArrayEquals(jdk, tine);
    assertEquals(2, tineRuns.get());
  }

  /**
   * A tree whose tasks fork 1-4 children, take back a random choice of them (newest first, or any
   * one: only the newest can succeed), compute those taken back in place and join the rest: the sum
   * must be the tree's size and every task must run exactly once, whatever thieves and promotion
   * did meanwhile.
   */
  static final class UnforkTree extends Task<Long> {
    final int depth;
    final long seed;
    final AtomicInteger runs;

    UnforkTree(int depth, long seed, AtomicInteger runs) {
      this.depth = depth;
      this.seed = seed;
      this.runs = runs;
    }

    @Override
    protected Long compute() {
      runs.incrementAndGet();
      if (depth == 0) return 1L;
      SplittableRandom r = new SplittableRandom(seed);
      int k = 1 + r.nextInt(4);
      List<UnforkTree> kids = new ArrayList<>();
      for (int i = 0; i < k; i++) {
        kids.add((UnforkTree) new UnforkTree(depth - 1, r.nextLong(), runs).fork());
      }
      boolean[] back = new boolean[k];
      int tries = r.nextInt(k + 1);
      for (int i = 0; i < tries; i++) {
        int pick = r.nextBoolean() ? k - 1 - i : r.nextInt(k);
        if (!back[pick]) back[pick] = kids.get(pick).tryUnfork();
      }
      long sum = 1;
      for (int i = k - 1; i >= 0; i--) {
        sum += back[i] ? kids.get(i).invoke() : kids.get(i).join();
      }
      return sum;
    }

    static long size(int depth, long seed) {
      if (depth == 0) return 1;
      SplittableRandom r = new SplittableRandom(seed);
      int k = 1 + r.nextInt(4);
      long n = 1;
      for (int i = 0; i < k; i++) n += size(depth - 1, r.nextLong());
      return n;
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void takenBackForksRunExactlyOnceWhateverThievesDo(int p) {
    for (boolean eager : new boolean[] {false, true}) {
      WorkStealingPool pool =
          track(WorkStealingPool.builder().parallelism(p).eagerForks(eager).build());
      for (long seed = 1; seed <= 20; seed++) {
        AtomicInteger runs = new AtomicInteger();
        long expected = UnforkTree.size(7, seed);
        long sum = pool.invoke(new UnforkTree(7, seed, runs));
        assertEquals(expected, sum, "p=" + p + " eager=" + eager + " seed=" + seed);
        assertEquals(expected, runs.get(), "every task ran once: p=" + p + " eager=" + eager);
      }
    }
  }

  @Test
  void invokeAllOfACollectionReturnsItWithEveryTaskDone() {
    ForkJoinPool jdkPool = track(new ForkJoinPool(2));
    WorkStealingPool tinePool = track(new WorkStealingPool(2));
    List<Long> jdk =
        jdkPool.invoke(
            ForkJoinTask.adapt(() -> {
              List<ForkJoinTask<Long>> fs = new ArrayList<>();
              for (int n = 10; n < 20; n++) {
                int k = n;
                fs.add(ForkJoinTask.adapt(() -> Fib.seq(k)));
              }
              return ForkJoinTask.invokeAll(fs).stream().map(ForkJoinTask::join).toList();
            }));
    List<Long> tine =
        tinePool.invoke(
            Task.adapt(() -> {
              List<Task<Long>> fs = new ArrayList<>();
              for (int n = 10; n < 20; n++) {
                int k = n;
                fs.add(Task.adapt(() -> Fib.seq(k)));
              }
              return Task.invokeAll(fs).stream().map(Task::join).toList();
            }));
    assertEquals(jdk, tine);
    assertEquals(Fib.seq(19), tine.get(9));
  }

  @Test
  void helpQuiesceOutsideAPoolWaitsForTheCommonPool() {
    AtomicInteger ran = new AtomicInteger();
    int roots = 10, depth = 6;
    for (int i = 0; i < roots; i++) {
      WorkStealingPool.commonPool().execute(new TineTree(depth, ran));
    }
    Task.helpQuiesce();
    assertEquals(roots * ((1 << depth) - 1), ran.get());
    assertInstanceOf(WorkStealingPool.class, WorkStealingPool.commonPool());
  }
}

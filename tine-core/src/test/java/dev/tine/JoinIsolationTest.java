package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * A join runs only its target, its own forks, or the target's descendants: never an unrelated
 * submission in the joiner's frame. Each program runs on the JDK's ForkJoinPool and on Tine, and
 * the outcomes must be equal.
 */
class JoinIsolationTest {

  static final long DEADLINE_S = 20;

  /**
   * Three submissions to a pool of one: T joins X, Y joins T, X returns 1. The previous runtime's
   * join of X found no thief and ran Y inside T's frame; Y then waited for T, which could never
   * return (a deadlock). The JDK's pool gives T=2, Y=102.
   */
  @Test
  void aJoinNeverRunsAnUnrelatedSubmissionAtParallelismOne() throws Exception {
    ForkJoinPool fj = new ForkJoinPool(1);
    try {
      ForkJoinTask<Integer> x = ForkJoinTask.adapt(() -> 1);
      ForkJoinTask<Integer> t = ForkJoinTask.adapt(() -> x.join() + 1);
      ForkJoinTask<Integer> y = ForkJoinTask.adapt(() -> t.join() + 100);
      fj.execute(t);
      fj.execute(y);
      fj.execute(x);
      assertEquals(
          List.of(2, 102),
          List.of(t.get(DEADLINE_S, TimeUnit.SECONDS), y.get(DEADLINE_S, TimeUnit.SECONDS)),
          "JDK control");
    } finally {
      fj.shutdownNow();
    }
    WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).registerMXBean(false).build();
    Task<Integer> x = Task.of(() -> 1);
    Task<Integer> t = Task.of(() -> x.join() + 1);
    Task<Integer> y = Task.of(() -> t.join() + 100);
    pool.submit(t);
    pool.submit(y);
    pool.submit(x);
    List<Integer> got;
    try {
      got = List.of(t.get(DEADLINE_S, TimeUnit.SECONDS), y.get(DEADLINE_S, TimeUnit.SECONDS));
    } catch (TimeoutException e) {
      // A join deadlocked inside itself cannot be stopped (join ignores interrupts): the pool's
      // daemon worker is left behind, and only in this failure.
      pool.shutdownNow();
      fail("deadlock: T joins X, Y joins T, at parallelism 1: " + pool);
      return;
    }
    pool.close();
    assertEquals(List.of(2, 102), got);
  }

  static final ThreadLocal<String> WHO = new ThreadLocal<>();

  /**
   * T sets a thread-local and joins X, which is not submitted yet; meanwhile Y, an unrelated
   * submission, sets its own value and its interrupt flag, and only then is X submitted. The
   * previous runtime's join, finding no thief, scanned the pool and ran Y inside T's frame, so T
   * saw "Y" and an interrupt after its join. On the JDK's pool, as now on Tine, T sees its own
   * value and no interrupt (on Tine Y runs on a spare the stall watch starts, or after T).
   */
  @Test
  void aJoinDoesNotLeakAnUnrelatedTasksThreadLocalOrInterrupt() throws Exception {
    ForkJoinPool fj = new ForkJoinPool(1);
    try {
      ForkJoinTask<Integer> x = ForkJoinTask.adapt(() -> 1);
      ForkJoinTask<String> t = ForkJoinTask.adapt(() -> tBody(x::join));
      ForkJoinTask<Integer> y = ForkJoinTask.adapt(JoinIsolationTest::yBody);
      fj.execute(t);
      awaitJoining(t::isDone, fj::toString);
      fj.execute(y);
      Thread.sleep(50); // time for a join that scans the pool to pick Y up
      fj.execute(x);
      assertEquals("T, interrupted=false", t.get(DEADLINE_S, TimeUnit.SECONDS), "JDK control");
      assertEquals(2, y.get(DEADLINE_S, TimeUnit.SECONDS));
    } finally {
      fj.shutdownNow();
    }
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(1).registerMXBean(false).build()) {
      Task<Integer> x = Task.of(() -> 1);
      Task<String> t = Task.of(() -> tBody(x::join));
      Task<Integer> y = Task.of(JoinIsolationTest::yBody);
      pool.submit(t);
      awaitJoining(t::isDone, pool::toString);
      pool.submit(y);
      Thread.sleep(50);
      pool.submit(x);
      assertEquals("T, interrupted=false", t.get(DEADLINE_S, TimeUnit.SECONDS), pool.toString());
      assertEquals(2, y.get(DEADLINE_S, TimeUnit.SECONDS));
    }
  }

  static volatile boolean joining;

  /** Waits until T has set its value and is about to join (bounded). */
  static void awaitJoining(
      java.util.function.BooleanSupplier done, java.util.function.Supplier<String> pool)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
    while (!joining && !done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("T never started: " + pool.get());
      }
      Thread.sleep(1);
    }
    joining = false;
  }

  static String tBody(java.util.function.Supplier<Integer> joinX) {
    WHO.set("T");
    try {
      joining = true;
      joinX.get();
      return WHO.get() + ", interrupted=" + Thread.interrupted();
    } finally {
      WHO.remove();
    }
  }

  static int yBody() {
    WHO.set("Y"); // never removed: a leak would show in whoever runs next on this thread's frame
    Thread.currentThread().interrupt(); // left set as Y returns
    return 2;
  }
}

package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Rule 4 of the overflow rules (core design note): a fork that a join stopped by an overflow left
 * behind is failed with that overflow if it is still the worker's own and unstarted. When it is the
 * newest task of the worker's deque, the worker takes it out before failing it: a failed task left
 * in the deque was stolen, the steal wrote the thief into its outcome as its stealer, and its
 * exception read back as a {@code Worker}. Planted (the fix undone: the task failed where it lies)
 * this printed "class dev.tine.Worker cannot be cast to class java.lang.Throwable" from the other
 * worker's run loop, and {@code getException} threw the same; {@code JdkParityTest} f02 found it
 * about once in seven runs at p=2 beside other builds.
 */
class PendingForkTest {
  static final class Leaf extends Task<Long> {
    @Override
    protected Long compute() {
      return 1L;
    }
  }

  @Test
  void aFailedForkIsTakenOutOfTheDequeSoNoThiefRewritesItsOutcome() throws Exception {
    List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    int failedByUs = 0;
    for (int round = 0; round < 20; round++) {
      try (WorkStealingPool pool =
          WorkStealingPool.builder()
              .parallelism(2)
              .registerMXBean(false)
              .uncaughtExceptionHandler((t, e) -> uncaught.add(e))
              .build()) {
        Leaf c = new Leaf();
        StackOverflowError planted = new StackOverflowError("planted at the join's entry");
        boolean[] leftInDeque = new boolean[1];
        pool.invoke(
            Task.of(() -> {
              Worker w = (Worker) Thread.currentThread();
              w.deque.push(c); // a promoted fork, the deque's newest; no wake-up yet
              int n = w.pendingCount; // what Task.join's handler records (rule 4)
              w.pendingTasks[n] = c;
              w.pendingErrors[n] = planted;
              w.pendingIfLeft[n] = true;
              w.pendingCount = n + 1;
              w.completePending();
              leftInDeque[0] = w.deque.peek() == c;
              // Wake the other worker and give it time to steal whatever is left in our deque.
              w.pool.sleep.signalWork();
              long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
              while (w.deque.peek() != null && System.nanoTime() < end) {
                Thread.onSpinWait();
              }
              return 0L;
            }));
        assertTrue(!leftInDeque[0], "the failed fork was left in the deque");
        assertTrue(c.isDone(), "failed or run, not lost");
        if (c.getException() != null) {
          assertSame(planted, c.getException(), "the fork's exception is the overflow");
          failedByUs++;
        } else {
          assertEquals(1L, c.getNow(), "a thief took it first and ran it");
        }
      }
    }
    assertTrue(failedByUs > 0, "no round failed the fork: the test exercised nothing");
    assertEquals(List.of(), uncaught, "nothing thrown on a worker's run loop");
  }
}

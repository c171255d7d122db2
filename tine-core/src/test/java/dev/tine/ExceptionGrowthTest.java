package dev.tine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A failed task's exception does not grow with its joins (the core design note, "Outcomes"):
 * 100,000 joins of one failed task, by every join form, from several workers and outside threads at
 * once, each receive the very object {@code compute} threw, and the runtime adds nothing to it: no
 * suppressed exception, no cause, the same stack trace. So its memory is what {@code compute} left,
 * however often it is joined, and no joiner sees another's trace.
 */
class ExceptionGrowthTest {
  static final int JOINS = 100_000;

  @Test
  void aHundredThousandJoinsAddNothingToTheException() throws Exception {
    IllegalStateException thrown = new IllegalStateException("the task's failure");
    StackTraceElement[] trace = thrown.getStackTrace().clone();
    Task<Integer> failed =
        Task.of(() -> {
          throw thrown;
        });
    AtomicInteger same = new AtomicInteger(), other = new AtomicInteger();
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(2).registerMXBean(false).build()) {
      pool.submit(failed);
      try {
        failed.get();
      } catch (ExecutionException e) {
        assertSame(thrown, e.getCause());
      }
      int perJoiner = JOINS / 8;
      List<Future<?>> joiners = new ArrayList<>();
      // Four joiners on workers (join, invoke, get, Scope), four outside threads (join, get).
      for (int k = 0; k < 4; k++) {
        int form = k;
        joiners.add(
            pool.submit(
                Task.of(() -> {
                  joinMany(failed, thrown, form, perJoiner, same, other);
                  return null;
                })));
      }
      List<Thread> outside = new ArrayList<>();
      for (int k = 0; k < 4; k++) {
        int form = k % 2 == 0 ? 0 : 2;
        outside.add(
            Thread.ofPlatform()
                .start(() -> joinMany(failed, thrown, form, perJoiner, same, other)));
      }
      for (Future<?> f : joiners) {
        f.get();
      }
      for (Thread t : outside) {
        t.join();
      }
    }
    assertEquals(JOINS, same.get(), "joins that received the task's own exception");
    assertEquals(0, other.get(), "joins that received anything else");
    assertEquals(0, thrown.getSuppressed().length, "suppressed exceptions the joins added");
    assertNull(thrown.getCause(), "a cause the joins added");
    assertArrayEquals(trace, thrown.getStackTrace(), "the stack trace, as compute threw it");
  }

  /** {@code n} joins of {@code failed} in one form: 0 join, 1 invoke, 2 get, 3 a Scope join. */
  static void joinMany(
      Task<Integer> failed,
      Throwable thrown,
      int form,
      int n,
      AtomicInteger same,
      AtomicInteger other) {
    for (int i = 0; i < n; i++) {
      Throwable seen;
      try {
        switch (form) {
          case 0 -> failed.join();
          case 1 -> failed.invoke();
          case 2 -> failed.get();
          default -> Scope.current().joinLong(s -> failed.join(), s -> 1L, Long::sum);
        }
        seen = null;
      } catch (ExecutionException e) {
        seen = e.getCause();
      } catch (Throwable e) {
        seen = e;
      }
      (seen == thrown ? same : other).incrementAndGet();
    }
  }
}

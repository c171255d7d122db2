package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Exceptions, cancellation, invokeAll, submit/get. */
@Timeout(60)
class OutcomesTest {
  private WorkStealingPool pool;

  @BeforeEach
  void setUp() {
    pool = WorkStealingPool.builder().parallelism(2).build();
  }

  @AfterEach
  void tearDown() {
    pool.close();
  }

  static final class Boom extends RuntimeException {
    Boom(String m) {
      super(m);
    }
  }

  /** Throws (a new exception, recorded) at depth 0 of a fork tree; the rest computes normally. */
  static final class Failing extends Task<Long> {
    final int n;
    final List<Boom> thrown;

    Failing(int n, List<Boom> thrown) {
      this.n = n;
      this.thrown = thrown;
    }

    @Override
    protected Long compute() {
      if (n == 0) {
        Boom b = new Boom("deep");
        thrown.add(b);
        throw b;
      }
      Failing left = new Failing(n - 1, thrown);
      Programs.Fib right = new Programs.Fib(15);
      left.fork();
      long r = right.compute();
      return r + left.join();
    }
  }

  @Test
  void exceptionAtJoinIsTheOriginalWithItsStackTrace() {
    List<Boom> created = new CopyOnWriteArrayList<>();
    Boom thrown = assertThrows(Boom.class, () -> pool.invoke(new Failing(12, created)));
    assertEquals(1, created.size());
    assertSame(created.get(0), thrown, "the original object, not a copy");
    StackTraceElement[] original = thrown.getStackTrace();
    assertTrue(original.length > 0);
    assertTrue(
        java.util.Arrays.stream(original).anyMatch(e -> e.getClassName().endsWith("Failing")),
        "stack trace shows where it was thrown");
  }

  @Test
  void errorsPropagate() {
    StackOverflowError err = new StackOverflowError("synthetic");
    Task<Void> t =
        new Task<>() {
          @Override
          protected Void compute() {
            throw err;
          }
        };
    assertSame(err, assertThrows(StackOverflowError.class, () -> pool.invoke(t)));
    assertTrue(t.isCompletedAbnormally());
    assertSame(err, t.getException());
  }

  @Test
  void checkedExceptionsArriveAsThemselvesFromJoinAndAsCauseFromGet() {
    IOException io = new IOException("disk");
    Task<String> t =
        pool.submit(() -> {
          throw io;
        });
    ExecutionException ee = assertThrows(ExecutionException.class, t::get);
    assertSame(io, ee.getCause());
    assertSame(io, assertThrows(IOException.class, t::join)); // as the JDK's join: undeclared
  }

  @Test
  void getWrapsRuntimeExceptions() {
    Boom boom = new Boom("x");
    Future<?> f =
        pool.submit(() -> {
          throw boom;
        });
    ExecutionException ee = assertThrows(ExecutionException.class, f::get);
    assertSame(boom, ee.getCause());
  }

  @Test
  void invokeAllRunsAllAndReportsFirstException() {
    AtomicInteger ran = new AtomicInteger();
    Boom first = new Boom("first");
    Boom second = new Boom("second");
    Task<?>[] ts = new Task<?>[6];
    for (int i = 0; i < ts.length; i++) {
      int k = i;
      ts[i] =
          new Task<Void>() {
            @Override
            protected Void compute() {
              ran.incrementAndGet();
              if (k == 2) throw first;
              if (k == 4) throw second;
              return null;
            }
          };
    }
    Boom thrown =
        assertThrows(
            Boom.class,
            () ->
                pool.invoke(
                    new Task<Void>() {
                      @Override
                      protected Void compute() {
                        Task.invokeAll(ts);
                        return null;
                      }
                    }));
    assertSame(first, thrown);
    assertEquals(ts.length, ran.get());
    for (Task<?> t : ts) assertTrue(t.isDone());
    assertSame(second, ts[4].getException());
  }

  @Test
  void invokeAllPairFromOutsideUsesCommonPool() {
    Programs.Fib a = new Programs.Fib(15), b = new Programs.Fib(16);
    Task.invokeAll(a, b);
    assertEquals(Programs.seqFib(15), a.join());
    assertEquals(Programs.seqFib(16), b.join());
  }

  @Test
  void cancelledBeforeRunningNeverRuns() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger ran = new AtomicInteger();
    try (WorkStealingPool one = WorkStealingPool.builder().parallelism(1).build()) {
      Future<?> blocker =
          one.submit(() -> {
            release.await();
            return null;
          });
      Task<?> victim = one.submit(ran::incrementAndGet);
      assertTrue(victim.cancel());
      assertTrue(victim.isCancelled());
      assertTrue(victim.isDone());
      assertFalse(victim.cancel(), "second cancel reports false");
      release.countDown();
      blocker.get();
      assertThrows(CancellationException.class, victim::join);
      assertThrows(CancellationException.class, victim::get);
      one.submit(() -> null).get(); // the queue has drained past the victim
    }
    assertEquals(0, ran.get());
  }

  @Test
  void cancelForkedSubtaskSeenAtJoin() {
    try (WorkStealingPool one = WorkStealingPool.builder().parallelism(1).build()) {
      cancelForkedSubtaskSeenAtJoin(one); // one worker: nobody can steal the fork before cancel
    }
  }

  private static void cancelForkedSubtaskSeenAtJoin(WorkStealingPool pool) {
    Long r =
        pool.invoke(
            new Task<Long>() {
              @Override
              protected Long compute() {
                Programs.Fib f = new Programs.Fib(10);
                f.fork();
                assertTrue(f.cancel());
                try {
                  f.join();
                  return -1L;
                } catch (CancellationException expected) {
                  return 1L;
                }
              }
            });
    assertEquals(1L, r);
  }

  @Test
  void completedTaskCannotBeCancelled() {
    Programs.Fib f = new Programs.Fib(10);
    assertEquals(55L, pool.invoke(f));
    assertFalse(f.cancel());
    assertFalse(f.isCancelled());
    assertEquals(55L, f.getNow());
  }

  @Test
  void submitAndGet() throws Exception {
    assertEquals(42, pool.submit(() -> 42).get());
    assertEquals("r", pool.submit(() -> {}, "r").get());
    assertNull(pool.submit(() -> {}).get());
    assertEquals(Programs.seqFib(20), pool.submit(new Programs.Fib(20)).get());
  }

  @Test
  void getWithTimeout() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Future<Integer> f =
        pool.submit(() -> {
          release.await();
          return 7;
        });
    assertThrows(TimeoutException.class, () -> f.get(20, TimeUnit.MILLISECONDS));
    release.countDown();
    assertEquals(7, f.get(10, TimeUnit.SECONDS));
  }

  @Test
  void executorServiceInvokeAllAndAny() throws Exception {
    List<Future<Integer>> fs = pool.invokeAll(List.of(() -> 1, () -> 2, () -> 3));
    int sum = 0;
    for (Future<Integer> f : fs) sum += f.get();
    assertEquals(6, sum);
    int any = pool.invokeAny(List.of(() -> 5, () -> 5));
    assertEquals(5, any);
  }

  @Test
  void executeReportsEscapingExceptionsToTheHandler() throws Exception {
    List<Throwable> seen = new CopyOnWriteArrayList<>();
    CountDownLatch got = new CountDownLatch(1);
    Boom boom = new Boom("fire and forget");
    try (WorkStealingPool p =
        WorkStealingPool.builder()
            .parallelism(1)
            .uncaughtExceptionHandler((t, e) -> {
              seen.add(e);
              got.countDown();
            })
            .build()) {
      p.execute(() -> {
        throw boom;
      });
      assertTrue(got.await(10, TimeUnit.SECONDS));
    }
    assertEquals(List.of(boom), seen);
  }

  @Test
  void joinFromOutsideThreadWaitsForResult() throws Exception {
    Task<Long> t = pool.submit(new Programs.Fib(22));
    assertEquals(Programs.seqFib(22), t.join());
    assertInstanceOf(Long.class, t.get());
  }
}

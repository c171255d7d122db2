package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One rule for a checked exception thrown sneakily by a join's half: every join form rethrows it as
 * itself, the same object, whether the half ran inline in the joining thread or was handed to
 * another worker. The JDK's {@code ForkJoinTask.join} rethrows it as itself too (a copy of the same
 * class, with the original as its cause, when another thread threw it).
 *
 * <p>Each form runs twice: <em>inline</em> (parallelism 1: the second half runs in the joining
 * thread after the first) and <em>handed off</em> (parallelism 2: the first half waits until the
 * second has started on another worker, so the join must take the promoted path). Both pool modes.
 *
 * <p>Planted bugs it catches: the original {@code Task.failure}, which wrapped a checked exception
 * in {@code CompletionException} (the handed-off Scope and Tine joins and every Task join then
 * report the wrapper); and a first-half failure handler that catches only {@code RuntimeException |
 * Error} from the promoted second half's join, which lets the second half's checked exception
 * replace the first half's.
 */
class CheckedExceptionJoinTest {
  static final long BOUND_S = 60;

  @SuppressWarnings("unchecked")
  static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
    throw (E) t;
  }

  /** The two halves of one join, and what they saw. */
  static final class Halves {
    final boolean handOff;
    final IOException secondFailure = new IOException("second half");
    final CountDownLatch secondStarted = new CountDownLatch(1);
    volatile Thread firstThread, secondThread;
    volatile boolean firstTimedOut;

    Halves(boolean handOff) {
      this.handOff = handOff;
    }

    /** Returns 1; when handing off, only once the second half has started elsewhere. */
    long first() {
      firstThread = Thread.currentThread();
      if (handOff) {
        try {
          firstTimedOut = !secondStarted.await(BOUND_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          firstTimedOut = true;
        }
      }
      return 1;
    }

    long second() {
      secondThread = Thread.currentThread();
      secondStarted.countDown();
      throw CheckedExceptionJoinTest.<RuntimeException>sneaky(secondFailure);
    }
  }

  interface Form {
    Object run(Halves h);
  }

  static final List<Arguments> FORMS = new ArrayList<>();

  static void form(String name, Form f) {
    FORMS.add(Arguments.of(name, f));
  }

  static {
    // Scope joins, every argument/result shape
    form(
        "Scope.joinLong(int)",
        h ->
            scope()
                .joinLong(
                    (Scope s, int x) -> h.first(),
                    0,
                    (Scope s, int x) -> h.second(),
                    0,
                    Long::sum));
    form(
        "Scope.joinDouble(int)",
        h ->
            scope()
                .joinDouble(
                    (Scope s, int x) -> h.first(),
                    0,
                    (Scope s, int x) -> (double) h.second(),
                    0,
                    Double::sum));
    form(
        "Scope.join(int)",
        h ->
            scope()
                .join(
                    (Scope s, int x) -> h.first(),
                    0,
                    (Scope s, int x) -> h.second(),
                    0,
                    (a, b) -> a));
    form(
        "Scope.joinLong(long)",
        h ->
            scope()
                .joinLong(
                    (Scope s, long x) -> h.first(),
                    0L,
                    (Scope s, long x) -> h.second(),
                    0L,
                    Long::sum));
    form(
        "Scope.joinDouble(long)",
        h ->
            scope()
                .joinDouble(
                    (Scope s, long x) -> (double) h.first(),
                    0L,
                    (Scope s, long x) -> (double) h.second(),
                    0L,
                    Double::sum));
    form(
        "Scope.join(long)",
        h ->
            scope()
                .join(
                    (Scope s, long x) -> h.first(),
                    0L,
                    (Scope s, long x) -> h.second(),
                    0L,
                    (a, b) -> a));
    form(
        "Scope.joinLong(range)",
        h ->
            scope()
                .joinLong(
                    (Scope s, int lo, int hi) -> h.first(),
                    0,
                    1,
                    (Scope s, int lo, int hi) -> h.second(),
                    1,
                    2,
                    Long::sum));
    form(
        "Scope.joinDouble(range)",
        h ->
            scope()
                .joinDouble(
                    (Scope s, int lo, int hi) -> (double) h.first(),
                    0,
                    1,
                    (Scope s, int lo, int hi) -> (double) h.second(),
                    1,
                    2,
                    Double::sum));
    form(
        "Scope.join(range)",
        h ->
            scope()
                .join(
                    (Scope s, int lo, int hi) -> h.first(),
                    0,
                    1,
                    (Scope s, int lo, int hi) -> h.second(),
                    1,
                    2,
                    (a, b) -> a));
    form(
        "Scope.join(range action)",
        h -> {
          scope().join((s, lo, hi) -> h.first(), 0, 1, (s, lo, hi) -> h.second(), 1, 2);
          return null;
        });
    form(
        "Scope.joinLong(closure)",
        h -> scope().joinLong(s -> h.first(), s -> h.second(), Long::sum));
    form(
        "Scope.joinDouble(closure)",
        h -> scope().joinDouble(s -> (double) h.first(), s -> (double) h.second(), Double::sum));
    form(
        "Scope.join(closure)",
        h -> scope().join((Scope s) -> h.first(), (Scope s) -> h.second(), (a, b) -> a));
    // Tine's static joins
    form(
        "Tine.joinLong(int)", h -> Tine.joinLong(x -> h.first(), 0, x -> h.second(), 0, Long::sum));
    form(
        "Tine.joinLong(supplier)",
        h -> Tine.joinLong(() -> h.first(), () -> h.second(), Long::sum));
    form("Tine.join(supplier)", h -> Tine.join(() -> h.first(), () -> h.second(), (a, b) -> a));
    form(
        "Tine.join(runnable)",
        h -> {
          Tine.join(() -> h.first(), () -> h.second());
          return null;
        });
    // Tasks
    form(
        "Task.fork/join",
        h -> {
          Task<Long> b = Task.of(h::second);
          b.fork();
          h.first();
          return b.join();
        });
    form(
        "Task.invokeAll(a, b)",
        h -> {
          Task.invokeAll(Task.of(h::first), Task.of(h::second));
          return null;
        });
    form(
        "Task.invokeAll(a, b, c)",
        h -> {
          Task.invokeAll(Task.of(h::first), Task.of(h::second), Task.of(() -> 3L));
          return null;
        });
  }

  static Scope scope() {
    return Scope.current();
  }

  static Stream<Arguments> formsAndModes() {
    List<Arguments> a = new ArrayList<>();
    for (Arguments f : FORMS) {
      for (boolean eager : new boolean[] {false, true}) {
        a.add(Arguments.of(f.get()[0], f.get()[1], eager));
      }
    }
    return a.stream();
  }

  @ParameterizedTest(name = "{0} eager={2}")
  @MethodSource("formsAndModes")
  void aSneakyCheckedExceptionArrivesAsItselfWhenTheHalfRanInline(
      String name, Form form, boolean eager) throws Exception {
    Halves h = new Halves(false);
    Throwable got = runInPool(1, eager, form, h);
    assertSame(h.firstThread, h.secondThread, name + ": the second half ran inline");
    assertSame(h.secondFailure, got, name + " inline: " + got);
  }

  @ParameterizedTest(name = "{0} eager={2}")
  @MethodSource("formsAndModes")
  void aSneakyCheckedExceptionArrivesAsItselfWhenTheHalfWasHandedOff(
      String name, Form form, boolean eager) throws Exception {
    Halves h = new Halves(true);
    Throwable got = runInPool(2, eager, form, h);
    assertTrue(!h.firstTimedOut, name + ": the second half never started on another worker");
    assertNotNull(h.secondThread, name);
    assertNotSame(h.firstThread, h.secondThread, name + ": the second half ran elsewhere");
    assertSame(h.secondFailure, got, name + " handed off: " + got);
  }

  /**
   * Both halves throw, the second on another worker and first: the first half's exception is the
   * one reported (the second's, checked, must not escape the wait for it).
   */
  @ParameterizedTest(name = "eager={0}")
  @MethodSource("eagerModes")
  void theFirstHalfsExceptionWinsOverAHandedOffSecondHalfsCheckedOne(boolean eager)
      throws Exception {
    List<Form> both = new ArrayList<>();
    IOException firstFailure = new IOException("first half");
    both.add(h ->
        scope()
            .joinLong(
                (Scope s, int x) -> {
                  h.first();
                  throw CheckedExceptionJoinTest.<RuntimeException>sneaky(firstFailure);
                },
                0,
                (Scope s, int x) -> h.second(),
                0,
                Long::sum));
    both.add(h ->
        Tine.joinLong(
            x -> {
              h.first();
              throw CheckedExceptionJoinTest.<RuntimeException>sneaky(firstFailure);
            },
            0,
            x -> h.second(),
            0,
            Long::sum));
    both.add(h ->
        Tine.join(
            () -> {
              h.first();
              throw CheckedExceptionJoinTest.<RuntimeException>sneaky(firstFailure);
            },
            () -> h.second(),
            (a, b) -> a));
    for (Form f : both) {
      Halves h = new Halves(true);
      Throwable got = runInPool(2, eager, f, h);
      assertTrue(!h.firstTimedOut, "the second half never started on another worker");
      assertSame(firstFailure, got, "reported: " + got);
    }
  }

  static Stream<Arguments> eagerModes() {
    return Stream.of(Arguments.of(false), Arguments.of(true));
  }

  /**
   * Outside a pool: invoke and join hand the task to a worker; the exception arrives as itself,
   * except that the pool's own {@code invoke} wraps it as the JDK's does (next test).
   */
  @Test
  void invokeAndJoinFromOutsideRethrowTheSameObject() throws Exception {
    IOException io = new IOException("outside");
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      assertSame(
          io,
          assertThrows(
                  RuntimeException.class,
                  () ->
                      pool.invoke(
                          Task.of(() -> {
                            throw CheckedExceptionJoinTest.<RuntimeException>sneaky(io);
                          })))
              .getCause());
      assertSame(
          io,
          assertThrows(
              IOException.class,
              () ->
                  pool.invoke(s -> {
                    throw CheckedExceptionJoinTest.<RuntimeException>sneaky(io);
                  })));
      Task<Object> t =
          pool.submit(
              Task.of(() -> {
                throw CheckedExceptionJoinTest.<RuntimeException>sneaky(io);
              }));
      assertSame(io, assertThrows(IOException.class, t::join));
      // get keeps the Future contract: the cause of an ExecutionException
      ExecutionException ee =
          assertThrows(ExecutionException.class, () -> t.get(BOUND_S, TimeUnit.SECONDS));
      assertSame(io, ee.getCause());
    }
  }

  /**
   * The JDK, same shapes: join and invokeAll rethrow the checked exception as its own class (the
   * original, or a copy with the original as cause when another thread threw it), both when the
   * task ran in the joining thread and when it was stolen.
   */
  @ParameterizedTest(name = "handOff={0}")
  @MethodSource("eagerModes")
  void theJdkRethrowsACheckedExceptionAsItsOwnClass(boolean handOff) throws Exception {
    ForkJoinPool jdk = new ForkJoinPool(handOff ? 2 : 1);
    try {
      for (int shape = 0; shape < 2; shape++) {
        Halves h = new Halves(handOff);
        int sh = shape;
        Throwable got =
            within(
                jdk,
                () -> {
                  RecursiveTask<Long> second =
                      new RecursiveTask<>() {
                        @Override
                        protected Long compute() {
                          return h.second();
                        }
                      };
                  RecursiveTask<Long> first =
                      new RecursiveTask<>() {
                        @Override
                        protected Long compute() {
                          return h.first();
                        }
                      };
                  try {
                    if (sh == 0) {
                      second.fork();
                      h.first();
                      second.join();
                    } else {
                      ForkJoinTask.invokeAll(first, second);
                    }
                    return null;
                  } catch (Throwable e) {
                    return e;
                  }
                });
        assertTrue(!h.firstTimedOut, "the JDK's second half never started on another worker");
        assertNotNull(got, "shape " + shape);
        assertEquals(IOException.class, got.getClass(), "shape " + shape + ": " + got);
        assertTrue(
            got == h.secondFailure || got.getCause() == h.secondFailure,
            "shape " + shape + ": " + got);
      }
    } finally {
      jdk.shutdownNow();
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** Runs the form as a task of a fresh pool and returns what it threw (null if nothing). */
  static Throwable runInPool(int p, boolean eager, Form form, Halves h) throws Exception {
    WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(p).eagerForks(eager).registerMXBean(false).build();
    boolean ok = false;
    try {
      Throwable got =
          within(
              pool,
              () -> {
                try {
                  form.run(h);
                  return null;
                } catch (Throwable e) {
                  return e;
                }
              });
      ok = true;
      return got;
    } finally {
      if (ok) {
        pool.close();
      } else {
        Thread.ofPlatform().daemon().start(pool::shutdownNow);
      }
    }
  }

  static <T> T within(ExecutorService executor, Callable<T> c) throws Exception {
    Future<T> f = executor.submit(c);
    try {
      return f.get(BOUND_S, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("did not return within " + BOUND_S + " s", e);
    }
  }

  /**
   * The pool's own {@code invoke}: the JDK's {@code ForkJoinPool.invoke} wraps a sneaky checked
   * exception in a {@code RuntimeException} (its {@code join} and {@code ForkJoinTask.invoke} do
   * not), from outside the pool and from one of its workers; Tine's {@code WorkStealingPool.invoke}
   * does the same. Found by the differential fuzzer (Tine rethrew it as itself).
   */
  @Test
  void poolInvokeWrapsACheckedExceptionAsTheJdksDoes() throws Exception {
    IOException thrown = new IOException("from compute");
    ForkJoinPool jdk = new ForkJoinPool(2);
    try (WorkStealingPool tine = WorkStealingPool.builder().parallelism(2).build()) {
      RuntimeException jdkOutside =
          assertThrows(
              RuntimeException.class,
              () ->
                  jdk.invoke(
                      new RecursiveTask<Integer>() {
                        @Override
                        protected Integer compute() {
                          throw sneaky(thrown);
                        }
                      }));
      RuntimeException tineOutside =
          assertThrows(
              RuntimeException.class,
              () ->
                  tine.invoke(
                      Task.<Integer>of(() -> {
                        throw sneaky(thrown);
                      })));
      // The JDK's cause is a copy made in the invoking thread (same class); Tine's is the object.
      assertEquals(RuntimeException.class, jdkOutside.getClass());
      assertEquals(IOException.class, jdkOutside.getCause().getClass());
      assertEquals(RuntimeException.class, tineOutside.getClass());
      assertSame(thrown, tineOutside.getCause());
      Throwable tineInside =
          tine.submit(
                  (Callable<Throwable>)
                      () -> {
                        try {
                          tine.invoke(
                              Task.<Integer>of(() -> {
                                throw sneaky(thrown);
                              }));
                          return null;
                        } catch (Throwable e) {
                          return e;
                        }
                      })
              .get(BOUND_S, TimeUnit.SECONDS);
      assertEquals(RuntimeException.class, tineInside.getClass());
      assertSame(thrown, tineInside.getCause());
      // Task.invoke and join are joins: the object itself, on both.
      assertSame(
          thrown, assertThrows(IOException.class, () -> Task.of(() -> sneaky(thrown)).invoke()));
    } finally {
      jdk.shutdownNow();
    }
  }
}

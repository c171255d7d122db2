package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tine.JoinShapes.Arg;
import dev.tine.JoinShapes.Form;
import dev.tine.JoinShapes.Result;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every join shape of the {@link JoinShapes} table (Scope's thirteen and Tine's four), in a latent
 * and an eager pool: when the first half throws while the second half runs on another worker, the
 * join waits for the second half to finish and then throws the first half's exception, the same
 * object. (The JDK's {@code ForkJoinTask.invokeAll(a, b)} likewise reports the first failure it
 * sees, but it cancels the other half; a join here never returns while a half it forked may still
 * run, so that nothing the first half's caller owns is touched after the join is gone.)
 *
 * <p>The first half waits (10 s at most) until the second has started elsewhere: taken from the
 * deque in an eager pool; promoted, or claimed while the owner waits, in a latent one. The second
 * half then lingers 50 ms before it records that it finished, so a join that does not wait throws
 * before that record.
 *
 * <p>Planted bugs it catches: {@code LatentJoins.firstHalfThrew(PromotedJob)} not joining (every
 * eager case fails: "the join threw while its second half was still running"); {@code
 * LatentJoins.firstHalfThrew(Scope, int)} returning at once (every latent case fails the same way).
 */
class FirstHalfThrewTest {

  /** The two halves of one join and what they saw. */
  static final class Halves {
    final RuntimeException firstFailure = new IllegalStateException("the first half's failure");
    final CountDownLatch secondStarted = new CountDownLatch(1);
    volatile Thread firstThread, secondThread;
    volatile boolean secondFinished;

    long first() {
      firstThread = Thread.currentThread();
      try {
        secondStarted.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw firstFailure;
    }

    long second() {
      secondThread = Thread.currentThread();
      secondStarted.countDown();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
      secondFinished = true;
      return 1;
    }
  }

  /** One join shape, called from inside a task with {@code h}'s halves. */
  interface Shape {
    void join(Halves h);
  }

  private static Scope s() {
    return Scope.current();
  }

  static Stream<Arguments> shapes() {
    Map<String, Shape> callers = new LinkedHashMap<>();
    // Scope: int, long, range, closure arguments x long, double, object (and none for ranges).
    add(
        callers,
        Form.SCOPE,
        Arg.INT,
        Result.LONG,
        h ->
            s().joinLong(
                    (Scope t, int x) -> h.first(),
                    0,
                    (Scope t, int x) -> h.second(),
                    0,
                    Long::sum));
    add(
        callers,
        Form.SCOPE,
        Arg.INT,
        Result.DOUBLE,
        h ->
            s().joinDouble(
                    (Scope t, int x) -> h.first(),
                    0,
                    (Scope t, int x) -> h.second(),
                    0,
                    Double::sum));
    add(
        callers,
        Form.SCOPE,
        Arg.INT,
        Result.OBJECT,
        h ->
            s().join(
                    (Scope t, int x) -> (Long) h.first(),
                    0,
                    (Scope t, int x) -> (Long) h.second(),
                    0,
                    Long::sum));
    add(
        callers,
        Form.SCOPE,
        Arg.LONG,
        Result.LONG,
        h ->
            s().joinLong(
                    (Scope t, long x) -> h.first(),
                    0L,
                    (Scope t, long x) -> h.second(),
                    0L,
                    Long::sum));
    add(
        callers,
        Form.SCOPE,
        Arg.LONG,
        Result.DOUBLE,
        h ->
            s().joinDouble(
                    (Scope t, long x) -> h.first(),
                    0L,
                    (Scope t, long x) -> h.second(),
                    0L,
                    Double::sum));
    add(
        callers,
        Form.SCOPE,
        Arg.LONG,
        Result.OBJECT,
        h ->
            s().join(
                    (Scope t, long x) -> (Long) h.first(),
                    0L,
                    (Scope t, long x) -> (Long) h.second(),
                    0L,
                    Long::sum));
    add(
        callers,
        Form.SCOPE,
        Arg.RANGE,
        Result.LONG,
        h ->
            s().joinLong(
                    (Scope t, int lo, int hi) -> h.first(),
                    0,
                    1,
                    (Scope t, int lo, int hi) -> h.second(),
                    1,
                    2,
                    Long::sum));
    add(
        callers,
        Form.SCOPE,
        Arg.RANGE,
        Result.DOUBLE,
        h ->
            s().joinDouble(
                    (Scope t, int lo, int hi) -> h.first(),
                    0,
                    1,
                    (Scope t, int lo, int hi) -> h.second(),
                    1,
                    2,
                    Double::sum));
    add(
        callers,
        Form.SCOPE,
        Arg.RANGE,
        Result.OBJECT,
        h ->
            s().join(
                    (Scope t, int lo, int hi) -> (Long) h.first(),
                    0,
                    1,
                    (Scope t, int lo, int hi) -> (Long) h.second(),
                    1,
                    2,
                    Long::sum));
    add(
        callers,
        Form.SCOPE,
        Arg.RANGE,
        Result.VOID,
        h ->
            s().join(
                    (Scope.RangeAction) (t, lo, hi) -> h.first(),
                    0,
                    1,
                    (Scope.RangeAction) (t, lo, hi) -> h.second(),
                    1,
                    2));
    add(
        callers,
        Form.SCOPE,
        Arg.NONE,
        Result.LONG,
        h -> s().joinLong((Scope t) -> h.first(), (Scope t) -> h.second(), Long::sum));
    add(
        callers,
        Form.SCOPE,
        Arg.NONE,
        Result.DOUBLE,
        h -> s().joinDouble((Scope t) -> h.first(), (Scope t) -> h.second(), Double::sum));
    add(
        callers,
        Form.SCOPE,
        Arg.NONE,
        Result.OBJECT,
        h -> s().join((Scope t) -> (Long) h.first(), (Scope t) -> (Long) h.second(), Long::sum));
    // Tine: int -> long, and closures -> long, object, none.
    add(
        callers,
        Form.TINE,
        Arg.INT,
        Result.LONG,
        h -> Tine.joinLong((int x) -> h.first(), 0, (int x) -> h.second(), 0, Long::sum));
    add(
        callers,
        Form.TINE,
        Arg.NONE,
        Result.LONG,
        h -> Tine.joinLong(h::first, h::second, Long::sum));
    add(
        callers,
        Form.TINE,
        Arg.NONE,
        Result.OBJECT,
        h -> Tine.join(() -> (Long) h.first(), () -> (Long) h.second(), Long::sum));
    add(
        callers,
        Form.TINE,
        Arg.NONE,
        Result.VOID,
        h -> Tine.join(() -> h.first(), () -> h.second()));
    // The table drives the cases: a shape in it without a join written here fails, and so does a
    // join written here for a shape the table does not have.
    List<Object[]> cases = new ArrayList<>();
    for (JoinShapes.Shape t : JoinShapes.SHAPES) {
      String key = key(t.form(), t.arg(), t.result());
      Shape shape = callers.remove(key);
      cases.add(new Object[] {shape != null ? key : key + ": in JoinShapes, no join here", shape});
    }
    for (String key : callers.keySet()) {
      cases.add(new Object[] {key + ": a join here, not in JoinShapes", null});
    }
    List<Arguments> a = new ArrayList<>();
    for (boolean eager : new boolean[] {false, true}) {
      for (Object[] c : cases) {
        a.add(Arguments.of(c[0], c[1], eager));
      }
    }
    return a.stream();
  }

  private static String key(Form form, Arg arg, Result result) {
    return form + " " + arg + "->" + result;
  }

  private static void add(
      Map<String, Shape> callers, Form form, Arg arg, Result result, Shape shape) {
    callers.put(key(form, arg, result), shape);
  }

  @ParameterizedTest(name = "{0}, eager={2}")
  @MethodSource("shapes")
  void theJoinWaitsForTheSecondHalfAndReportsTheFirstHalfsException(
      String name, Shape shape, boolean eager) throws Exception {
    if (shape == null) {
      fail(name);
    }
    Halves h = new Halves();
    // What the join threw, and whether the second half had finished when it did.
    Object[] seen = new Object[2];
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(2).eagerForks(eager).registerMXBean(false).build()) {
      pool.invoke(
          Task.of(() -> {
            try {
              shape.join(h);
            } catch (Throwable e) {
              seen[0] = e;
              seen[1] = h.secondFinished;
            }
            return null;
          }));
    }
    assertEquals(
        0,
        h.secondStarted.getCount(),
        name + ": the second half never started on the other worker within 10 s");
    assertNotSame(h.firstThread, h.secondThread, name + ": the second half ran elsewhere");
    assertSame(h.firstFailure, seen[0], name + ": the first half's exception, as itself");
    assertTrue(
        (Boolean) seen[1], name + ": the join threw while its second half was still running");
  }
}

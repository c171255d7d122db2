package dev.tine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The scope-passing join: exact results for every argument and result shape against sequential
 * code, under stealing (several workers, both fork modes); exceptions; a scope used from the wrong
 * thread; blocking inside scope code.
 */
@Timeout(60)
class ScopeTest {

  static long fibSeq(int n) {
    return n < 2 ? n : fibSeq(n - 1) + fibSeq(n - 2);
  }

  static long fib(Scope s, int n) {
    return n < 2 ? n : s.joinLong(ScopeTest::fib, n - 1, ScopeTest::fib, n - 2, Long::sum);
  }

  static long fibL(Scope s, long n) {
    return n < 2 ? n : s.joinLong(ScopeTest::fibL, n - 1, ScopeTest::fibL, n - 2, Long::sum);
  }

  static double fibD(Scope s, int n) {
    return n < 2 ? n : s.joinDouble(ScopeTest::fibD, n - 1, ScopeTest::fibD, n - 2, Double::sum);
  }

  static double fibDL(Scope s, long n) {
    return n < 2 ? n : s.joinDouble(ScopeTest::fibDL, n - 1, ScopeTest::fibDL, n - 2, Double::sum);
  }

  static final long[] DATA = new Random(7).longs(100_000, 0, 1000).toArray();

  static long sum(Scope s, int lo, int hi) {
    if (hi - lo <= 16) {
      long r = 0;
      for (int i = lo; i < hi; i++) r += DATA[i];
      return r;
    }
    int mid = (lo + hi) >>> 1;
    return s.joinLong(ScopeTest::sum, lo, mid, ScopeTest::sum, mid, hi, Long::sum);
  }

  static double sumD(Scope s, int lo, int hi) {
    if (hi - lo <= 16) {
      double r = 0;
      for (int i = lo; i < hi; i++) r += DATA[i];
      return r;
    }
    int mid = (lo + hi) >>> 1;
    return s.joinDouble(ScopeTest::sumD, lo, mid, ScopeTest::sumD, mid, hi, Double::sum);
  }

  static List<Integer> collect(Scope s, int lo, int hi) {
    if (hi - lo == 1) return List.of(lo);
    int mid = (lo + hi) >>> 1;
    return s.join(ScopeTest::collect, lo, mid, ScopeTest::collect, mid, hi, ScopeTest::concat);
  }

  static String digits(Scope s, int n) {
    return n < 10
        ? Integer.toString(n)
        : s.join(ScopeTest::digits, n / 10, ScopeTest::digits, n % 10, String::concat);
  }

  static String digitsL(Scope s, long n) {
    return n < 10
        ? Long.toString(n)
        : s.join(ScopeTest::digitsL, n / 10, ScopeTest::digitsL, n % 10, String::concat);
  }

  static double f(double x) {
    return x * x * x - 2 * x + Math.sin(x);
  }

  static double areaSeq(double l, double r, double fl, double fr, double a) {
    double c = (l + r) * 0.5,
        fc = f(c),
        al = (fl + fc) * (c - l) * 0.5,
        ar = (fc + fr) * (r - c) * 0.5;
    if (Math.abs(al + ar - a) <= 1e-9) return al + ar;
    return areaSeq(l, c, fl, fc, al) + areaSeq(c, r, fc, fr, ar);
  }

  /** Adaptive quadrature with closures: five doubles per half. */
  static double area(Scope s, double l, double r, double fl, double fr, double a) {
    double c = (l + r) * 0.5,
        fc = f(c),
        al = (fl + fc) * (c - l) * 0.5,
        ar = (fc + fr) * (r - c) * 0.5;
    if (Math.abs(al + ar - a) <= 1e-9) return al + ar;
    return s.joinDouble(
        t -> area(t, l, c, fl, fc, al), t -> area(t, c, r, fc, fr, ar), Double::sum);
  }

  static long countClosure(Scope s, long lo, long hi) {
    if (hi - lo <= 2) return hi - lo;
    long mid = (lo + hi) >>> 1;
    return s.joinLong(t -> countClosure(t, lo, mid), t -> countClosure(t, mid, hi), Long::sum);
  }

  static List<Long> listClosure(Scope s, long lo, long hi) {
    if (hi - lo == 1) return List.of(lo);
    long mid = (lo + hi) >>> 1;
    return s.join(t -> listClosure(t, lo, mid), t -> listClosure(t, mid, hi), ScopeTest::concat);
  }

  @ParameterizedTest(name = "parallelism {0}, eager {1}")
  @CsvSource({"1,false", "2,false", "4,false", "2,true"})
  void closureHalvesGiveTheSequentialResult(int p, boolean eager) {
    try (WorkStealingPool pool = pool(p, eager)) {
      double expect = areaSeq(-3, 4, f(-3), f(4), (f(-3) + f(4)) * 7 * 0.5);
      for (int round = 0; round < 3; round++) {
        double got = pool.invoke(s -> area(s, -3, 4, f(-3), f(4), (f(-3) + f(4)) * 7 * 0.5));
        assertEquals(Double.doubleToLongBits(expect), Double.doubleToLongBits(got), "bit for bit");
        assertEquals((Object) 1_000_000L, pool.invoke(s -> countClosure(s, 0, 1_000_000)));
        List<Long> l = pool.invoke(s -> listClosure(s, 0, 3000));
        for (int i = 0; i < 3000; i++) assertEquals((long) i, l.get(i));
      }
    }
  }

  static <T> List<T> concat(List<? extends T> a, List<? extends T> b) {
    List<T> r = new ArrayList<>(a);
    r.addAll(b);
    return r;
  }

  static int[] sortData;

  static void quicksort(Scope s, int lo, int hi) {
    int[] a = sortData;
    if (hi - lo <= 32) {
      Arrays.sort(a, lo, hi);
      return;
    }
    int p = a[(lo + hi) >>> 1], i = lo, j = hi - 1;
    while (i <= j) {
      while (a[i] < p) i++;
      while (a[j] > p) j--;
      if (i <= j) {
        int t = a[i];
        a[i++] = a[j];
        a[j--] = t;
      }
    }
    s.join(ScopeTest::quicksort, lo, j + 1, ScopeTest::quicksort, i, hi);
  }

  static WorkStealingPool pool(int p, boolean eager) {
    return WorkStealingPool.builder().parallelism(p).eagerForks(eager).build();
  }

  @ParameterizedTest(name = "parallelism {0}, eager {1}")
  @CsvSource({"1,false", "2,false", "4,false", "2,true"})
  void everyShapeGivesTheSequentialResult(int p, boolean eager) {
    try (WorkStealingPool pool = pool(p, eager)) {
      for (int round = 0; round < 3; round++) {
        assertEquals((Object) fibSeq(24), pool.invoke(s -> fib(s, 24)));
        assertEquals((Object) fibSeq(22), pool.invoke(s -> fibL(s, 22L)));
        assertEquals((Object) (double) fibSeq(22), pool.invoke(s -> fibD(s, 22)));
        assertEquals((Object) (double) fibSeq(20), pool.invoke(s -> fibDL(s, 20L)));
        long expect = Arrays.stream(DATA).sum();
        assertEquals((Object) expect, pool.invoke(s -> sum(s, 0, DATA.length)));
        assertEquals((double) expect, pool.invoke(s -> sumD(s, 0, DATA.length)));
        List<Integer> c = pool.invoke(s -> collect(s, 0, 5000));
        for (int i = 0; i < 5000; i++) assertEquals(i, c.get(i));
        assertEquals("123456789", pool.invoke(s -> digits(s, 123456789)));
        assertEquals("1234567890123", pool.invoke(s -> digitsL(s, 1234567890123L)));
      }
    }
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2, 4})
  void rangeActionSorts(int p) {
    try (WorkStealingPool pool = pool(p, false)) {
      int[] a = new Random(p).ints(200_000).toArray();
      int[] expect = a.clone();
      Arrays.sort(expect);
      sortData = a;
      pool.invoke(s -> {
        quicksort(s, 0, a.length);
        return null;
      });
      assertArrayEquals(expect, a);
    }
  }

  @Test
  void promotedHalvesRunElsewhereAndStillGiveExactResults() {
    // Long leaves make the other workers hungry while the owner is inside a join, so halves
    // are promoted and stolen; the sum must still be exact and each leaf must run exactly once.
    try (WorkStealingPool pool = pool(4, false)) {
      AtomicIntegerArray runs = new AtomicIntegerArray(256);
      Scope.RangeToLong[] leafy = new Scope.RangeToLong[1];
      leafy[0] =
          (s, lo, hi) -> {
            if (hi - lo == 1) {
              runs.incrementAndGet(lo);
              long x = 0;
              for (int i = 0; i < 20_000; i++) x += (i ^ lo) & 1;
              return lo + (x - x);
            }
            int mid = (lo + hi) >>> 1;
            return s.joinLong(leafy[0], lo, mid, leafy[0], mid, hi, Long::sum);
          };
      for (int round = 0; round < 20; round++) {
        assertEquals((Object) (255L * 256 / 2), pool.invoke(s -> leafy[0].apply(s, 0, 256)));
      }
      for (int i = 0; i < 256; i++) assertEquals(20, runs.get(i), "leaf " + i);
      assertTrue(
          pool.stats().promotions() > 0, "nothing was promoted: the test did not test stealing");
    }
  }

  static final class Boom extends RuntimeException {
    Boom(String m) {
      super(m);
    }
  }

  @ParameterizedTest(name = "parallelism {0}, eager {1}")
  @CsvSource({"1,false", "2,false", "1,true", "2,true"})
  void exceptionsReachTheJoinerAsTheSameObject(int p, boolean eager) {
    try (WorkStealingPool pool = pool(p, eager)) {
      Boom first = new Boom("first"), second = new Boom("second");
      AtomicInteger secondRan = new AtomicInteger();
      Scope.IntToLong throwsFirst =
          (s, x) -> {
            throw first;
          };
      Scope.IntToLong throwsSecond =
          (s, x) -> {
            secondRan.incrementAndGet();
            throw second;
          };
      Scope.IntToLong ok = (s, x) -> x;
      Boom e1 =
          assertThrows(
              Boom.class, () -> pool.invoke(s -> s.joinLong(throwsFirst, 1, ok, 2, Long::sum)));
      assertSame(first, e1);
      Boom e2 =
          assertThrows(
              Boom.class, () -> pool.invoke(s -> s.joinLong(ok, 1, throwsSecond, 2, Long::sum)));
      assertSame(second, e2);
      // Both throw: the first half's exception. At parallelism 1 the latent second half is
      // dropped, not run; above 1 the first fork stocks the empty deque (it is promoted), so it
      // may run, and the join waits for it: it has run at most once, and not after invoke returned.
      secondRan.set(0);
      Boom e3 =
          assertThrows(
              Boom.class,
              () -> pool.invoke(s -> s.joinLong(throwsFirst, 1, throwsSecond, 2, Long::sum)));
      assertSame(first, e3);
      int ran = secondRan.get();
      assertTrue(p == 1 && !eager ? ran == 0 : ran <= 1, "second half ran " + ran + " times");
      Thread.onSpinWait();
      assertEquals(ran, secondRan.get(), "the second half ran after the join returned");
      // The pool is still usable, and the latent stack was left clean.
      assertEquals((Object) fibSeq(20), pool.invoke(s -> fib(s, 20)));
    }
  }

  private static Throwable rootOf(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  @Test
  void aScopeUsedFromAnotherThreadThrows() throws Exception {
    try (WorkStealingPool pool = pool(2, false)) {
      AtomicReference<Scope> escaped = new AtomicReference<>();
      pool.invoke(s -> {
        escaped.set(s);
        return fib(s, 10);
      });
      AtomicReference<Throwable> seen = new AtomicReference<>();
      Thread t =
          new Thread(() -> {
            try {
              fib(escaped.get(), 20);
            } catch (Throwable e) {
              seen.set(e);
            }
          });
      t.start();
      t.join();
      assertTrue(seen.get() instanceof IllegalStateException, "got " + seen.get());
      assertTrue(seen.get().getMessage().contains("belongs to worker"), seen.get().getMessage());
      // The owner's stack is unharmed.
      assertEquals((Object) fibSeq(22), pool.invoke(s -> fib(s, 22)));
      // Scope.current() off a worker: a clear error too.
      assertThrows(IllegalStateException.class, Scope::current);
    }
  }

  /**
   * A join whose second half is a new closure never finds it in a slot, so its push takes the slow
   * path even while the owner is inside a join: the owner check must come before that push records
   * anything. Before the check was moved to the top of {@code LatentJoins.forkSlow}, the other
   * thread's closure half was recorded on the owner's stack and its join ran to the end.
   */
  @Test
  @Timeout(60)
  void anEscapedScopesClosureJoinThrowsBeforeItRecordsAnything() throws Exception {
    try (WorkStealingPool pool = pool(1, false)) {
      AtomicReference<Throwable> seen = new AtomicReference<>();
      AtomicReference<Long> otherResult = new AtomicReference<>();
      Scope.IntToLong handsItOver =
          (s, x) -> {
            long k = x; // captured: each join below makes new closures
            Thread t =
                new Thread(() -> {
                  try {
                    otherResult.set(s.joinLong(u -> k, u -> k + 1, Long::sum));
                  } catch (Throwable e) {
                    seen.set(e);
                  }
                });
            t.start();
            while (t.isAlive()) {
              Thread.onSpinWait(); // RUNNABLE: nothing claims from a running owner
            }
            return x;
          };
      long r = pool.invoke(s -> s.joinLong(handsItOver, 1, ScopeTest::fib, 15, Long::sum));
      assertEquals(1 + fibSeq(15), r);
      assertTrue(
          seen.get() instanceof IllegalStateException,
          "got " + seen.get() + ", result " + otherResult.get());
      assertEquals((Object) fibSeq(22), pool.invoke(s -> fib(s, 22)));
    }
  }

  @Test
  void aScopeThatEscapesIntoAnotherPoolsWorkerThrows() {
    try (WorkStealingPool a = pool(1, false);
        WorkStealingPool b = pool(1, false)) {
      Throwable e =
          assertThrows(Throwable.class, () -> a.invoke(sa -> b.invoke(sb -> fib(sa, 15))));
      assertTrue(rootOf(e) instanceof IllegalStateException, "got " + e);
      assertEquals((Object) fibSeq(15), a.invoke(s -> fib(s, 15)));
    }
  }

  @Test
  void forkThenBlockDoesNotDeadlock() throws Exception {
    // The owner forks (latent), then blocks in a latch that only the forked half counts down:
    // an idle worker claims the latent half from the blocked owner (as for Task forks).
    try (WorkStealingPool pool = pool(2, false)) {
      for (int round = 0; round < 20; round++) {
        CountDownLatch latch = new CountDownLatch(1);
        Scope.IntToLong waits =
            (s, x) -> {
              try {
                assertTrue(latch.await(20, TimeUnit.SECONDS), "the forked half never ran");
              } catch (InterruptedException e) {
                throw new AssertionError(e);
              }
              return x;
            };
        Scope.IntToLong counts =
            (s, x) -> {
              latch.countDown();
              return x;
            };
        assertEquals((Object) 3L, pool.invoke(s -> s.joinLong(waits, 1, counts, 2, Long::sum)));
      }
    }
  }

  /** A user's class that is two join functions at once (the two methods are overloads). */
  static final class IntAndLong implements Scope.IntToLong, Scope.LongToLong {
    @Override
    public long apply(Scope s, int x) {
      return x;
    }

    @Override
    public long apply(Scope s, long x) {
      return -x;
    }
  }

  /**
   * A join records its second half with the kind of the interface it was passed as, and a promoter
   * calls that interface. The fast push trusts the kind stored with a raw function, so an object
   * with two join interfaces must never sit in a slot raw: here it is pushed as a {@code
   * LongToLong} and then, at the same slot, as an {@code IntToLong}; what a promoter would make of
   * the second entry must call the {@code int} version. (With the object stored raw, the second
   * push takes the fast path and the entry keeps the first kind: the promoted half returns -5.)
   */
  @Test
  void aFunctionWithTwoJoinInterfacesIsPromotedAsTheOneItWasPassedAs() {
    IntAndLong both = new IntAndLong();
    long[] promoted = {Long.MIN_VALUE};
    Scope.IntToLong inspect =
        (s, x) -> {
          int slot = s.top() - 1; // the second join's entry, the newest latent one
          PromotedJob job = new PromotedJob(s.item(slot), s.arg(slot), s.kind(slot));
          job.compute(); // what a thief would run had it been promoted
          promoted[0] = job.longResult;
          return 0;
        };
    Scope.LongToLong id = (s, y) -> y;
    Scope.IntToLong inner =
        (s, x) ->
            s.joinLong(id, 1L, (Scope.LongToLong) both, 2L, Long::sum)
                + s.joinLong(inspect, 0, (Scope.IntToLong) both, 5, Long::sum);
    Scope.IntToLong zero = (s, x) -> 0L;
    try (WorkStealingPool pool = pool(1, false)) {
      long r = pool.invoke(s -> s.joinLong(inner, 0, zero, 0, Long::sum));
      assertEquals(1 - 2 + 0 + 5, r);
      assertEquals(5, promoted[0], "the entry would have been promoted as a LongToLong");
    }
  }

  /**
   * The latent stack tells a task entry from a function entry by whether the item is a {@code Task}
   * (a task push stores no kind). A user's task class that is also a join function must therefore
   * be recorded wrapped when it is passed as a function: raw, a promoter would take the entry for a
   * task and run its {@code compute()} instead of the function (the promoted half returns -1 here).
   */
  @Test
  void aTaskPassedAsAJoinFunctionIsPromotedAsTheFunction() {
    TaskAndFunction both = new TaskAndFunction();
    long[] promoted = {Long.MIN_VALUE};
    Scope.IntToLong inspect =
        (s, x) -> {
          int slot = s.top() - 1; // the join's entry, the newest latent one
          // What promotions and claims make of an entry: the task itself, or a job for a function.
          int kind = s.kind(slot);
          if (kind == LatentStack.KIND_TASK) {
            promoted[0] = ((TaskAndFunction) s.item(slot)).compute();
          } else {
            PromotedJob job = new PromotedJob(s.item(slot), s.arg(slot), kind);
            job.compute(); // what a thief would run had it been promoted
            promoted[0] = job.longResult;
          }
          return 0;
        };
    try (WorkStealingPool pool = pool(1, false)) {
      long r = pool.invoke(s -> s.joinLong(inspect, 0, both, 5, Long::sum));
      assertEquals(50, r);
      assertEquals(50, promoted[0], "the entry would have been promoted as the task itself");
    }
  }

  static final class TaskAndFunction extends Task<Long> implements Scope.IntToLong {
    @Override
    protected Long compute() {
      return -1L;
    }

    @Override
    public long apply(Scope s, int x) {
      return 10L * x;
    }
  }

  /**
   * A scope pop leaves its function in the slot, for the next push there to skip the store. A
   * closure half and what it captures must not stay reachable from the worker once it is idle (with
   * the functions left in place, the payload below stays reachable for the pool's life).
   */
  @Test
  void aClosureHalfIsNotKeptAliveByAnIdleWorker() throws Exception {
    try (WorkStealingPool pool = pool(1, false)) {
      WeakReference<byte[]> payload = runClosureJoins(pool);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (payload.get() != null && System.nanoTime() < deadline) {
        System.gc();
        Thread.sleep(20);
      }
      assertTrue(payload.get() == null, "the idle worker still holds the closure's payload");
    }
  }

  /** Joins whose second halves capture a payload; returns a weak reference to it. */
  private static WeakReference<byte[]> runClosureJoins(WorkStealingPool pool) {
    byte[] data = new byte[1 << 20];
    data[7] = 7;
    Scope.ToLong second = t -> data[7];
    Scope.IntToLong inner = (s, x) -> s.joinLong(t -> 1L, second, Long::sum);
    Scope.IntToLong zero = (s, x) -> 0L;
    assertEquals((Object) 8L, pool.invoke(s -> s.joinLong(inner, 0, zero, 0, Long::sum)));
    return new WeakReference<>(data);
  }

  /**
   * A null second half is a {@code NullPointerException} at the join, before the first half runs
   * and before anything is recorded. An empty slot holds null with a stale kind, so a fast push
   * that matched null would record the half as a task entry: the first half would run and the
   * failure would surface later, elsewhere (an {@code IllegalStateException} from a helping join).
   */
  @Test
  void aNullSecondHalfIsANullPointerExceptionBeforeTheFirstHalfRuns() {
    AtomicInteger firstRan = new AtomicInteger();
    Scope.IntToLong first =
        (s, x) -> {
          firstRan.incrementAndGet();
          return 0;
        };
    Scope.IntToLong inner = (s, x) -> s.joinLong(first, 0, (Scope.IntToLong) null, 5, Long::sum);
    Scope.IntToLong zero = (s, x) -> 0L;
    try (WorkStealingPool pool = pool(1, false)) {
      Throwable e =
          assertThrows(
              Throwable.class, () -> pool.invoke(s -> s.joinLong(inner, 0, zero, 0, Long::sum)));
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      assertEquals(NullPointerException.class, root.getClass(), "got " + e);
      assertEquals(0, firstRan.get(), "the first half ran before the null was noticed");
      assertEquals((Object) 3L, pool.invoke(s -> s.joinLong(zero, 0, (t, y) -> 3L, 0, Long::sum)));
    }
  }

  @Test
  void scopeCurrentInsideATaskIsTheRunningWorkersScope() {
    try (WorkStealingPool pool = pool(2, false)) {
      long r = pool.invoke(Task.of(() -> fib(Scope.current(), 20)));
      assertEquals(fibSeq(20), r);
      assertSame(pool, pool.invoke(s -> s.pool()));
    }
  }
}

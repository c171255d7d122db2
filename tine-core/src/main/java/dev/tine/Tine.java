package dev.tine;

import java.util.function.BiFunction;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntConsumer;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntToLongFunction;
import java.util.function.LongBinaryOperator;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Fork/join without Task subclasses: binary joins and loops over index ranges whose parallelism is
 * latent. The second half of a join is recorded privately and run by a direct call when the first
 * half returns, unless it was promoted to the deque meanwhile (a worker offers its oldest latent
 * fork whenever its deque is empty, at parallelism above 1, and the older half of them while
 * another worker is hungry); then it may run elsewhere. So code can fork at every level of its
 * recursion and pay about the cost of a call where there is no one to share work with.
 *
 * <pre>{@code
 * static long fib(int n) {
 *   if (n < 2) return n;
 *   return Tine.joinLong(Fib::fib, n - 1, Fib::fib, n - 2, Long::sum);
 * }
 * long r = pool.invoke(Task.of(() -> fib(40)));   // or call it from any task
 * }</pre>
 *
 * <p>Called from a thread that is not a pool worker, each method runs its work on the {@link
 * WorkStealingPool#commonPool() common pool}.
 *
 * <p><b>Allocation.</b> {@link #joinLong(IntToLongFunction, int, IntToLongFunction, int,
 * LongBinaryOperator)} with non-capturing functions (method references to static methods, as above)
 * allocates nothing unless the second half is promoted. Capturing lambdas are objects the caller
 * allocates.
 *
 * <p><b>Exceptions.</b> If the first half throws, a second half that is still latent is dropped,
 * one that was promoted is waited for, and the first half's exception propagates. If only the
 * second half throws, its exception propagates. Either way it is the same object the half threw,
 * unwrapped, whether the half ran inline or on another worker: a checked exception thrown sneakily
 * arrives as itself (the rule of {@link Task#join()}, and of the JDK's {@code ForkJoinTask.join}).
 */
public final class Tine {
  private Tine() {}

  /**
   * Computes {@code combine(f(a), g(b))}, running {@code g(b)} in parallel only if it is promoted
   * while {@code f(a)} runs (see the class comment).
   *
   * @param f the first half, run here
   * @param a the first half's argument
   * @param g the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code f}
   * @param b the second half's argument
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
   */
  public static long joinLong(
      IntToLongFunction f, int a, IntToLongFunction g, int b, LongBinaryOperator combine) {
    // Kept small so that C2 inlines it into the caller, where f, g and combine are constants. The
    // fork and the inline join are the scope join's (Scope.fork): after the thread lookup, the same
    // cost.
    Worker w = Worker.currentLatent();
    if (w == null) {
      return joinLongElsewhere(f, a, g, b, combine);
    }
    int slot = w.scope.fork(g, b, Jobs.INT_TO_LONG);
    long ra;
    try {
      ra = f.applyAsLong(a);
    } catch (Throwable e) {
      abandon(w, slot);
      throw e;
    }
    if (!w.scope.tryPopFunction(slot)) {
      Jobs.Job job = Promotion.reclaim(w, slot); // null: taken back unstarted, so run it here
      if (job != null) {
        return combine.applyAsLong(ra, job.joinLong());
      }
    }
    return combine.applyAsLong(ra, g.applyAsLong(b)); // g's one call site (see Scope's comment)
  }

  /** Not on a worker of a latent-forking pool: the common pool, or an eager fork. */
  private static long joinLongElsewhere(
      IntToLongFunction f, int a, IntToLongFunction g, int b, LongBinaryOperator combine) {
    if (!(Thread.currentThread() instanceof Worker w)) {
      return outside(() -> joinLong(f, a, g, b, combine));
    }
    Jobs.Job job = Promotion.forkJobEagerly(w, g, b, Jobs.INT_TO_LONG);
    long ra;
    try {
      ra = f.applyAsLong(a);
    } catch (Throwable e) {
      awaitQuietly(job);
      throw e;
    }
    return combine.applyAsLong(ra, job.joinLong());
  }

  /**
   * Computes {@code combine(a(), b())}, running {@code b} in parallel only if it is promoted
   * meanwhile.
   *
   * @param a the first half, run here
   * @param b the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code a}
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
   */
  public static long joinLong(LongSupplier a, LongSupplier b, LongBinaryOperator combine) {
    if (!(Thread.currentThread() instanceof Worker w)) {
      return outside(() -> joinLong(a, b, combine));
    }
    if (!w.latentForks) {
      return joinEagerly(w, a, b, combine);
    }
    int slot = w.scope.fork(b, 0, Jobs.LONG_SUPPLIER);
    long ra;
    try {
      ra = a.getAsLong();
    } catch (Throwable e) {
      abandon(w, slot);
      throw e;
    }
    if (!w.scope.tryPopFunction(slot)) {
      Jobs.Job job = Promotion.reclaim(w, slot);
      if (job != null) {
        return combine.applyAsLong(ra, job.joinLong());
      }
    }
    return combine.applyAsLong(ra, b.getAsLong());
  }

  private static long joinEagerly(
      Worker w, LongSupplier a, LongSupplier b, LongBinaryOperator combine) {
    Jobs.Job job = Promotion.forkJobEagerly(w, b, 0, Jobs.LONG_SUPPLIER);
    long ra;
    try {
      ra = a.getAsLong();
    } catch (Throwable e) {
      awaitQuietly(job);
      throw e;
    }
    return combine.applyAsLong(ra, job.joinLong());
  }

  /**
   * Computes {@code combine(a.get(), b.get())}, running {@code b} in parallel only if it is
   * promoted meanwhile.
   *
   * @param <A> the first half's result type
   * @param <B> the second half's result type
   * @param <R> the result type
   * @param a the first half, run here
   * @param b the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code a}
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
   */
  @SuppressWarnings("unchecked")
  public static <A, B, R> R join(
      Supplier<? extends A> a,
      Supplier<? extends B> b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    if (!(Thread.currentThread() instanceof Worker w)) {
      return WorkStealingPool.commonPool().invokeTask(Task.of(() -> join(a, b, combine)));
    }
    if (!w.latentForks) {
      return joinEagerly(w, a, b, combine);
    }
    int slot = w.scope.fork(b, 0, Jobs.SUPPLIER);
    A ra;
    try {
      ra = a.get();
    } catch (Throwable e) {
      abandon(w, slot);
      throw e;
    }
    if (!w.scope.tryPopFunction(slot)) {
      Jobs.Job job = Promotion.reclaim(w, slot);
      if (job != null) {
        return combine.apply(ra, (B) job.join());
      }
    }
    return combine.apply(ra, b.get());
  }

  @SuppressWarnings("unchecked")
  private static <A, B, R> R joinEagerly(
      Worker w,
      Supplier<? extends A> a,
      Supplier<? extends B> b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    Jobs.Job job = Promotion.forkJobEagerly(w, b, 0, Jobs.SUPPLIER);
    A ra;
    try {
      ra = a.get();
    } catch (Throwable e) {
      awaitQuietly(job);
      throw e;
    }
    return combine.apply(ra, (B) job.join());
  }

  /**
   * Runs {@code a} and {@code b}, {@code b} in parallel only if it is promoted meanwhile.
   *
   * @param a the first half, run here
   * @param b the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code a}
   */
  public static void join(Runnable a, Runnable b) {
    if (!(Thread.currentThread() instanceof Worker w)) {
      WorkStealingPool.commonPool()
          .invoke(
              Task.of(() -> {
                join(a, b);
                return null;
              }));
      return;
    }
    if (!w.latentForks) {
      joinEagerly(w, a, b);
      return;
    }
    int slot = w.scope.fork(b, 0, Jobs.RUNNABLE);
    try {
      a.run();
    } catch (Throwable e) {
      abandon(w, slot);
      throw e;
    }
    if (!w.scope.tryPopFunction(slot)) {
      Jobs.Job job = Promotion.reclaim(w, slot);
      if (job != null) {
        job.join();
        return;
      }
    }
    b.run();
  }

  private static void joinEagerly(Worker w, Runnable a, Runnable b) {
    Jobs.Job job = Promotion.forkJobEagerly(w, b, 0, Jobs.RUNNABLE);
    try {
      a.run();
    } catch (Throwable e) {
      awaitQuietly(job);
      throw e;
    }
    job.join();
  }

  /**
   * Runs {@code body(i)} for every {@code i} in {@code [from, to)}. The range runs as one
   * sequential loop; whenever a worker is hungry, the untouched upper half of what remains is
   * handed to the deque for it. No grain size to choose: the loop splits only as far as idle
   * workers ask. Iterations may run in any order and concurrently.
   *
   * @param from the first index (inclusive)
   * @param to the last index (exclusive)
   * @param body called once per index, on whichever worker runs that part of the range
   */
  public static void forRange(int from, int to, IntConsumer body) {
    checkRange(from, to);
    if (!(Thread.currentThread() instanceof Worker w)) {
      WorkStealingPool.commonPool()
          .invoke(
              Task.of(() -> {
                forRange(from, to, body);
                return null;
              }));
      return;
    }
    Ranges.forRange(w, from, to, body);
  }

  /**
   * Reduces {@code map(i)} over {@code [from, to)} with an associative {@code combine} whose
   * identity is {@code identity}, splitting lazily as {@link #forRange} does. Partial results are
   * combined in index order, so {@code combine} need not be commutative.
   *
   * @param from the first index (inclusive)
   * @param to the last index (exclusive)
   * @param identity the identity of {@code combine}, the result of an empty range
   * @param map the value of one index
   * @param combine combines two partial results (associative)
   * @return the reduction of every index's value
   */
  public static long reduceLong(
      int from, int to, long identity, IntToLongFunction map, LongBinaryOperator combine) {
    checkRange(from, to);
    if (!(Thread.currentThread() instanceof Worker w)) {
      return outside(() -> reduceLong(from, to, identity, map, combine));
    }
    return Ranges.reduceLong(w, from, to, identity, map, combine);
  }

  /**
   * {@link #reduceLong} for doubles. Partial sums are combined in index order.
   *
   * @param from the first index (inclusive)
   * @param to the last index (exclusive)
   * @param identity the identity of {@code combine}, the result of an empty range
   * @param map the value of one index
   * @param combine combines two partial results (associative)
   * @return the reduction of every index's value
   */
  public static double reduceDouble(
      int from, int to, double identity, IntToDoubleFunction map, DoubleBinaryOperator combine) {
    checkRange(from, to);
    if (!(Thread.currentThread() instanceof Worker)) {
      return WorkStealingPool.commonPool()
          .invoke(Task.of(() -> reduceDouble(from, to, identity, map, combine)));
    }
    return Ranges.reduceDouble((Worker) Thread.currentThread(), from, to, identity, map, combine);
  }

  /**
   * Offers work to hungry workers from inside a long stretch of sequential code that neither forks
   * nor joins: if some worker is hungry, the caller's oldest latent fork is promoted. Forks and
   * joins poll by themselves; call this only in a loop that runs for more than about 100 µs without
   * them (a leaf that scans a large array, say), or idle workers wait until it ends. Costs one read
   * of a shared, rarely written word.
   */
  public static void poll() {
    if (Thread.currentThread() instanceof Worker w && Promotion.shouldOffer(w)) {
      Promotion.offer(w);
    }
  }

  // ---------------------------------------------------------------------------------------------

  private static void checkRange(int from, int to) {
    if (from > to) {
      throw new IllegalArgumentException(
          "empty range must have from <= to: [" + from + ", " + to + ")");
    }
  }

  private static long outside(LongSupplier s) {
    return WorkStealingPool.commonPool().invokeTask(Task.of(s::getAsLong));
  }

  /** The first half threw: drop the second half if still latent, else wait for it quietly. */
  private static void abandon(Worker w, int slot) {
    Jobs.Job job = Promotion.reclaim(w, slot);
    if (job != null) {
      awaitQuietly(job);
    }
  }

  private static void awaitQuietly(Task<?> t) {
    try {
      t.join();
    } catch (Throwable ignored) {
      // the first half's exception is the one reported
    }
  }
}

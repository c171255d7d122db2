package dev.tine;

import dev.tine.deque.WorkDeque;
import java.util.function.BiFunction;
import java.util.function.DoubleBinaryOperator;
import java.util.function.LongBinaryOperator;

/**
 * A worker's fork/join context, passed down a recursion as a parameter: the cheapest way to fork at
 * every level. Each join records its second half as a latent fork with a few plain stores and runs
 * it by a direct call when the first half returns, unless it was promoted meanwhile (then it may
 * run on another worker, and the join waits for it, helping).
 *
 * <pre>{@code
 * static long fib(Scope s, int n) {
 *   return n < 2 ? n : s.joinLong(Fib::fib, n - 1, Fib::fib, n - 2, Long::sum);
 * }
 * long r = pool.invoke(s -> fib(s, 40));
 * }</pre>
 *
 * <p><b>Which join to use.</b> A scope join costs about a call plus a few stores: it reads no
 * thread-local and no {@code Thread.currentThread()}, writes nothing shared, takes no fence, and
 * stores the function reference only when the slot held another one. {@link Tine#joinLong} does the
 * same work after a {@code Thread.currentThread()} lookup per join, and needs no parameter. {@link
 * Task#fork()}/{@link Task#join()} allocate a task per fork. Measured costs are in {@code
 * docs/design/latent-forks.md}.
 *
 * <p><b>Arguments and results.</b> Each half takes an {@code int}, a {@code long}, or an index
 * range {@code [lo, hi)} (how array code splits), and returns a {@code long}, a {@code double}, an
 * object, or nothing (ranges). With non-capturing functions (method references to static methods)
 * an unpromoted join allocates nothing. Halves with other arguments capture them in a closure
 * ({@link #joinDouble(ToDouble, ToDouble, DoubleBinaryOperator)} and its siblings), which costs the
 * second half's allocation. The scope handed to a half is the scope of the worker that runs it: a
 * promoted half that runs elsewhere gets that worker's scope.
 *
 * <p><b>Exceptions</b> are as for {@link Tine#joinLong}: if the first half throws, a latent second
 * half is dropped and a promoted one is waited for, and the first half's exception propagates;
 * otherwise the second half's exception propagates. Either way it is the same object the half
 * threw, unwrapped, whether the half ran inline or on another worker: a checked exception thrown
 * sneakily arrives as itself, as from {@link Task#join()} and the JDK's {@code ForkJoinTask.join}.
 *
 * <p><b>Threads.</b> A scope belongs to one worker thread. Using it from another thread (it escaped
 * into a lambda run elsewhere, a stream, a field) throws {@link IllegalStateException}. The owner
 * is checked on every slow path: an empty latent stack (so an escaped scope is caught at its first
 * join whenever its owner is not inside a join itself), a promotion, and a second half that is not
 * where its join left it (what concurrent use of one stack leads to). The fast path does not look:
 * that check would cost a thread lookup per join. In a pool with {@code eagerForks(true)} every
 * scope join forks eagerly, as {@link Task#fork()} does there.
 *
 * <p><b>Why the join methods repeat themselves.</b> Each argument/result shape has its own copy of
 * the same dozen lines, differing only in the functional interface called and the primitive type
 * returned. One generic method would box the results or make the calls of {@code f} and {@code g}
 * megamorphic, the very costs this class exists to avoid. What can be shared (the slow paths at the
 * end) is. Each join method is also kept small for the JIT: {@code f} and {@code g} have one call
 * site each (a promoted half taken back unstarted runs through the same call of {@code g}), and an
 * eager pool's path, with its lambda, is a separate {@code joinEagerly} twin. That shape took
 * fork-every fib at one worker from 1.92-1.96 to 1.63-1.66 times sequential in one bench
 * configuration, less in another (the latent-forks design note has the runs).
 */
public final class Scope extends LatentStack {
  private final Worker worker;
  private final WorkDeque<Task<?>> deque;
  private final boolean latent;

  /** Keep one promoted fork in the deque (parallelism above 1): see {@code Worker.stockDeque}. */
  private final boolean stock;

  Scope(Worker worker) {
    this.worker = worker;
    this.deque = worker.deque;
    this.latent = worker.latentForks;
    this.stock = worker.stockDeque;
  }

  /**
   * The scope of the current thread, a worker of some pool: to enter scope-passing code from a
   * {@link Task}'s {@code compute}. Outside a pool's worker, throws {@link IllegalStateException}
   * (use {@link WorkStealingPool#invoke(java.util.function.Function)} there).
   */
  public static Scope current() {
    if (Thread.currentThread() instanceof Worker w) {
      return w.scope;
    }
    throw new IllegalStateException(
        "Scope.current() called from "
            + Thread.currentThread().getName()
            + ", which is not a pool worker");
  }

  /** The pool whose worker this scope belongs to. */
  public WorkStealingPool pool() {
    return worker.pool;
  }

  /**
   * A computation that takes only the scope, with a {@code long} result (a closure over its
   * arguments).
   */
  @FunctionalInterface
  public interface ToLong {
    long apply(Scope s);
  }

  /** A computation that takes only the scope, with a {@code double} result. */
  @FunctionalInterface
  public interface ToDouble {
    double apply(Scope s);
  }

  /** A computation that takes only the scope, with a result of type {@code R}. */
  @FunctionalInterface
  public interface To<R> {
    R apply(Scope s);
  }

  /** A function of the scope and an {@code int} argument, with a {@code long} result. */
  @FunctionalInterface
  public interface IntToLong {
    long apply(Scope s, int x);
  }

  /** A function of the scope and an {@code int} argument, with a {@code double} result. */
  @FunctionalInterface
  public interface IntToDouble {
    double apply(Scope s, int x);
  }

  /** A function of the scope and an {@code int} argument, with a result of type {@code R}. */
  @FunctionalInterface
  public interface IntTo<R> {
    R apply(Scope s, int x);
  }

  /** A function of the scope and a {@code long} argument, with a {@code long} result. */
  @FunctionalInterface
  public interface LongToLong {
    long apply(Scope s, long x);
  }

  /** A function of the scope and a {@code long} argument, with a {@code double} result. */
  @FunctionalInterface
  public interface LongToDouble {
    double apply(Scope s, long x);
  }

  /** A function of the scope and a {@code long} argument, with a result of type {@code R}. */
  @FunctionalInterface
  public interface LongTo<R> {
    R apply(Scope s, long x);
  }

  /** A function of the scope and an index range {@code [lo, hi)}, with a {@code long} result. */
  @FunctionalInterface
  public interface RangeToLong {
    long apply(Scope s, int lo, int hi);
  }

  /** A function of the scope and an index range {@code [lo, hi)}, with a {@code double} result. */
  @FunctionalInterface
  public interface RangeToDouble {
    double apply(Scope s, int lo, int hi);
  }

  /**
   * A function of the scope and an index range {@code [lo, hi)}, with a result of type {@code R}.
   */
  @FunctionalInterface
  public interface RangeTo<R> {
    R apply(Scope s, int lo, int hi);
  }

  /** An action on the scope and an index range {@code [lo, hi)}. */
  @FunctionalInterface
  public interface RangeAction {
    void run(Scope s, int lo, int hi);
  }

  /**
   * Computes {@code combine(f(a), g(b))} with an {@code int} argument per half; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   */
  public long joinLong(IntToLong f, int a, IntToLong g, int b, LongBinaryOperator combine) {
    int slot = tryPushFunction(g, b);
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        return joinEagerly(f, a, g, b, combine);
      }
      slot = forkSlow(slot, g, b, Jobs.SCOPE_INT_TO_LONG);
    }
    long ra;
    try {
      ra = f.apply(this, a);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        return combine.applyAsLong(ra, job.joinLong());
      }
    }
    return combine.applyAsLong(ra, g.apply(this, b));
  }

  /**
   * Computes {@code combine(f(a), g(b))} with an {@code int} argument per half; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   */
  public double joinDouble(
      IntToDouble f, int a, IntToDouble g, int b, DoubleBinaryOperator combine) {
    int slot = tryPushFunction(g, b);
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        return joinEagerly(f, a, g, b, combine);
      }
      slot = forkSlow(slot, g, b, Jobs.SCOPE_INT_TO_DOUBLE);
    }
    double ra;
    try {
      ra = f.apply(this, a);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        return combine.applyAsDouble(ra, job.joinDouble());
      }
    }
    return combine.applyAsDouble(ra, g.apply(this, b));
  }

  /**
   * Computes {@code combine(f(a), g(b))} with an {@code int} argument per half; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   */
  @SuppressWarnings("unchecked")
  public <A, B, R> R join(
      IntTo<? extends A> f,
      int a,
      IntTo<? extends B> g,
      int b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    int slot = tryPushFunction(g, b);
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        return joinEagerly(f, a, g, b, combine);
      }
      slot = forkSlow(slot, g, b, Jobs.SCOPE_INT_TO_OBJECT);
    }
    A ra;
    try {
      ra = f.apply(this, a);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        return combine.apply(ra, (B) job.join());
      }
    }
    return combine.apply(ra, g.apply(this, b));
  }

  /**
   * Computes {@code combine(f(a), g(b))} with a {@code long} argument per half; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   */
  public long joinLong(LongToLong f, long a, LongToLong g, long b, LongBinaryOperator combine) {
    int slot = tryPushFunction(g, b);
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        return joinEagerly(f, a, g, b, combine);
      }
      slot = forkSlow(slot, g, b, Jobs.SCOPE_LONG_TO_LONG);
    }
    long ra;
    try {
      ra = f.apply(this, a);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        return combine.applyAsLong(ra, job.joinLong());
      }
    }
    return combine.applyAsLong(ra, g.apply(this, b));
  }

  /**
   * Computes {@code combine(f(a), g(b))} with a {@code long} argument per half; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   */
  public double joinDouble(
      LongToDouble f, long a, LongToDouble g, long b, DoubleBinaryOperator combine) {
    int slot = tryPushFunction(g, b);
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        return joinEagerly(f, a, g, b, combine);
      }
      slot = forkSlow(slot, g, b, Jobs.SCOPE_LONG_TO_DOUBLE);
    }
    double ra;
    try {
      ra = f.apply(this, a);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        return combine.applyAsDouble(ra, job.joinDouble());
      }
    }
    return combine.applyAsDouble(ra, g.apply(this, b));
  }

  /**
   * Computes {@code combine(f(a), g(b))} with a {@code long} argument per half; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   */
  @SuppressWarnings("unchecked")
  public <A, B, R> R join(
      LongTo<? extends A> f,
      long a,
      LongTo<? extends B> g,
      long b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    int slot = tryPushFunction(g, b);
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        return joinEagerly(f, a, g, b, combine);
      }
      slot = forkSlow(slot, g, b, Jobs.SCOPE_LONG_TO_OBJECT);
    }
    A ra;
    try {
      ra = f.apply(this, a);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        return combine.apply(ra, (B) job.join());
      }
    }
    return combine.apply(ra, g.apply(this, b));
  }

  /**
   * Computes {@code combine(f(a), g(b))} with an index range {@code [lo, hi)} per half; {@code g}
   * runs in parallel only if it is promoted while {@code f} runs (see the class comment).
   */
  public long joinLong(
      RangeToLong f,
      int aLo,
      int aHi,
      RangeToLong g,
      int bLo,
      int bHi,
      LongBinaryOperator combine) {
    int slot = tryPushFunction(g, range(bLo, bHi));
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        return joinEagerly(f, aLo, aHi, g, bLo, bHi, combine);
      }
      slot = forkSlow(slot, g, range(bLo, bHi), Jobs.SCOPE_RANGE_TO_LONG);
    }
    long ra;
    try {
      ra = f.apply(this, aLo, aHi);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        return combine.applyAsLong(ra, job.joinLong());
      }
    }
    return combine.applyAsLong(ra, g.apply(this, bLo, bHi));
  }

  /**
   * Computes {@code combine(f(a), g(b))} with an index range {@code [lo, hi)} per half; {@code g}
   * runs in parallel only if it is promoted while {@code f} runs (see the class comment).
   */
  public double joinDouble(
      RangeToDouble f,
      int aLo,
      int aHi,
      RangeToDouble g,
      int bLo,
      int bHi,
      DoubleBinaryOperator combine) {
    int slot = tryPushFunction(g, range(bLo, bHi));
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        return joinEagerly(f, aLo, aHi, g, bLo, bHi, combine);
      }
      slot = forkSlow(slot, g, range(bLo, bHi), Jobs.SCOPE_RANGE_TO_DOUBLE);
    }
    double ra;
    try {
      ra = f.apply(this, aLo, aHi);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        return combine.applyAsDouble(ra, job.joinDouble());
      }
    }
    return combine.applyAsDouble(ra, g.apply(this, bLo, bHi));
  }

  /**
   * Computes {@code combine(f(a), g(b))} with an index range {@code [lo, hi)} per half; {@code g}
   * runs in parallel only if it is promoted while {@code f} runs (see the class comment).
   */
  @SuppressWarnings("unchecked")
  public <A, B, R> R join(
      RangeTo<? extends A> f,
      int aLo,
      int aHi,
      RangeTo<? extends B> g,
      int bLo,
      int bHi,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    int slot = tryPushFunction(g, range(bLo, bHi));
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        return joinEagerly(f, aLo, aHi, g, bLo, bHi, combine);
      }
      slot = forkSlow(slot, g, range(bLo, bHi), Jobs.SCOPE_RANGE_TO_OBJECT);
    }
    A ra;
    try {
      ra = f.apply(this, aLo, aHi);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        return combine.apply(ra, (B) job.join());
      }
    }
    return combine.apply(ra, g.apply(this, bLo, bHi));
  }

  /**
   * Runs {@code f} on {@code [aLo, aHi)} and {@code g} on {@code [bLo, bHi)}; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   */
  public void join(RangeAction f, int aLo, int aHi, RangeAction g, int bLo, int bHi) {
    int slot = tryPushFunction(g, range(bLo, bHi));
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        joinEagerly(f, aLo, aHi, g, bLo, bHi);
        return;
      }
      slot = forkSlow(slot, g, range(bLo, bHi), Jobs.SCOPE_RANGE_ACTION);
    }
    try {
      f.run(this, aLo, aHi);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        job.join();
        return;
      }
    }
    g.run(this, bLo, bHi);
  }

  /**
   * Computes {@code combine(a(), b())} for halves that capture their arguments (any number, any
   * type): {@code b} runs in parallel only if it is promoted while {@code a} runs. Costs what the
   * other scope joins cost plus the allocation of {@code b}'s closure (it is stored in the latent
   * stack, so it escapes); {@code a} is called directly and need not be allocated.
   */
  public long joinLong(ToLong a, ToLong b, LongBinaryOperator combine) {
    int slot = tryPushFunction(b, 0L);
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        return joinEagerly(a, b, combine);
      }
      slot = forkSlow(slot, b, 0L, Jobs.SCOPE_TO_LONG);
    }
    long ra;
    try {
      ra = a.apply(this);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        return combine.applyAsLong(ra, job.joinLong());
      }
    }
    return combine.applyAsLong(ra, b.apply(this));
  }

  /**
   * Computes {@code combine(a(), b())} for halves that capture their arguments (any number, any
   * type): {@code b} runs in parallel only if it is promoted while {@code a} runs. Costs what the
   * other scope joins cost plus the allocation of {@code b}'s closure (it is stored in the latent
   * stack, so it escapes); {@code a} is called directly and need not be allocated.
   */
  public double joinDouble(ToDouble a, ToDouble b, DoubleBinaryOperator combine) {
    int slot = tryPushFunction(b, 0L);
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        return joinEagerly(a, b, combine);
      }
      slot = forkSlow(slot, b, 0L, Jobs.SCOPE_TO_DOUBLE);
    }
    double ra;
    try {
      ra = a.apply(this);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        return combine.applyAsDouble(ra, job.joinDouble());
      }
    }
    return combine.applyAsDouble(ra, b.apply(this));
  }

  /** {@link #joinLong(ToLong, ToLong, LongBinaryOperator)} with object results. */
  @SuppressWarnings("unchecked")
  public <A, B, R> R join(
      To<? extends A> a, To<? extends B> b, BiFunction<? super A, ? super B, ? extends R> combine) {
    int slot = tryPushFunction(b, 0L);
    if (slot < 0 || (stock && deque.size() == 0)) {
      if (!latent) {
        return joinEagerly(a, b, combine);
      }
      slot = forkSlow(slot, b, 0L, Jobs.SCOPE_TO_OBJECT);
    }
    A ra;
    try {
      ra = a.apply(this);
    } catch (Throwable e) {
      abandon(slot);
      throw e;
    }
    if (!tryPopFunction(slot)) {
      Jobs.Job job = reclaim(slot);
      if (job != null) {
        return combine.apply(ra, (B) job.join());
      }
    }
    return combine.apply(ra, b.apply(this));
  }

  // ---------------------------------------------------------------------------------------------
  // Slow paths: each checks the owner first

  // The eager pool's joins (eagerForks(true)): the second half on the deque at once. Kept out of
  // the join methods, which stay small for the JIT (see the class comment).

  private long joinEagerly(IntToLong f, int a, IntToLong g, int b, LongBinaryOperator combine) {
    Jobs.Job job = eager(g, b, Jobs.SCOPE_INT_TO_LONG);
    return combine.applyAsLong(firstHalf(() -> f.apply(this, a), job), job.joinLong());
  }

  private double joinEagerly(
      IntToDouble f, int a, IntToDouble g, int b, DoubleBinaryOperator combine) {
    Jobs.Job job = eager(g, b, Jobs.SCOPE_INT_TO_DOUBLE);
    return combine.applyAsDouble(firstHalf(() -> f.apply(this, a), job), job.joinDouble());
  }

  @SuppressWarnings("unchecked")
  private <A, B, R> R joinEagerly(
      IntTo<? extends A> f,
      int a,
      IntTo<? extends B> g,
      int b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    Jobs.Job job = eager(g, b, Jobs.SCOPE_INT_TO_OBJECT);
    return combine.apply(firstHalf(() -> f.apply(this, a), job), (B) job.join());
  }

  private long joinEagerly(LongToLong f, long a, LongToLong g, long b, LongBinaryOperator combine) {
    Jobs.Job job = eager(g, b, Jobs.SCOPE_LONG_TO_LONG);
    return combine.applyAsLong(firstHalf(() -> f.apply(this, a), job), job.joinLong());
  }

  private double joinEagerly(
      LongToDouble f, long a, LongToDouble g, long b, DoubleBinaryOperator combine) {
    Jobs.Job job = eager(g, b, Jobs.SCOPE_LONG_TO_DOUBLE);
    return combine.applyAsDouble(firstHalf(() -> f.apply(this, a), job), job.joinDouble());
  }

  @SuppressWarnings("unchecked")
  private <A, B, R> R joinEagerly(
      LongTo<? extends A> f,
      long a,
      LongTo<? extends B> g,
      long b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    Jobs.Job job = eager(g, b, Jobs.SCOPE_LONG_TO_OBJECT);
    return combine.apply(firstHalf(() -> f.apply(this, a), job), (B) job.join());
  }

  private long joinEagerly(
      RangeToLong f,
      int aLo,
      int aHi,
      RangeToLong g,
      int bLo,
      int bHi,
      LongBinaryOperator combine) {
    Jobs.Job job = eager(g, range(bLo, bHi), Jobs.SCOPE_RANGE_TO_LONG);
    return combine.applyAsLong(firstHalf(() -> f.apply(this, aLo, aHi), job), job.joinLong());
  }

  private double joinEagerly(
      RangeToDouble f,
      int aLo,
      int aHi,
      RangeToDouble g,
      int bLo,
      int bHi,
      DoubleBinaryOperator combine) {
    Jobs.Job job = eager(g, range(bLo, bHi), Jobs.SCOPE_RANGE_TO_DOUBLE);
    return combine.applyAsDouble(firstHalf(() -> f.apply(this, aLo, aHi), job), job.joinDouble());
  }

  @SuppressWarnings("unchecked")
  private <A, B, R> R joinEagerly(
      RangeTo<? extends A> f,
      int aLo,
      int aHi,
      RangeTo<? extends B> g,
      int bLo,
      int bHi,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    Jobs.Job job = eager(g, range(bLo, bHi), Jobs.SCOPE_RANGE_TO_OBJECT);
    return combine.apply(firstHalf(() -> f.apply(this, aLo, aHi), job), (B) job.join());
  }

  private void joinEagerly(RangeAction f, int aLo, int aHi, RangeAction g, int bLo, int bHi) {
    Jobs.Job job = eager(g, range(bLo, bHi), Jobs.SCOPE_RANGE_ACTION);
    firstHalf(
        () -> {
          f.run(this, aLo, aHi);
          return null;
        },
        job);
    job.join();
    return;
  }

  private long joinEagerly(ToLong a, ToLong b, LongBinaryOperator combine) {
    Jobs.Job job = eager(b, 0L, Jobs.SCOPE_TO_LONG);
    return combine.applyAsLong(firstHalf(() -> a.apply(this), job), job.joinLong());
  }

  private double joinEagerly(ToDouble a, ToDouble b, DoubleBinaryOperator combine) {
    Jobs.Job job = eager(b, 0L, Jobs.SCOPE_TO_DOUBLE);
    return combine.applyAsDouble(firstHalf(() -> a.apply(this), job), job.joinDouble());
  }

  @SuppressWarnings("unchecked")
  private <A, B, R> R joinEagerly(
      To<? extends A> a, To<? extends B> b, BiFunction<? super A, ? super B, ? extends R> combine) {
    Jobs.Job job = eager(b, 0L, Jobs.SCOPE_TO_OBJECT);
    return combine.apply(firstHalf(() -> a.apply(this), job), (B) job.join());
  }

  private static long range(int lo, int hi) {
    return ((long) lo << 32) | (hi & 0xFFFF_FFFFL);
  }

  static int rangeLo(long packed) {
    return (int) (packed >> 32);
  }

  static int rangeHi(long packed) {
    return (int) packed;
  }

  private void checkOwner() {
    if (Thread.currentThread() != worker) {
      throw new IllegalStateException(
          "a Scope was used from thread "
              + Thread.currentThread().getName()
              + ", but it belongs to worker "
              + worker.getName()
              + ": use the scope passed to the running function; never store one or hand it to another thread");
    }
  }

  /**
   * The fork of a join made through {@link Tine}'s static methods, once they have looked up the
   * worker: the scope join's fast push, else its slow path. Returns the entry's slot, for {@link
   * #tryPopFunction}.
   */
  int fork(Object g, long arg, int kind) {
    int slot = tryPushFunction(g, arg);
    if (slot < 0 || (stock && deque.size() == 0)) {
      slot = forkSlow(slot, g, arg, kind);
    }
    return slot;
  }

  /**
   * The fast push failed ({@code slot < 0}: nothing recorded yet; the slot held another function,
   * or the stack needs {@link LatentStack}'s slow path), or the deque is empty and should be
   * stocked ({@code slot >= 0}: recorded). Returns the entry's slot.
   */
  private int forkSlow(int slot, Object g, long arg, int kind) {
    if (slot < 0) {
      Object item = itemFor(g); // may allocate: before any store
      slot = tryPushNewFunction(item, arg, kind);
      if (slot < 0) {
        checkOwner();
        return Promotion.forkFunction(worker, item, arg, kind); // records, then offers
      }
      if (!(stock && deque.size() == 0)) {
        return slot;
      }
    }
    checkOwner();
    Promotion.offer(worker);
    return slot;
  }

  /**
   * What to store for function {@code g}: {@code g} itself, or a wrapper if {@code g} implements
   * more than one of the functional interfaces that joins record. The fast push matches the raw
   * function and trusts the kind stored with it, so an object that could be pushed with two kinds
   * must never sit in a slot raw (see {@link LatentStack#tryPushFunction}). Throws {@code
   * NullPointerException} for a null {@code g}, before anything is recorded.
   */
  private Object itemFor(Object g) {
    Class<?> c = g.getClass(); // a null g throws here, before anything is recorded
    if (c == singleKindClass) {
      return g; // the common case: one class at a join site (a closure's, a method reference's)
    }
    if (Jobs.SINGLE_KIND.get(c)) {
      singleKindClass = c;
      return g;
    }
    return new Jobs.Ambiguous(g);
  }

  /** The second half is not the newest latent entry: it was promoted (or a join was cut short). */
  private Jobs.Job reclaim(int slot) {
    checkOwner();
    return Promotion.reclaim(worker, slot);
  }

  /** The first half threw: drop the second half if still latent, else wait for it quietly. */
  private void abandon(int slot) {
    if (Thread.currentThread() != worker) {
      return; // an escaped scope: the first half's exception is the one to report
    }
    Jobs.Job job = Promotion.reclaim(worker, slot);
    if (job != null) {
      try {
        job.join();
      } catch (Throwable ignored) {
        // the first half's exception is the one reported
      }
    }
  }

  /**
   * An eager pool's first half: if it throws, the second half (already on the deque) is waited for
   * quietly and the first half's exception propagates, as in the latent case.
   */
  private static <T> T firstHalf(java.util.function.Supplier<T> first, Jobs.Job job) {
    try {
      return first.get();
    } catch (Throwable e) {
      try {
        job.join();
      } catch (Throwable ignored) {
        // the first half's exception is the one reported
      }
      throw e;
    }
  }

  /** An eager pool: the second half as a task on the deque, at once. */
  private Jobs.Job eager(Object g, long arg, int kind) {
    checkOwner();
    return Promotion.forkJobEagerly(worker, g, arg, kind);
  }
}

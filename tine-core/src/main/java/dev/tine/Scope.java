package dev.tine;

import dev.tine.deque.WorkDeque;
import java.util.function.BiFunction;
import java.util.function.DoubleBinaryOperator;
import java.util.function.LongBinaryOperator;

/**
 * A worker's fork/join context, passed down a recursion as a parameter: the cheapest way to fork at
 * every level. A join records its second half as a latent fork with a few plain stores and runs it
 * by a direct call when the first half returns, unless it was promoted meanwhile (then it may run
 * on another worker, and the join waits for it, helping). Only the outermost joins are recorded: a
 * join that finds six latent entries of its worker below it (its own recorded joins and unjoined
 * task forks), while no thief is hungry, runs both halves here and records nothing, so the deep
 * joins of a fine-grained recursion, nearly all of its joins, cost about a call. In a pool of two
 * or more, a worker whose deque may be empty records every join and promotes at the next, so the
 * recorded outer joins, the largest pieces, are the ones thieves take first; at one worker only the
 * outermost six are ever recorded. Such a join forks nothing and is not counted as a fork.
 *
 * <pre>{@code
 * static long fib(Scope s, int n) {
 *   return n < 2 ? n : s.joinLong(Fib::fib, n - 1, Fib::fib, n - 2, Long::sum);
 * }
 * long r = pool.invoke(s -> fib(s, 40));
 * }</pre>
 *
 * <p><b>A first half must not wait for its own second half</b> (a latch the second half counts
 * down, say), nor for the second half of any join it runs inside. A recorded second half is claimed
 * and run elsewhere while its first half blocks (the latent-forks design note, "claims"); an
 * unrecorded one runs only after its first half returns, as in the sequential program. Such a wait
 * therefore never ends once the join is below the outermost six latent entries and every other
 * worker is busy, where the JDK's pool would run the forked half as soon as a worker is free (and,
 * at one worker, would wait forever too). Task forks that a first half leaves unjoined run before
 * the second half of a recorded join (its take-back runs them); below the outermost six they run at
 * the next recorded join above, or when the worker is done, so a second half there must not wait
 * for them either.
 *
 * <p><b>Which join to use.</b> A scope join costs about a call plus a few loads: it reads no
 * thread-local and no {@code Thread.currentThread()}, writes nothing shared, takes no fence, and
 * when it records, stores the function reference only when the slot held another one. {@link
 * Tine#joinLong} does the same work after a {@code Thread.currentThread()} lookup per join, and
 * needs no parameter. {@link Task#fork()}/{@link Task#join()} allocate a task per fork. Measured
 * costs are in {@code docs/design/latent-forks.md}.
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
 * into a lambda run elsewhere, a stream, a field) throws {@link IllegalStateException} at the first
 * of its joins that takes a slow path, before that join records anything: a join on an empty latent
 * stack (its owner is not inside a join, the usual case: an escaped scope is used after its owner
 * moved on), a join whose second half is not the function already in its slot (a closure half
 * always, a method reference the first time at that depth), a promotion, and a second half that is
 * not where its join left it. Not caught: while the owner is inside a join, joins of method
 * references that land on slots where the owner's own recursion left the same functions; they run
 * on the owner's stack, and if both threads join at once, results can be wrong. Nor, while the
 * owner is six latent entries deep, any join that records nothing (a closure join too): it runs
 * both halves on the calling thread and writes nothing of the owner's. The fast path does not look:
 * comparing the thread there made a fork-every scope join about 10% slower (the latent-forks design
 * note has the measurement). In a pool with {@code eagerForks(true)} every scope join forks
 * eagerly, as {@link Task#fork()} does there.
 *
 * <p><b>Why the join methods repeat themselves.</b> Each argument/result shape has its own copy of
 * the same dozen lines, differing only in the functional interface called and the primitive type
 * returned. One generic method would box the results or make the calls of {@code f} and {@code g}
 * megamorphic, the very costs this class exists to avoid. The copies are written from one table of
 * shapes (the test sources' {@code JoinShapes}, which a test keeps current), and what can be shared
 * (the slow paths) is, in {@code LatentJoins}. Each join method is also kept small for the JIT: on
 * the fast path {@code f} and {@code g} have one call site each; a join whose pop fails (its second
 * half promoted or claimed, or unjoined forks of the first half above it) leaves through one call
 * that returns its value ({@code LatentJoins.joinSlow}, which calls {@code g} itself if the half is
 * still latent), and an eager pool's path is a separate {@code joinEagerly} twin (in {@code
 * LatentJoins}). The one-call-site shape took fork-every fib at one worker from 1.92-1.96 to
 * 1.63-1.66 times sequential in one bench configuration, less in another; the slow path out of line
 * made it 6% cheaper, and steadier across JVMs, after runs at p=2 (the latent-forks design note has
 * the runs).
 */
public final class Scope extends LatentStack {
  final Worker worker;
  final WorkDeque<Task<?>> deque;
  private final boolean latent;

  Scope(Worker worker) {
    this.worker = worker;
    this.deque = worker.deque;
    this.latent = worker.latentForks;
  }

  /**
   * The scope of the current thread, a worker of some pool: to enter scope-passing code from a
   * {@link Task}'s {@code compute}. Outside a pool's worker, throws {@link IllegalStateException}
   * (use {@link WorkStealingPool#invoke(java.util.function.Function)} there).
   *
   * @return the current worker's scope
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

  /** {@return the pool whose worker this scope belongs to} */
  public WorkStealingPool pool() {
    return worker.pool;
  }

  // The join shapes: each shape's functional interface and join method. A join's slow paths and
  // its eager twin are LatentJoins's.

  // spotless:off
  // GENERATED by JoinShapes
  // DO NOT EDIT: written from the join-shape table in tine-core/src/test/java/dev/tine/JoinShapes.java.
  // Regenerate: ./mvnw -B -ntp -pl tine-core test -Dtest=JoinShapesTest -Dtine.regenerate=true

  /** A function of the scope and an {@code int} argument, with a {@code long} result. */
  @FunctionalInterface
  public interface IntToLong {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @param x the argument
     * @return the result
     */
    long apply(Scope s, int x);
  }

  /** A function of the scope and an {@code int} argument, with a {@code double} result. */
  @FunctionalInterface
  public interface IntToDouble {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @param x the argument
     * @return the result
     */
    double apply(Scope s, int x);
  }

  /**
   * A function of the scope and an {@code int} argument, with a result of type {@code R}.
   *
   * @param <R> the result type
   */
  @FunctionalInterface
  public interface IntTo<R> {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @param x the argument
     * @return the result
     */
    R apply(Scope s, int x);
  }

  /** A function of the scope and a {@code long} argument, with a {@code long} result. */
  @FunctionalInterface
  public interface LongToLong {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @param x the argument
     * @return the result
     */
    long apply(Scope s, long x);
  }

  /** A function of the scope and a {@code long} argument, with a {@code double} result. */
  @FunctionalInterface
  public interface LongToDouble {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @param x the argument
     * @return the result
     */
    double apply(Scope s, long x);
  }

  /**
   * A function of the scope and a {@code long} argument, with a result of type {@code R}.
   *
   * @param <R> the result type
   */
  @FunctionalInterface
  public interface LongTo<R> {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @param x the argument
     * @return the result
     */
    R apply(Scope s, long x);
  }

  /** A function of the scope and an index range {@code [lo, hi)}, with a {@code long} result. */
  @FunctionalInterface
  public interface RangeToLong {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @param lo the range start (inclusive)
     * @param hi the range end (exclusive)
     * @return the result
     */
    long apply(Scope s, int lo, int hi);
  }

  /** A function of the scope and an index range {@code [lo, hi)}, with a {@code double} result. */
  @FunctionalInterface
  public interface RangeToDouble {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @param lo the range start (inclusive)
     * @param hi the range end (exclusive)
     * @return the result
     */
    double apply(Scope s, int lo, int hi);
  }

  /**
   * A function of the scope and an index range {@code [lo, hi)}, with a result of type {@code R}.
   *
   * @param <R> the result type
   */
  @FunctionalInterface
  public interface RangeTo<R> {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @param lo the range start (inclusive)
     * @param hi the range end (exclusive)
     * @return the result
     */
    R apply(Scope s, int lo, int hi);
  }

  /** An action on the scope and an index range {@code [lo, hi)}. */
  @FunctionalInterface
  public interface RangeAction {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @param lo the range start (inclusive)
     * @param hi the range end (exclusive)
     */
    void run(Scope s, int lo, int hi);
  }

  /**
   * A computation that takes only the scope (a closure over its arguments), with a {@code long}
   * result.
   */
  @FunctionalInterface
  public interface ToLong {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @return the result
     */
    long apply(Scope s);
  }

  /**
   * A computation that takes only the scope (a closure over its arguments), with a {@code double}
   * result.
   */
  @FunctionalInterface
  public interface ToDouble {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @return the result
     */
    double apply(Scope s);
  }

  /**
   * A computation that takes only the scope (a closure over its arguments), with a result of type
   * {@code R}.
   *
   * @param <R> the result type
   */
  @FunctionalInterface
  public interface To<R> {
    /**
     * Runs the computation.
     *
     * @param s the scope of the worker that runs the call
     * @return the result
     */
    R apply(Scope s);
  }

  /**
   * Computes {@code combine(f(a), g(b))} with an {@code int} argument per half; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   *
   * @param f the first half, run here
   * @param a the first half's argument
   * @param g the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code f}
   * @param b the second half's argument
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
   */
  public long joinLong(IntToLong f, int a, IntToLong g, int b, LongBinaryOperator combine) {
    int slot = tryPushFunction(g, b);
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        return LatentJoins.joinEagerly(this, f, a, g, b, combine);
      }
      slot = LatentJoins.forkSlow(this, slot, g, b, JoinKinds.SCOPE_INT_TO_LONG);
    }
    long ra;
    try {
      ra = f.apply(this, a);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      return LatentJoins.joinSlow(this, slot, ra, g, b, combine);
    }
    return combine.applyAsLong(ra, g.apply(this, b)); // the second half's fast-path call
  }

  /**
   * Computes {@code combine(f(a), g(b))} with an {@code int} argument per half; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   *
   * @param f the first half, run here
   * @param a the first half's argument
   * @param g the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code f}
   * @param b the second half's argument
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
   */
  public double joinDouble(
      IntToDouble f, int a, IntToDouble g, int b, DoubleBinaryOperator combine) {
    int slot = tryPushFunction(g, b);
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        return LatentJoins.joinEagerly(this, f, a, g, b, combine);
      }
      slot = LatentJoins.forkSlow(this, slot, g, b, JoinKinds.SCOPE_INT_TO_DOUBLE);
    }
    double ra;
    try {
      ra = f.apply(this, a);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      return LatentJoins.joinSlow(this, slot, ra, g, b, combine);
    }
    return combine.applyAsDouble(ra, g.apply(this, b)); // the second half's fast-path call
  }

  /**
   * Computes {@code combine(f(a), g(b))} with an {@code int} argument per half; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   *
   * @param <A> the first half's result type
   * @param <B> the second half's result type
   * @param <R> the result type
   * @param f the first half, run here
   * @param a the first half's argument
   * @param g the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code f}
   * @param b the second half's argument
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
   */
  @SuppressWarnings("unchecked")
  public <A, B, R> R join(
      IntTo<? extends A> f,
      int a,
      IntTo<? extends B> g,
      int b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    int slot = tryPushFunction(g, b);
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        return LatentJoins.joinEagerly(this, f, a, g, b, combine);
      }
      slot = LatentJoins.forkSlow(this, slot, g, b, JoinKinds.SCOPE_INT_TO_OBJECT);
    }
    A ra;
    try {
      ra = f.apply(this, a);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      return LatentJoins.joinSlow(this, slot, ra, g, b, combine);
    }
    return combine.apply(ra, g.apply(this, b)); // the second half's fast-path call
  }

  /**
   * Computes {@code combine(f(a), g(b))} with a {@code long} argument per half; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   *
   * @param f the first half, run here
   * @param a the first half's argument
   * @param g the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code f}
   * @param b the second half's argument
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
   */
  public long joinLong(LongToLong f, long a, LongToLong g, long b, LongBinaryOperator combine) {
    int slot = tryPushFunction(g, b);
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        return LatentJoins.joinEagerly(this, f, a, g, b, combine);
      }
      slot = LatentJoins.forkSlow(this, slot, g, b, JoinKinds.SCOPE_LONG_TO_LONG);
    }
    long ra;
    try {
      ra = f.apply(this, a);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      return LatentJoins.joinSlow(this, slot, ra, g, b, combine);
    }
    return combine.applyAsLong(ra, g.apply(this, b)); // the second half's fast-path call
  }

  /**
   * Computes {@code combine(f(a), g(b))} with a {@code long} argument per half; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   *
   * @param f the first half, run here
   * @param a the first half's argument
   * @param g the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code f}
   * @param b the second half's argument
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
   */
  public double joinDouble(
      LongToDouble f, long a, LongToDouble g, long b, DoubleBinaryOperator combine) {
    int slot = tryPushFunction(g, b);
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        return LatentJoins.joinEagerly(this, f, a, g, b, combine);
      }
      slot = LatentJoins.forkSlow(this, slot, g, b, JoinKinds.SCOPE_LONG_TO_DOUBLE);
    }
    double ra;
    try {
      ra = f.apply(this, a);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      return LatentJoins.joinSlow(this, slot, ra, g, b, combine);
    }
    return combine.applyAsDouble(ra, g.apply(this, b)); // the second half's fast-path call
  }

  /**
   * Computes {@code combine(f(a), g(b))} with a {@code long} argument per half; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   *
   * @param <A> the first half's result type
   * @param <B> the second half's result type
   * @param <R> the result type
   * @param f the first half, run here
   * @param a the first half's argument
   * @param g the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code f}
   * @param b the second half's argument
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
   */
  @SuppressWarnings("unchecked")
  public <A, B, R> R join(
      LongTo<? extends A> f,
      long a,
      LongTo<? extends B> g,
      long b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    int slot = tryPushFunction(g, b);
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        return LatentJoins.joinEagerly(this, f, a, g, b, combine);
      }
      slot = LatentJoins.forkSlow(this, slot, g, b, JoinKinds.SCOPE_LONG_TO_OBJECT);
    }
    A ra;
    try {
      ra = f.apply(this, a);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      return LatentJoins.joinSlow(this, slot, ra, g, b, combine);
    }
    return combine.apply(ra, g.apply(this, b)); // the second half's fast-path call
  }

  /**
   * Computes {@code combine(f(a), g(b))} with an index range {@code [lo, hi)} per half; {@code g}
   * runs in parallel only if it is promoted while {@code f} runs (see the class comment).
   *
   * @param f the first half, run here
   * @param aLo the first half's range start (inclusive)
   * @param aHi the first half's range end (exclusive)
   * @param g the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code f}
   * @param bLo the second half's range start (inclusive)
   * @param bHi the second half's range end (exclusive)
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
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
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        return LatentJoins.joinEagerly(this, f, aLo, aHi, g, bLo, bHi, combine);
      }
      slot = LatentJoins.forkSlow(this, slot, g, range(bLo, bHi), JoinKinds.SCOPE_RANGE_TO_LONG);
    }
    long ra;
    try {
      ra = f.apply(this, aLo, aHi);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      return LatentJoins.joinSlow(this, slot, ra, g, bLo, bHi, combine);
    }
    return combine.applyAsLong(ra, g.apply(this, bLo, bHi)); // the second half's fast-path call
  }

  /**
   * Computes {@code combine(f(a), g(b))} with an index range {@code [lo, hi)} per half; {@code g}
   * runs in parallel only if it is promoted while {@code f} runs (see the class comment).
   *
   * @param f the first half, run here
   * @param aLo the first half's range start (inclusive)
   * @param aHi the first half's range end (exclusive)
   * @param g the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code f}
   * @param bLo the second half's range start (inclusive)
   * @param bHi the second half's range end (exclusive)
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
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
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        return LatentJoins.joinEagerly(this, f, aLo, aHi, g, bLo, bHi, combine);
      }
      slot = LatentJoins.forkSlow(this, slot, g, range(bLo, bHi), JoinKinds.SCOPE_RANGE_TO_DOUBLE);
    }
    double ra;
    try {
      ra = f.apply(this, aLo, aHi);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      return LatentJoins.joinSlow(this, slot, ra, g, bLo, bHi, combine);
    }
    return combine.applyAsDouble(ra, g.apply(this, bLo, bHi)); // the second half's fast-path call
  }

  /**
   * Computes {@code combine(f(a), g(b))} with an index range {@code [lo, hi)} per half; {@code g}
   * runs in parallel only if it is promoted while {@code f} runs (see the class comment).
   *
   * @param <A> the first half's result type
   * @param <B> the second half's result type
   * @param <R> the result type
   * @param f the first half, run here
   * @param aLo the first half's range start (inclusive)
   * @param aHi the first half's range end (exclusive)
   * @param g the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code f}
   * @param bLo the second half's range start (inclusive)
   * @param bHi the second half's range end (exclusive)
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
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
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        return LatentJoins.joinEagerly(this, f, aLo, aHi, g, bLo, bHi, combine);
      }
      slot = LatentJoins.forkSlow(this, slot, g, range(bLo, bHi), JoinKinds.SCOPE_RANGE_TO_OBJECT);
    }
    A ra;
    try {
      ra = f.apply(this, aLo, aHi);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      return LatentJoins.joinSlow(this, slot, ra, g, bLo, bHi, combine);
    }
    return combine.apply(ra, g.apply(this, bLo, bHi)); // the second half's fast-path call
  }

  /**
   * Runs {@code f} on {@code [aLo, aHi)} and {@code g} on {@code [bLo, bHi)}; {@code g} runs in
   * parallel only if it is promoted while {@code f} runs (see the class comment).
   *
   * @param f the first half, run here
   * @param aLo the first half's range start (inclusive)
   * @param aHi the first half's range end (exclusive)
   * @param g the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code f}
   * @param bLo the second half's range start (inclusive)
   * @param bHi the second half's range end (exclusive)
   */
  public void join(RangeAction f, int aLo, int aHi, RangeAction g, int bLo, int bHi) {
    int slot = tryPushFunction(g, range(bLo, bHi));
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        LatentJoins.joinEagerly(this, f, aLo, aHi, g, bLo, bHi);
        return;
      }
      slot = LatentJoins.forkSlow(this, slot, g, range(bLo, bHi), JoinKinds.SCOPE_RANGE_TO_VOID);
    }
    try {
      f.run(this, aLo, aHi);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      LatentJoins.joinSlow(this, slot, g, bLo, bHi);
      return;
    }
    g.run(this, bLo, bHi); // the second half's fast-path call
  }

  /**
   * Computes {@code combine(a(), b())} for halves that capture their arguments (any number, any
   * type): {@code b} runs in parallel only if it is promoted while {@code a} runs. Costs what the
   * other scope joins cost plus the allocation of {@code b}'s closure (it is stored in the latent
   * stack, so it escapes); {@code a} is called directly and need not be allocated.
   *
   * @param a the first half, run here
   * @param b the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code a}
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
   */
  public long joinLong(ToLong a, ToLong b, LongBinaryOperator combine) {
    int slot = tryPushFunction(b, 0L);
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        return LatentJoins.joinEagerly(this, a, b, combine);
      }
      slot = LatentJoins.forkSlow(this, slot, b, 0L, JoinKinds.SCOPE_TO_LONG);
    }
    long ra;
    try {
      ra = a.apply(this);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      return LatentJoins.joinSlow(this, slot, ra, b, combine);
    }
    return combine.applyAsLong(ra, b.apply(this)); // the second half's fast-path call
  }

  /**
   * Computes {@code combine(a(), b())} for halves that capture their arguments (any number, any
   * type): {@code b} runs in parallel only if it is promoted while {@code a} runs. Costs what the
   * other scope joins cost plus the allocation of {@code b}'s closure (it is stored in the latent
   * stack, so it escapes); {@code a} is called directly and need not be allocated.
   *
   * @param a the first half, run here
   * @param b the second half: forked, run by a thief if one asks for it meanwhile, else here after
   *     {@code a}
   * @param combine combines the two halves' results
   * @return {@code combine} of the two results
   */
  public double joinDouble(ToDouble a, ToDouble b, DoubleBinaryOperator combine) {
    int slot = tryPushFunction(b, 0L);
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        return LatentJoins.joinEagerly(this, a, b, combine);
      }
      slot = LatentJoins.forkSlow(this, slot, b, 0L, JoinKinds.SCOPE_TO_DOUBLE);
    }
    double ra;
    try {
      ra = a.apply(this);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      return LatentJoins.joinSlow(this, slot, ra, b, combine);
    }
    return combine.applyAsDouble(ra, b.apply(this)); // the second half's fast-path call
  }

  /**
   * Computes {@code combine(a(), b())} for halves that capture their arguments (any number, any
   * type): {@code b} runs in parallel only if it is promoted while {@code a} runs. Costs what the
   * other scope joins cost plus the allocation of {@code b}'s closure (it is stored in the latent
   * stack, so it escapes); {@code a} is called directly and need not be allocated.
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
  public <A, B, R> R join(
      To<? extends A> a, To<? extends B> b, BiFunction<? super A, ? super B, ? extends R> combine) {
    int slot = tryPushFunction(b, 0L);
    if (slot == -1 || dequeEmptied != 0) {
      if (!latent) {
        return LatentJoins.joinEagerly(this, a, b, combine);
      }
      slot = LatentJoins.forkSlow(this, slot, b, 0L, JoinKinds.SCOPE_TO_OBJECT);
    }
    A ra;
    try {
      ra = a.apply(this);
    } catch (Throwable e) {
      LatentJoins.firstHalfThrew(this, slot);
      throw e;
    }
    if (slot >= 0 && !tryPopFunction(slot)) {
      return LatentJoins.joinSlow(this, slot, ra, b, combine);
    }
    return combine.apply(ra, b.apply(this)); // the second half's fast-path call
  }
  // END GENERATED by JoinShapes
  // spotless:on

  static long range(int lo, int hi) {
    return ((long) lo << 32) | (hi & 0xFFFF_FFFFL);
  }

  static int rangeLo(long packed) {
    return (int) (packed >> 32);
  }

  static int rangeHi(long packed) {
    return (int) packed;
  }
}

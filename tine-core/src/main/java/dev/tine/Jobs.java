package dev.tine;

import java.util.function.IntToLongFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/** The task form of a primitive join's second half, created only when it is promoted. */
final class Jobs {
  private Jobs() {}

  static final int INT_TO_LONG = LatentStack.KIND_FIRST_FUNCTION;
  static final int LONG_SUPPLIER = INT_TO_LONG + 1;
  static final int SUPPLIER = LONG_SUPPLIER + 1;
  static final int RUNNABLE = SUPPLIER + 1;
  // Scope joins: (argument shape, result type). The function takes the running worker's scope.
  static final int SCOPE_INT_TO_LONG = RUNNABLE + 1;
  static final int SCOPE_LONG_TO_LONG = SCOPE_INT_TO_LONG + 1;
  static final int SCOPE_RANGE_TO_LONG = SCOPE_LONG_TO_LONG + 1;
  static final int SCOPE_INT_TO_DOUBLE = SCOPE_RANGE_TO_LONG + 1;
  static final int SCOPE_LONG_TO_DOUBLE = SCOPE_INT_TO_DOUBLE + 1;
  static final int SCOPE_RANGE_TO_DOUBLE = SCOPE_LONG_TO_DOUBLE + 1;
  static final int SCOPE_INT_TO_OBJECT = SCOPE_RANGE_TO_DOUBLE + 1;
  static final int SCOPE_LONG_TO_OBJECT = SCOPE_INT_TO_OBJECT + 1;
  static final int SCOPE_RANGE_TO_OBJECT = SCOPE_LONG_TO_OBJECT + 1;
  static final int SCOPE_RANGE_ACTION = SCOPE_RANGE_TO_OBJECT + 1;
  static final int SCOPE_TO_LONG = SCOPE_RANGE_ACTION + 1;
  static final int SCOPE_TO_DOUBLE = SCOPE_TO_LONG + 1;
  static final int SCOPE_TO_OBJECT = SCOPE_TO_DOUBLE + 1;

  /**
   * Per class: whether its instances have at most one join kind, that is, implement at most one of
   * the functional interfaces a join can record them under (a lambda or method reference implements
   * one; a user's class may implement several).
   */
  static final ClassValue<Boolean> SINGLE_KIND =
      new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> c) {
          return kindsOf(c) <= 1;
        }
      };

  private static int kindsOf(Class<?> c) {
    int n = 0;
    n += IntToLongFunction.class.isAssignableFrom(c) ? 1 : 0;
    n += LongSupplier.class.isAssignableFrom(c) ? 1 : 0;
    n += Supplier.class.isAssignableFrom(c) ? 1 : 0;
    n += Runnable.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.IntToLong.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.LongToLong.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.RangeToLong.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.IntToDouble.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.LongToDouble.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.RangeToDouble.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.IntTo.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.LongTo.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.RangeTo.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.RangeAction.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.ToLong.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.ToDouble.class.isAssignableFrom(c) ? 1 : 0;
    n += Scope.To.class.isAssignableFrom(c) ? 1 : 0;
    // A task counts: the latent stack tells task entries by their item being a Task, so a task
    // that is also a join function must be recorded wrapped (ScopeTest.aTaskPassedAsAJoin...).
    n += Task.class.isAssignableFrom(c) ? 1 : 0;
    return n;
  }

  /**
   * A function object stored in a latent slot in a wrapper, because it implements more than one
   * join interface (see {@code Scope.itemFor}); a job unwraps it.
   */
  static final class Ambiguous {
    final Object fn;

    Ambiguous(Object fn) {
      this.fn = fn;
    }
  }

  /**
   * Runs a (function, argument) pair; a long result lands in {@link #longResult}, a double in
   * {@link #doubleResult}. A job runs only on a worker of its pool (it is never handed out).
   */
  static final class Job extends Task<Object> {
    private final Object fn;
    private final long arg;
    private final int kind;
    long longResult;
    double doubleResult;

    Job(Object fn, long arg, int kind) {
      this.fn = fn instanceof Ambiguous a ? a.fn : fn;
      this.arg = arg;
      this.kind = kind;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Object compute() {
      switch (kind) {
        case INT_TO_LONG -> longResult = ((IntToLongFunction) fn).applyAsLong((int) arg);
        case LONG_SUPPLIER -> longResult = ((LongSupplier) fn).getAsLong();
        case SUPPLIER -> {
          return ((Supplier<Object>) fn).get();
        }
        case RUNNABLE -> ((Runnable) fn).run();
        case SCOPE_INT_TO_LONG -> longResult = ((Scope.IntToLong) fn).apply(scope(), (int) arg);
        case SCOPE_LONG_TO_LONG -> longResult = ((Scope.LongToLong) fn).apply(scope(), arg);
        case SCOPE_RANGE_TO_LONG ->
            longResult =
                ((Scope.RangeToLong) fn).apply(scope(), Scope.rangeLo(arg), Scope.rangeHi(arg));
        case SCOPE_INT_TO_DOUBLE ->
            doubleResult = ((Scope.IntToDouble) fn).apply(scope(), (int) arg);
        case SCOPE_LONG_TO_DOUBLE -> doubleResult = ((Scope.LongToDouble) fn).apply(scope(), arg);
        case SCOPE_RANGE_TO_DOUBLE ->
            doubleResult =
                ((Scope.RangeToDouble) fn).apply(scope(), Scope.rangeLo(arg), Scope.rangeHi(arg));
        case SCOPE_INT_TO_OBJECT -> {
          return ((Scope.IntTo<Object>) fn).apply(scope(), (int) arg);
        }
        case SCOPE_LONG_TO_OBJECT -> {
          return ((Scope.LongTo<Object>) fn).apply(scope(), arg);
        }
        case SCOPE_RANGE_TO_OBJECT -> {
          return ((Scope.RangeTo<Object>) fn)
              .apply(scope(), Scope.rangeLo(arg), Scope.rangeHi(arg));
        }
        case SCOPE_TO_LONG -> longResult = ((Scope.ToLong) fn).apply(scope());
        case SCOPE_TO_DOUBLE -> doubleResult = ((Scope.ToDouble) fn).apply(scope());
        case SCOPE_TO_OBJECT -> {
          return ((Scope.To<Object>) fn).apply(scope());
        }
        case SCOPE_RANGE_ACTION ->
            ((Scope.RangeAction) fn).run(scope(), Scope.rangeLo(arg), Scope.rangeHi(arg));
        default -> throw new IllegalStateException("unknown job kind " + kind);
      }
      return null;
    }

    private static Scope scope() {
      return ((Worker) Thread.currentThread()).scope;
    }

    double joinDouble() {
      join();
      return doubleResult;
    }

    long joinLong() {
      join();
      return longResult;
    }
  }
}

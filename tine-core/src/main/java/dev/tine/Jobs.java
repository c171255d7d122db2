package dev.tine;

import dev.tine.latent.LatentStack;
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

  /** Runs a (function, argument) pair; a long result lands in {@link #longResult}. */
  static final class Job extends Task<Object> {
    private final Object fn;
    private final long arg;
    private final int kind;
    long longResult;

    Job(Object fn, long arg, int kind) {
      this.fn = fn;
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
        default -> throw new IllegalStateException("unknown job kind " + kind);
      }
      return null;
    }

    long joinLong() {
      join();
      return longResult;
    }
  }
}

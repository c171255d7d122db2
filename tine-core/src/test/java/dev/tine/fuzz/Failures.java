package dev.tine.fuzz;

/**
 * The throwables programs throw. Public, with public no-argument constructors, so that the JDK's
 * ForkJoinTask can make its cross-thread copies of them (it rethrows a new instance whose cause is
 * the original when the joiner is not the thread that ran the task); the fuzzer compares that.
 */
public final class Failures {
  private Failures() {}

  /** An unchecked exception. */
  public static final class FuzzUnchecked extends RuntimeException {
    public FuzzUnchecked() {}
  }

  /** An error. */
  public static final class FuzzError extends Error {
    public FuzzError() {}
  }

  /** A checked exception, thrown sneakily (undeclared). */
  public static final class FuzzChecked extends Exception {
    public FuzzChecked() {}
  }

  /** Throws {@code t} without declaring it. */
  @SuppressWarnings("unchecked")
  static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
    throw (T) t;
  }

  /** Whether a class is a checked exception (not a RuntimeException nor an Error). */
  static boolean isChecked(Class<?> c) {
    return Throwable.class.isAssignableFrom(c)
        && !RuntimeException.class.isAssignableFrom(c)
        && !Error.class.isAssignableFrom(c);
  }
}

package dev.tine.bench;

import dev.tine.WorkStealingPool;
import java.util.concurrent.ForkJoinPool;

/**
 * One program at one size: its sequential, Tine and JDK versions, written the same way, optionally
 * the JDK's ready-made parallel form, and a check of each result. {@link #prepare()} runs untimed
 * before every timed run (to reset inputs that a run consumes, such as an array to sort).
 */
public interface Workload {
  /** Human-readable parameters, e.g. "n=40, threshold=13". */
  String parameters();

  default void prepare() {}

  Object sequential();

  Object tine(WorkStealingPool pool);

  Object jdk(ForkJoinPool pool);

  /**
   * The JDK's ready-made parallel form of this program, named as a user would know it (e.g.
   * "Arrays.parallelSort"), or null if the JDK has none; then {@link #jdkBuiltin()} runs it.
   */
  default String jdkBuiltinForm() {
    return null;
  }

  /**
   * The program written with the JDK's ready-made parallel form, as a user would write it. The
   * runner calls it as {@code pool.submit(() -> workload.jdkBuiltin()).get()} on a ForkJoinPool of
   * p workers: parallel streams and Arrays.parallel* started from a worker run in that worker's
   * pool.
   */
  default Object jdkBuiltin() {
    throw new UnsupportedOperationException("no JDK built-in form");
  }

  /** True if {@code result} is exactly what the program must compute. */
  boolean verify(Object result);

  /** Number of tasks one parallel run creates (for task rates), or -1 if not known. */
  default long tasksPerRun() {
    return -1;
  }
}

package dev.tine.bench;

import dev.tine.WorkStealingPool;
import java.util.concurrent.ForkJoinPool;

/**
 * One program at one size: its sequential, Tine and JDK versions, written the same way, and a
 * check of each result. {@link #prepare()} runs untimed before every timed run (to reset inputs
 * that a run consumes, such as an array to sort).
 */
public interface Workload {
  /** Human-readable parameters, e.g. "n=40, threshold=13". */
  String parameters();

  default void prepare() {}

  Object sequential();

  Object tine(WorkStealingPool pool);

  Object jdk(ForkJoinPool pool);

  /** True if {@code result} is exactly what the program must compute. */
  boolean verify(Object result);

  /** Number of tasks one parallel run creates (for task rates), or -1 if not known. */
  default long tasksPerRun() {
    return -1;
  }
}

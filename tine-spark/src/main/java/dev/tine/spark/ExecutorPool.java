package dev.tine.spark;

import dev.tine.PoolStats;
import dev.tine.WorkStealingPool;

/**
 * The one Tine pool of an executor JVM, shared by all the pieces that run there at the same time
 * (each Spark task thread submits its piece and waits; the pool's workers steal between them). Made
 * on first use with the executor's core count; its workers are daemons, so the executor's exit ends
 * them.
 */
final class ExecutorPool {
  private static WorkStealingPool pool;
  private static int parallelism;

  /** Counters at the last report: each report carries the difference. */
  private static long tasks, steals, promotions, busyNanos;

  private ExecutorPool() {}

  static synchronized WorkStealingPool get(int cores) {
    int p = cores > 0 ? cores : Runtime.getRuntime().availableProcessors();
    if (pool == null || parallelism != p) {
      if (pool != null) {
        pool.shutdown(); // another core count (a new local-mode context): running pieces finish
      }
      pool = WorkStealingPool.builder().parallelism(p).name("tine-spark").build();
      parallelism = p;
      tasks = steals = promotions = busyNanos = 0;
    }
    return pool;
  }

  /** {@return this JVM's pool, or null before the first piece (for tests)} */
  static synchronized WorkStealingPool current() {
    return pool;
  }

  /** The pool's counters since the previous call: {tasks, steals, promotions, busyNanos}. */
  static synchronized long[] takeDelta() {
    if (pool == null) {
      return new long[4];
    }
    PoolStats s = pool.stats();
    long cpu = Math.max(0, s.cpuNanos());
    long[] d = {
      s.tasksExecuted() - tasks, s.steals() - steals, s.promotions() - promotions, cpu - busyNanos
    };
    tasks = s.tasksExecuted();
    steals = s.steals();
    promotions = s.promotions();
    busyNanos = cpu;
    return d;
  }

  /** Closes this JVM's pool (local mode, where the executor is the driver and lives on). */
  static synchronized void close() {
    if (pool != null) {
      pool.close();
      pool = null;
    }
  }
}

package dev.tine.agent.state;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * Reads a pool's sizes and counts through its public getters, at a tick: the JDK's pools directly,
 * a server's through its family, a Tine pool by reflection (the agent does not depend on
 * tine-core).
 */
final class PoolGetters {
  private PoolGetters() {}

  /** Reads the pool's sizes into {@code f}; returns whether it has terminated. */
  static boolean readSizes(Object pool, Kind kind, ServerFamily family, PoolFigures f)
      throws Throwable {
    if (family != null) return family.readSizes(pool, f);
    if (pool instanceof ThreadPoolExecutor p) {
      f.corePoolSize = p.getCorePoolSize();
      f.maximumPoolSize = p.getMaximumPoolSize();
      f.poolSize = p.getPoolSize();
      f.activeCount = p.getActiveCount();
      f.largestPoolSize = p.getLargestPoolSize();
      f.queueLength = p.getQueue().size();
      if (p.isShutdown() && !p.isTerminated()) f.state = "shutting down";
      return p.isTerminated();
    }
    if (pool instanceof ForkJoinPool p) {
      f.parallelism = p.getParallelism();
      f.corePoolSize = f.maximumPoolSize = f.parallelism;
      f.poolSize = p.getPoolSize();
      f.activeCount = p.getActiveThreadCount();
      f.queueLength =
          (int) Math.min(Integer.MAX_VALUE, p.getQueuedSubmissionCount() + p.getQueuedTaskCount());
      f.stealCount = p.getStealCount();
      if (p == ForkJoinPool.commonPool()) return false;
      if (p.isShutdown() && !p.isTerminated()) f.state = "shutting down";
      return p.isTerminated();
    }
    if (kind == Kind.TINE) {
      Class<?> c = pool.getClass();
      f.parallelism = (int) c.getMethod("parallelism").invoke(pool);
      f.corePoolSize = f.maximumPoolSize = f.parallelism;
      f.poolSize = (int) c.getMethod("poolSize").invoke(pool);
      f.activeCount = f.poolSize - (int) c.getMethod("sleepingWorkers").invoke(pool);
      f.queueLength =
          (int) Math.min(Integer.MAX_VALUE, (long) c.getMethod("queuedTasks").invoke(pool));
      return (boolean) c.getMethod("isTerminated").invoke(pool);
    }
    return false;
  }

  /**
   * A Tine pool's {@code stats()}: its steals and CPU into {@code f}; returns its tasks executed.
   */
  static long tineStats(Object pool, PoolFigures f) throws ReflectiveOperationException {
    Object stats = pool.getClass().getMethod("stats").invoke(pool);
    Class<?> s = stats.getClass();
    f.stealCount = (long) s.getMethod("steals").invoke(stats);
    f.cpuTimeNanos = (long) s.getMethod("cpuNanos").invoke(stats);
    return (long) s.getMethod("tasksExecuted").invoke(stats);
  }

  /** A Tine pool's own name ({@code name()}). */
  static String tineName(Object pool) throws ReflectiveOperationException {
    return String.valueOf(pool.getClass().getMethod("name").invoke(pool));
  }
}

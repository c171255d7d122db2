package dev.tine;

/**
 * The JMX view of a {@link WorkStealingPool}, registered as {@code
 * dev.tine:type=WorkStealingPool,name=<pool name>} while the pool runs (see it in JConsole or
 * VisualVM). Counter totals are those of {@link PoolStats}.
 */
public interface WorkStealingPoolMXBean {
  String getName();

  int getParallelism();

  int getPoolSize();

  int getSleepingWorkers();

  long getQueuedTasks();

  long getTasksExecuted();

  long getForks();

  long getLocalPops();

  long getSteals();

  long getFailedSteals();

  long getJoins();

  long getJoinsHelped();

  long getJoinsBlocked();

  long getParks();

  long getIdleMillis();

  long getLatentForks();

  long getPromotions();

  long getPromotedStolen();

  long getInlineJoins();

  /** "latent" or "eager". */
  String getForkMode();

  long getWorkerCpuMillis();

  double getStealRatio();

  boolean isShutdown();

  /** Makes the counters count from now. */
  void resetStats();
}

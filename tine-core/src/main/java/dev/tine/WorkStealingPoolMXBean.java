package dev.tine;

/**
 * The JMX view of a {@link WorkStealingPool}, registered as {@code
 * dev.tine:type=WorkStealingPool,name=<pool name>} while the pool runs (see it in JConsole or
 * VisualVM). Counter totals are those of {@link PoolStats}.
 */
public interface WorkStealingPoolMXBean {
  /** {@return the pool's name} */
  String getName();

  /** {@return the configured number of workers} */
  int getParallelism();

  /** {@return workers started now} */
  int getPoolSize();

  /** {@return workers asleep now} */
  int getSleepingWorkers();

  /** {@return tasks queued now (approximate while running)} */
  long getQueuedTasks();

  /** {@return tasks run to completion (normally or not), summed over the workers} */
  long getTasksExecuted();

  /**
   * {@return calls of {@code fork()}, latent or eager, and eagerly forked second halves of
   * primitive joins, summed over the workers}
   */
  long getForks();

  /**
   * {@return tasks popped from the worker's own deque or latent stack outside an inline join,
   * summed over the workers}
   */
  long getLocalPops();

  /** {@return tasks taken from another worker's deque, summed over the workers} */
  long getSteals();

  /** {@return sweeps over all deques that found nothing, summed over the workers} */
  long getFailedSteals();

  /** {@return joins of incomplete tasks by workers, summed over the workers} */
  long getJoins();

  /**
   * {@return joins whose target was not in the joiner's own deque, so it helped, summed over the
   * workers}
   */
  long getJoinsHelped();

  /** {@return joins that had to block at least once, summed over the workers} */
  long getJoinsBlocked();

  /** {@return times a worker went to sleep, summed over the workers} */
  long getParks();

  /** {@return milliseconds the workers spent looking for work, summed} */
  long getIdleMillis();

  /** {@return {@code Task} forks recorded latent, summed over the workers} */
  long getLatentForks();

  /** {@return latent forks moved to a deque, summed over the workers} */
  long getPromotions();

  /** {@return promoted forks a thief took, summed over the workers} */
  long getPromotedStolen();

  /**
   * {@return joins of a never-promoted {@code Task} fork, run by a direct call, summed over the
   * workers}
   */
  long getInlineJoins();

  /** {@return "latent" or "eager"} */
  String getForkMode();

  /** {@return the workers' CPU time in ms, or -1 if unavailable} */
  long getWorkerCpuMillis();

  /** {@return steals / tasks executed} */
  double getStealRatio();

  /** {@return whether the pool has been shut down} */
  boolean isShutdown();

  /** Makes the counters count from now. */
  void resetStats();
}

package dev.tine.agent.jmx;

/**
 * One measured pool, as {@code dev.tine.agent:type=Pool,name=<name>,id=<n>} (JConsole, VisualVM,
 * {@code tine top}). Figures are those of the agent's last tick (about a second old at most):
 * rates, means and percentiles over the sliding window ({@link #getWindowSeconds()}), counts since
 * the agent first saw the pool. Times in milliseconds; NaN or -1 where unknown or not applicable to
 * the kind.
 */
public interface PoolMXBean {
  int getId();

  String getName();

  String getKind();

  String getPoolClass();

  String getCreatedAt();

  String getState();

  long getMeasuredAtMillis();

  int getCorePoolSize();

  int getMaximumPoolSize();

  int getPoolSize();

  int getActiveCount();

  int getQueueLength();

  int getParallelism();

  long getStealCount();

  long getArrivals();

  long getCompleted();

  long getRejected();

  long getFailed();

  double getWindowSeconds();

  long getWindowArrivals();

  long getWindowCompleted();

  long getWindowRejected();

  double getArrivalRate();

  double getRetirementRate();

  double getServiceMillis();

  double getWaitMillis();

  double getResponseMillis();

  double getWaitP50Millis();

  double getWaitP90Millis();

  double getWaitP99Millis();

  double getServiceP50Millis();

  double getServiceP90Millis();

  double getServiceP99Millis();

  /** The longest queue wait in the window (ms). */
  double getWaitMaxMillis();

  /** The longest service time in the window (ms). */
  double getServiceMaxMillis();

  /** Little's law over the window: retirement rate × (wait + service). */
  double getLittlesL();

  /** Seed 004's dead time: wait / (wait + service), summed over the timed tasks. */
  double getDeadTimeRatio();

  /** CPU time of the pool's threads over the window, in percent of one core. */
  double getCpuPercent();

  long getCpuTimeNanos();

  double getCpuPerTaskMillis();

  /** Timing sampled 1 in this many tasks (1: all); counts are exact either way. */
  int getSampleEvery();

  /** PoolSizeAdvisor's size for p90 wait ≤ max(1 ms, S), or -1. */
  int getRecommendedSize();

  String getRecommendation();
}

package dev.tine.agent.jmx;

/**
 * One measured pool, as {@code dev.tine.agent:type=Pool,name=<name>,id=<n>} (JConsole, VisualVM,
 * {@code tine top}). Figures are those of the agent's last tick (about a second old at most):
 * rates, means and percentiles over the sliding window ({@link #getWindowSeconds()}), counts since
 * the agent first saw the pool. Times in milliseconds; NaN or -1 where unknown or not applicable to
 * the kind.
 */
public interface PoolMXBean {
  /** {@return the pool's id, unique in this JVM (the {@code id} key of the ObjectName)} */
  int getId();

  /**
   * {@return the pool's name: its threads' common prefix, else its class and where it was created}
   */
  String getName();

  /**
   * {@return the kind of pool: ThreadPoolExecutor, ScheduledThreadPoolExecutor, ForkJoinPool or
   * WorkStealingPool}
   */
  String getKind();

  /** {@return the pool's class name} */
  String getPoolClass();

  /** {@return where the pool was created (a stack frame), or "" if unknown} */
  String getCreatedAt();

  /** {@return the pool's state: running, shutting down or terminated} */
  String getState();

  /** {@return when these figures were taken (epoch milliseconds)} */
  long getMeasuredAtMillis();

  /** {@return the core pool size (-1 if not applicable)} */
  int getCorePoolSize();

  /** {@return the maximum pool size (-1 if not applicable)} */
  int getMaximumPoolSize();

  /** {@return the pool's threads now} */
  int getPoolSize();

  /** {@return threads running a task now} */
  int getActiveCount();

  /** {@return tasks queued now} */
  int getQueueLength();

  /** {@return the parallelism of a fork/join pool (-1 for other kinds)} */
  int getParallelism();

  /** {@return steals of a fork/join pool (-1 for other kinds)} */
  long getStealCount();

  /** {@return tasks offered since the agent first saw the pool} */
  long getArrivals();

  /** {@return tasks that finished since the agent first saw the pool} */
  long getCompleted();

  /** {@return tasks rejected since the agent first saw the pool (exact)} */
  long getRejected();

  /** {@return tasks that threw since the agent first saw the pool} */
  long getFailed();

  /** {@return the length of the sliding window, in seconds} */
  double getWindowSeconds();

  /** {@return tasks offered in the window} */
  long getWindowArrivals();

  /** {@return tasks that finished in the window} */
  long getWindowCompleted();

  /** {@return tasks rejected in the window} */
  long getWindowRejected();

  /** {@return arrivals per second over the window (λ)} */
  double getArrivalRate();

  /** {@return completions per second over the window} */
  double getRetirementRate();

  /** {@return the mean service time S over the window} */
  double getServiceMillis();

  /** {@return the mean queueing wait Wq over the window} */
  double getWaitMillis();

  /** {@return the mean response time (Wq + S) over the window} */
  double getResponseMillis();

  /** {@return the median queueing wait over the window} */
  double getWaitP50Millis();

  /** {@return the 90th percentile of the queueing wait over the window} */
  double getWaitP90Millis();

  /** {@return the 99th percentile of the queueing wait over the window} */
  double getWaitP99Millis();

  /** {@return the median service time over the window} */
  double getServiceP50Millis();

  /** {@return the 90th percentile of the service time over the window} */
  double getServiceP90Millis();

  /** {@return the 99th percentile of the service time over the window} */
  double getServiceP99Millis();

  /** {@return the longest queue wait in the window (ms)} */
  double getWaitMaxMillis();

  /** {@return the longest service time in the window (ms)} */
  double getServiceMaxMillis();

  /** {@return Little's law over the window: accepted arrivals per second × (wait + service)} */
  double getLittlesL();

  /** {@return Pepperdine's dead time: wait / (wait + service), summed over the timed tasks} */
  double getDeadTimeRatio();

  /** {@return CPU time of the pool's threads over the window, in percent of one core} */
  double getCpuPercent();

  /**
   * {@return CPU time of the pool's threads since the agent saw them, in nanoseconds (-1 if
   * unknown)}
   */
  long getCpuTimeNanos();

  /** {@return CPU time per completed task over the window, in ms (NaN if unknown)} */
  double getCpuPerTaskMillis();

  /** {@return timing sampled 1 in this many tasks (1: all); counts are exact either way} */
  int getSampleEvery();

  /** {@return PoolSizeAdvisor's size for p90 wait ≤ max(1 ms, S), or -1} */
  int getRecommendedSize();

  /** {@return the advisor's size with its reasons in one line, or "" if none} */
  String getRecommendation();

  // Per request or per task. A server's pool that served requests (Tomcat, ...) is measured per
  // request: the figures above are its requests', and its pool tasks' are the Task* ones below.

  /** {@return what the figures above count: "requests" (a server's pool) or "tasks"} */
  String getUnit();

  /** {@return pool tasks per request over the window (NaN unless the unit is requests)} */
  double getTasksPerRequest();

  /** {@return pool tasks offered per second over the window} */
  double getTaskArrivalRate();

  /** {@return pool tasks finished per second over the window} */
  double getTaskRetirementRate();

  /** {@return a pool task's mean run time over the window} */
  double getTaskServiceMillis();

  /** {@return a pool task's mean queue wait over the window} */
  double getTaskWaitMillis();

  /** {@return the 99th percentile of the pool tasks' queue wait over the window} */
  double getTaskWaitP99Millis();

  /** {@return Little's law for the pool's tasks: task arrivals per second × (wait + run)} */
  double getTaskLittlesL();

  /** {@return pool tasks finished in the window} */
  long getTaskWindowCompleted();

  /** {@return pool tasks finished since the agent saw the pool} */
  long getTaskCompleted();

  // Resizing (tine top --resize, tine tune): the effective size is the one that bounds the
  // threads running tasks (see tine-agent/DESIGN.md, "Resizing").

  /** {@return whether the agent can set this pool's size at run time} */
  boolean isResizable();

  /** {@return why the pool's size cannot be set at run time, or "" if it can} */
  String getNotResizableWhy();

  /**
   * {@return what the effective size is, in the pool's terms ("maximum pool size", "core pool
   * size", "maxThreads", ...), or "" if not resizable}
   */
  String getSizeSetting();

  /** {@return the effective size now (-1 if not resizable)} */
  int getCurrentSize();

  /**
   * {@return the effective size before the agent first changed it; the current size while the agent
   * has not changed it (-1 if not resizable)}
   */
  int getOriginalSize();

  /** {@return the agent's changes to this pool's size (0: never changed; restores count too)} */
  int getResizeCount();

  /** {@return who asked for the agent's last change, and why, or "" if none} */
  String getLastResizedBy();

  /** {@return when the agent last changed the pool's size (epoch ms), or 0} */
  long getLastResizedAtMillis();

  /**
   * {@return when the agent saw the pool's size changed by someone else (epoch ms), or 0: resize
   * and tune then refuse it unless forced}
   */
  long getExternallyResizedAtMillis();

  /**
   * {@return "resized by another tool at TIME (from A to B)", or "" if no one else did since the
   * agent's last change}
   */
  String getExternalResize();
}

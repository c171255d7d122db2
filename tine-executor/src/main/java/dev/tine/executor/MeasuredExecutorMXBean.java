package dev.tine.executor;

/**
 * JMX view of a {@link MeasuredExecutor}: {@code dev.tine:type=MeasuredExecutor,name=<name>}. Rates
 * and times describe the sliding window (the last few seconds); counts are since start.
 */
public interface MeasuredExecutorMXBean {
  /** {@return the executor's name (the {@code name} key of this bean's ObjectName)} */
  String getName();

  /** {@return pool threads allowed now (the core size)} */
  int getPoolSize();

  /** {@return tasks waiting in the queue now} */
  int getQueueLength();

  /** {@return tasks offered since start, accepted or rejected} */
  long getArrivals();

  /** {@return tasks that finished since start, normally or by throwing} */
  long getCompleted();

  /** {@return tasks that threw since start} */
  long getFailed();

  /** {@return tasks refused since start (bounded queue full, or shut down)} */
  long getRejected();

  /** {@return arrivals per second over the window (λ)} */
  double getArrivalRate();

  /** {@return completions per second over the window} */
  double getRetirementRate();

  /** {@return mean service (run) time S over the window, in ms} */
  double getAverageServiceTimeMillis();

  /**
   * {@return mean time a task waited in the queue over the window (Pepperdine's dead time), in ms}
   */
  double getAverageTimeWaitingInPoolMillis();

  /** {@return mean response time (wait + service) over the window, in ms} */
  double getAverageResponseTimeMillis();

  /**
   * {@return Little's L over the window: completions/s × mean response time = tasks in the executor
   * on average}
   */
  double getEstimatedAverageNumberOfActiveRequests();

  /** {@return the share of response time spent waiting in the queue over the window, 0..1} */
  double getRatioOfDeadTimeToResponseTime();

  /** {@return Little's L divided by the available processors} */
  double getEstimatedAverageNumberOfActiveRequestsPerCpu();

  /** {@return the 90th percentile of the queueing wait over the window, in ms} */
  double getP90WaitMillis();

  /** {@return the 99th percentile of the response time over the window, in ms} */
  double getP99ResponseMillis();

  /** {@return process CPU time / (window × processors) over the window, 0..1, or -1 if unknown} */
  double getCpuUtilization();

  /** {@return CPU time of the pool's threads / (window × processors), or -1 if unknown} */
  double getPoolCpuUtilization();

  /** {@return measurement ticks that threw since start (the executor keeps measuring after one)} */
  long getTickFailures();

  /**
   * {@return what the last failed tick threw ({@code Throwable.toString()}), or null if none
   * failed}
   */
  String getLastTickFailure();

  /** {@return whether the executor sizes its pool from its own measurements} */
  boolean isSelfSizing();
}

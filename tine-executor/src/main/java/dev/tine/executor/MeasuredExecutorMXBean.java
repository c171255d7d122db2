package dev.tine.executor;

/**
 * JMX view of a {@link MeasuredExecutor}: {@code dev.tine:type=MeasuredExecutor,name=<name>}. Rates
 * and times describe the sliding window (the last few seconds); counts are since start.
 */
public interface MeasuredExecutorMXBean {
  String getName();

  int getPoolSize();

  int getQueueLength();

  long getArrivals();

  long getCompleted();

  long getFailed();

  long getRejected();

  double getArrivalRate();

  double getRetirementRate();

  double getAverageServiceTimeMillis();

  double getAverageTimeWaitingInPoolMillis();

  double getAverageResponseTimeMillis();

  double getEstimatedAverageNumberOfActiveRequests();

  double getRatioOfDeadTimeToResponseTime();

  double getEstimatedAverageNumberOfActiveRequestsPerCpu();

  double getP90WaitMillis();

  double getP99ResponseMillis();

  double getCpuUtilization();

  /** CPU time of the pool's threads / (window × processors), or -1 if unknown. */
  double getPoolCpuUtilization();

  /** Measurement ticks that threw since start (the executor keeps measuring after one). */
  long getTickFailures();

  /** What the last failed tick threw ({@code Throwable.toString()}), or null if none failed. */
  String getLastTickFailure();

  boolean isSelfSizing();
}

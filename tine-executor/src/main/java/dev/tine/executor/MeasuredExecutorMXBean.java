package dev.tine.executor;

/**
 * JMX view of a {@link MeasuredExecutor}: {@code dev.tine:type=MeasuredExecutor,name=<name>}.
 * Rates and times describe the sliding window (the last few seconds); counts are since start.
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
  boolean isSelfSizing();
}

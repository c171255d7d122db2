package dev.tine.executor;

import dev.tine.platform.MXBeanRegistration;
import javax.management.ObjectName;

/**
 * The JMX view of a {@link MeasuredExecutor} ({@link MeasuredExecutorMXBean}), registered as {@code
 * dev.tine:type=MeasuredExecutor,name="<name>"}. Stateless: every attribute is read from the
 * executor or a fresh snapshot of its meter.
 */
final class MeasuredExecutorBean implements MeasuredExecutorMXBean {
  private final MeasuredExecutor executor;

  private MeasuredExecutorBean(MeasuredExecutor executor) {
    this.executor = executor;
  }

  /**
   * Registers a bean for the executor with the platform MBean server, under its name or, if taken,
   * {@code name#2}, {@code name#3}...; returns the name, or null if JMX refused.
   */
  static ObjectName register(MeasuredExecutor executor) {
    return MXBeanRegistration.register(
        new MeasuredExecutorBean(executor), "MeasuredExecutor", executor.name());
  }

  /** Unregisters a bean {@link #register} registered; harmless if already gone. */
  static void unregister(ObjectName name) {
    MXBeanRegistration.unregister(name);
  }

  private ExecutorSnapshot total() {
    return executor.snapshot();
  }

  private ExecutorSnapshot window() {
    return executor.windowSnapshot();
  }

  @Override
  public String getName() {
    return executor.name();
  }

  @Override
  public int getPoolSize() {
    return executor.threadCount();
  }

  @Override
  public int getQueueLength() {
    return executor.queuedTasks();
  }

  @Override
  public long getArrivals() {
    return total().arrivals();
  }

  @Override
  public long getCompleted() {
    return total().completed();
  }

  @Override
  public long getFailed() {
    return total().failed();
  }

  @Override
  public long getRejected() {
    return total().rejected();
  }

  @Override
  public double getArrivalRate() {
    return window().arrivalRate();
  }

  @Override
  public double getRetirementRate() {
    return window().retirementRate();
  }

  @Override
  public double getAverageServiceTimeMillis() {
    return window().avgServiceMs();
  }

  @Override
  public double getAverageTimeWaitingInPoolMillis() {
    return window().avgWaitMs();
  }

  @Override
  public double getAverageResponseTimeMillis() {
    return window().avgResponseMs();
  }

  @Override
  public double getEstimatedAverageNumberOfActiveRequests() {
    return window().littlesL();
  }

  @Override
  public double getRatioOfDeadTimeToResponseTime() {
    return window().deadTimeRatio();
  }

  @Override
  public double getEstimatedAverageNumberOfActiveRequestsPerCpu() {
    return window().lPerCpu();
  }

  @Override
  public double getP90WaitMillis() {
    return window().p90WaitMs();
  }

  @Override
  public double getP99ResponseMillis() {
    return window().p99ResponseMs();
  }

  @Override
  public double getCpuUtilization() {
    return window().cpuUtilization();
  }

  @Override
  public double getPoolCpuUtilization() {
    return window().poolCpuUtilization();
  }

  @Override
  public long getTickFailures() {
    return executor.tickFailures();
  }

  @Override
  public String getLastTickFailure() {
    Throwable t = executor.lastTickFailure();
    return t == null ? null : t.toString();
  }

  @Override
  public boolean isSelfSizing() {
    return executor.selfSizing();
  }
}

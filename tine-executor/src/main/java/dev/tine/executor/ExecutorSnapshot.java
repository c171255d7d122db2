package dev.tine.executor;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a {@link MeasuredExecutor} measured over one period (since start, or the sliding window):
 * seed 004's figures, with percentiles. Times are in milliseconds, rates per second.
 *
 * @param period "since start" or "last 10 s" etc.
 * @param seconds length of the period
 * @param arrivals tasks offered (accepted + rejected)
 * @param rejected tasks refused (bounded queue full, or shut down)
 * @param completed tasks that finished (normally or not)
 * @param failed tasks that threw
 * @param arrivalRate arrivals per second (λ)
 * @param retirementRate completions per second
 * @param avgServiceMs mean service time S (run time)
 * @param avgWaitMs mean time waiting in the pool's queue ("dead time")
 * @param avgResponseMs mean response time R = wait + service
 * @param littlesL Little's law: retirement rate × R = mean tasks in the executor (queued + running)
 * @param deadTimeRatio wait / (wait + service), summed over tasks
 * @param lPerCpu littlesL / available processors
 * @param cpuUtilization process CPU time / (period × processors), 0..1, or -1 if unknown
 * @param processors available processors
 * @param poolSize worker threads at the end of the period
 * @param queueLength tasks queued at the end of the period
 */
public record ExecutorSnapshot(
    String period,
    double seconds,
    long arrivals,
    long rejected,
    long completed,
    long failed,
    double arrivalRate,
    double retirementRate,
    double avgServiceMs,
    double avgWaitMs,
    double avgResponseMs,
    double littlesL,
    double deadTimeRatio,
    double lPerCpu,
    double p50WaitMs,
    double p90WaitMs,
    double p99WaitMs,
    double maxWaitMs,
    double p50ServiceMs,
    double p90ServiceMs,
    double p99ServiceMs,
    double maxServiceMs,
    double p50ResponseMs,
    double p90ResponseMs,
    double p99ResponseMs,
    double maxResponseMs,
    long p50QueueLength,
    long p90QueueLength,
    long p99QueueLength,
    long maxQueueLength,
    double cpuUtilization,
    int processors,
    int poolSize,
    int queueLength) {

  /** Mean CPU time per task in ms estimated from process CPU (includes other threads), or NaN. */
  public double cpuPerTaskMs() {
    if (cpuUtilization < 0 || completed == 0) return Double.NaN;
    return cpuUtilization * seconds * processors * 1000.0 / completed;
  }

  /** Flat name → value map (for JSON and tables). */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    for (var c : ExecutorSnapshot.class.getRecordComponents()) {
      try {
        m.put(snake(c.getName()), c.getAccessor().invoke(this));
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
    return m;
  }

  private static String snake(String s) {
    return s.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT,
        "%s (%.1f s): arrivals %d (%.1f/s), completed %d (%.1f/s), failed %d, rejected %d%n"
            + "  service %.2f ms, wait %.2f ms, response %.2f ms (p50/p90/p99/max wait %.2f/%.2f/%.2f/%.2f ms;"
            + " response %.2f/%.2f/%.2f/%.2f ms)%n"
            + "  Little's L = %.2f (%.2f per CPU), dead time / response = %.1f%%, CPU %.0f%% of %d,"
            + " pool %d, queue %d (p90 %d, max %d)",
        period, seconds, arrivals, arrivalRate, completed, retirementRate, failed, rejected,
        avgServiceMs, avgWaitMs, avgResponseMs, p50WaitMs, p90WaitMs, p99WaitMs, maxWaitMs,
        p50ResponseMs, p90ResponseMs, p99ResponseMs, maxResponseMs,
        littlesL, lPerCpu, 100 * deadTimeRatio, 100 * Math.max(0, cpuUtilization), processors,
        poolSize, queueLength, p90QueueLength, maxQueueLength);
  }
}

package dev.tine.executor;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What a {@link PoolMeter} (a {@link MeasuredExecutor}'s, or one measuring another pool) measured
 * over one period (since start, or the sliding window): Pepperdine's figures, with percentiles.
 * Times are in milliseconds, rates per second. Built by {@link #of} from the meter's bucket of the
 * period; the components are in a fixed order for {@link #toMap()} (new ones are added at the end).
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
 * @param p50WaitMs the median queueing wait over the timed tasks
 * @param p90WaitMs the 90th percentile of the queueing wait over the timed tasks
 * @param p99WaitMs the 99th percentile of the queueing wait over the timed tasks
 * @param maxWaitMs the longest queueing wait over the timed tasks
 * @param p50ServiceMs the median service time over the timed tasks
 * @param p90ServiceMs the 90th percentile of the service time over the timed tasks
 * @param p99ServiceMs the 99th percentile of the service time over the timed tasks
 * @param maxServiceMs the longest service time over the timed tasks
 * @param p50ResponseMs the median response time over the timed tasks
 * @param p90ResponseMs the 90th percentile of the response time over the timed tasks
 * @param p99ResponseMs the 99th percentile of the response time over the timed tasks
 * @param maxResponseMs the longest response time over the timed tasks
 * @param p50QueueLength the median queue length, from samples taken at arrivals
 * @param p90QueueLength the 90th percentile of the queue length, from samples taken at arrivals
 * @param p99QueueLength the 99th percentile of the queue length, from samples taken at arrivals
 * @param maxQueueLength the longest queue, from samples taken at arrivals
 * @param cpuUtilization process CPU time / (period × processors), 0..1, or -1 if unknown
 * @param processors available processors
 * @param poolSize worker threads at the end of the period, or -1 if the meter's owner gave no
 *     {@link PoolMeter.Gauges}
 * @param queueLength tasks queued at the end of the period, or -1 likewise
 * @param poolCpuUtilization CPU time of the threads that recorded into the meter (the pool's
 *     threads) / (period × processors), or -1 if the JVM does not measure thread CPU time; a
 *     thread's CPU time since the tick before it ended is not counted
 * @param tickFailures ticks (harvests, or the owner's tick listener) that threw, since the meter
 *     started; the meter keeps measuring after one, see {@link PoolMeter#lastTickFailure()}
 * @param timedTasks tasks whose times were recorded: the sample the means and percentiles of wait,
 *     service and response come from (all completed tasks without sampling)
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
    int queueLength,
    double poolCpuUtilization,
    long tickFailures,
    long timedTasks) {

  /**
   * The figures of one period's bucket: the one place a snapshot is made.
   *
   * @param period the period's name ("since start", "last 10 s")
   * @param b the period's measurements (read, not kept)
   * @param processors processors the figures per CPU and utilizations divide by
   * @param poolSize pool threads now, or -1 if unknown
   * @param queueLength queued tasks now, or -1 if unknown
   * @param tickFailures the meter's failed ticks so far
   */
  static ExecutorSnapshot of(
      String period,
      MeasurementBucket b,
      int processors,
      int poolSize,
      int queueLength,
      long tickFailures) {
    TaskTimings t = b.timings;
    double secs = Math.max(1e-9, (b.endNanos - b.startNanos) / 1e9);
    long arrivals = b.arrivals; // every offer, accepted or rejected
    double retire = b.completed / secs;
    double svc = t.timed == 0 ? 0 : t.serviceNanos / 1e6 / t.timed; // means over the timed tasks
    double wait = t.timed == 0 ? 0 : t.waitNanos / 1e6 / t.timed;
    double resp = svc + wait;
    double l = retire * resp / 1000.0; // Little's law, tasks
    double dead =
        t.waitNanos + t.serviceNanos == 0
            ? 0
            : (double) t.waitNanos / (t.waitNanos + t.serviceNanos);
    double cpuCapacity = secs * 1e9 * processors;
    return new ExecutorSnapshot(
        period,
        secs,
        arrivals,
        b.rejected,
        b.completed,
        b.failed,
        arrivals / secs,
        retire,
        svc,
        wait,
        resp,
        l,
        dead,
        l / processors,
        ms(t.wait, 50),
        ms(t.wait, 90),
        ms(t.wait, 99),
        maxMs(t.wait),
        ms(t.service, 50),
        ms(t.service, 90),
        ms(t.service, 99),
        maxMs(t.service),
        ms(t.response, 50),
        ms(t.response, 90),
        ms(t.response, 99),
        maxMs(t.response),
        b.queue.getValueAtPercentile(50),
        b.queue.getValueAtPercentile(90),
        b.queue.getValueAtPercentile(99),
        b.queue.getMaxValue(),
        b.processCpuNanos < 0 ? -1 : b.processCpuNanos / cpuCapacity,
        processors,
        poolSize,
        queueLength,
        b.threadCpuNanos < 0 ? -1 : b.threadCpuNanos / cpuCapacity,
        tickFailures,
        t.timed);
  }

  private static double ms(Histogram h, double percentile) {
    return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile) / 1000.0;
  }

  private static double maxMs(Histogram h) {
    return h.getMaxValue() / 1000.0;
  }

  /**
   * {@return mean CPU time per task in ms estimated from process CPU (includes other threads), or
   * NaN}
   */
  public double cpuPerTaskMs() {
    if (cpuUtilization < 0 || completed == 0) return Double.NaN;
    return cpuUtilization * seconds * processors * 1000.0 / completed;
  }

  /**
   * {@return mean CPU time per task in ms from the pool threads' own CPU time, or NaN if unknown}
   */
  public double poolCpuPerTaskMs() {
    if (poolCpuUtilization < 0 || completed == 0) return Double.NaN;
    return poolCpuUtilization * seconds * processors * 1000.0 / completed;
  }

  /**
   * The snapshot a {@link #toMap()} map (read back from JSON, say) describes.
   *
   * @param m the map: every component under its snake_case name, numbers of any width
   * @return the snapshot
   * @throws IllegalArgumentException naming the first key that is missing or of the wrong type
   */
  public static ExecutorSnapshot fromMap(Map<String, ?> m) {
    var cs = ExecutorSnapshot.class.getRecordComponents();
    Object[] args = new Object[cs.length];
    Class<?>[] types = new Class<?>[cs.length];
    for (int i = 0; i < cs.length; i++) {
      String key = snake(cs[i].getName());
      Class<?> t = cs[i].getType();
      types[i] = t;
      Object v = m.get(key);
      if (t == String.class) {
        if (!(v instanceof String)) throw new IllegalArgumentException("no text '" + key + "'");
        args[i] = v;
      } else if (!(v instanceof Number n)) {
        throw new IllegalArgumentException("no number '" + key + "'");
      } else if (t == double.class) {
        args[i] = n.doubleValue();
      } else if (t == long.class) {
        args[i] = n.longValue();
      } else {
        args[i] = n.intValue();
      }
    }
    try {
      return ExecutorSnapshot.class.getDeclaredConstructor(types).newInstance(args);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * {@return a flat name → value map, snake_case names in component order (for JSON and tables)}
   */
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
    return String.format(
        Locale.ROOT,
        "%s (%.1f s): arrivals %d (%.1f/s), completed %d (%.1f/s), failed %d, rejected %d%n"
            + "  service %.2f ms, wait %.2f ms, response %.2f ms (p50/p90/p99/max wait %.2f/%.2f/%.2f/%.2f ms;"
            + " response %.2f/%.2f/%.2f/%.2f ms)%n"
            + "  Little's L = %.2f (%.2f per CPU), dead time / response = %.1f%%, CPU %.0f%% of %d,"
            + " pool %d, queue %d (p90 %d, max %d)%s",
        period,
        seconds,
        arrivals,
        arrivalRate,
        completed,
        retirementRate,
        failed,
        rejected,
        avgServiceMs,
        avgWaitMs,
        avgResponseMs,
        p50WaitMs,
        p90WaitMs,
        p99WaitMs,
        maxWaitMs,
        p50ResponseMs,
        p90ResponseMs,
        p99ResponseMs,
        maxResponseMs,
        littlesL,
        lPerCpu,
        100 * deadTimeRatio,
        100 * Math.max(0, cpuUtilization),
        processors,
        poolSize,
        queueLength,
        p90QueueLength,
        maxQueueLength,
        tickFailures == 0 ? "" : ", " + tickFailures + " failed ticks");
  }
}

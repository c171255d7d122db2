package dev.tine.agent.tune;

import dev.tine.executor.ExecutorSnapshot;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One pool over one of the agent's windows, as {@code tine tune} decides from it: a server's pool
 * per request (its requests' λ, S and waits, not its pool tasks'), any other pool per task.
 *
 * @param id the agent's id of the pool
 * @param pool its name
 * @param kind its kind (ThreadPoolExecutor, Tomcat, Jetty, ...)
 * @param poolClass its class
 * @param unit "requests" or "tasks"
 * @param endMillis when the window ended (epoch ms)
 * @param seconds the window's length
 * @param arrivals arrivals in the window
 * @param completed completions in the window
 * @param rejected refusals in the window
 * @param arrivalRate λ, per second
 * @param completionRate throughput, completions per second
 * @param serviceMs mean service time S
 * @param waitMs mean queueing wait
 * @param waitP50Ms median wait
 * @param waitP90Ms 90th percentile wait
 * @param waitP99Ms 99th percentile wait
 * @param littlesL λ·(Wq + S)
 * @param deadTimeRatio wait / (wait + service)
 * @param cpuPerTaskMs the pool threads' CPU time per completion (ms), NaN if unknown
 * @param size the pool's effective size now (the one a resize sets)
 * @param busy threads running a task now
 * @param queueLength tasks queued now
 * @param cores the target's processors
 * @param timed completions timed in the window
 */
public record PoolWindow(
    int id,
    String pool,
    String kind,
    String poolClass,
    String unit,
    long endMillis,
    double seconds,
    long arrivals,
    long completed,
    long rejected,
    double arrivalRate,
    double completionRate,
    double serviceMs,
    double waitMs,
    double waitP50Ms,
    double waitP90Ms,
    double waitP99Ms,
    double littlesL,
    double deadTimeRatio,
    double cpuPerTaskMs,
    int size,
    int busy,
    int queueLength,
    int cores,
    long timed) {

  /** When the window began (epoch ms). */
  public long startMillis() {
    return endMillis - Math.round(seconds * 1000);
  }

  /** Mean response time Wq + S (ms). */
  public double responseMs() {
    return waitMs + serviceMs;
  }

  /**
   * The window from a pool's MXBean attributes ({@code dev.tine.agent:type=Pool}). The effective
   * size is the pool's {@code CurrentSize} where the agent reports one, else its maximum size, or
   * its core size where the maximum is unbounded (a queue-fed pool grows to its core size only).
   */
  public static PoolWindow fromAttributes(Map<String, Object> p, int cores) {
    int size = integer(p.get("CurrentSize"), -1);
    if (size <= 0) {
      int max = integer(p.get("MaximumPoolSize"), -1), core = integer(p.get("CorePoolSize"), -1);
      size = max > 0 && max < 1 << 20 ? max : core;
    }
    return new PoolWindow(
        integer(p.get("Id"), -1),
        String.valueOf(p.get("Name")),
        String.valueOf(p.get("Kind")),
        String.valueOf(p.get("PoolClass")),
        String.valueOf(p.getOrDefault("Unit", "tasks")),
        (long) num(p.get("MeasuredAtMillis")),
        num(p.get("WindowSeconds")),
        (long) num(p.get("WindowArrivals")),
        (long) num(p.get("WindowCompleted")),
        (long) num(p.get("WindowRejected")),
        num(p.get("ArrivalRate")),
        num(p.get("RetirementRate")),
        num(p.get("ServiceMillis")),
        num(p.get("WaitMillis")),
        num(p.get("WaitP50Millis")),
        num(p.get("WaitP90Millis")),
        num(p.get("WaitP99Millis")),
        num(p.get("LittlesL")),
        num(p.get("DeadTimeRatio")),
        num(p.get("CpuPerTaskMillis")),
        size,
        integer(p.get("ActiveCount"), 0),
        integer(p.get("QueueLength"), 0),
        cores,
        (long) num(p.get("WindowCompleted")));
  }

  /**
   * The window as the snapshot {@code tine advise}'s advisor reads ({@link
   * dev.tine.executor.PoolSizeAdvisor#adviseSnapshot}): the pool's CPU share stands for the CPU
   * utilization, so C is the pool's own CPU time per completion.
   */
  ExecutorSnapshot snapshot() {
    Map<String, Object> m = new LinkedHashMap<>();
    for (var c : ExecutorSnapshot.class.getRecordComponents()) {
      Class<?> t = c.getType();
      m.put(snake(c.getName()), t == String.class ? "" : t == double.class ? Double.NaN : -1);
    }
    double cpuShare =
        Double.isNaN(cpuPerTaskMs) || seconds <= 0 || cores <= 0
            ? -1
            : cpuPerTaskMs * completed / 1000.0 / (seconds * cores);
    m.put("period", "last " + seconds + " s");
    m.put("seconds", seconds);
    m.put("arrivals", arrivals);
    m.put("rejected", rejected);
    m.put("completed", completed);
    m.put("failed", 0);
    m.put("arrival_rate", arrivalRate);
    m.put("retirement_rate", completionRate);
    m.put("avg_service_ms", serviceMs);
    m.put("avg_wait_ms", waitMs);
    m.put("avg_response_ms", waitMs + serviceMs);
    m.put("littles_l", littlesL);
    m.put("dead_time_ratio", deadTimeRatio);
    m.put("l_per_cpu", littlesL / cores);
    m.put("p50_wait_ms", waitP50Ms);
    m.put("p90_wait_ms", waitP90Ms);
    m.put("p99_wait_ms", waitP99Ms);
    m.put("cpu_utilization", cpuShare);
    m.put("pool_cpu_utilization", cpuShare);
    m.put("processors", cores);
    m.put("pool_size", size);
    m.put("queue_length", queueLength);
    m.put("tick_failures", 0);
    m.put("timed_tasks", timed);
    return ExecutorSnapshot.fromMap(m);
  }

  private static String snake(String s) {
    return s.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(java.util.Locale.ROOT);
  }

  static double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  static int integer(Object o, int otherwise) {
    return o instanceof Number n ? n.intValue() : otherwise;
  }
}

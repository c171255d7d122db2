package dev.tine.agent.state;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One pool's figures at one tick, as the MXBean serves them and {@code tine top} shows them. Times
 * in milliseconds, rates per second; window figures cover the last {@code windowSeconds}, totals
 * since the agent first saw the pool. -1 (or NaN) means unknown or not applicable to the kind.
 */
public final class PoolFigures implements Cloneable {
  /** {@link #unit} of a pool measured per task. */
  public static final String TASKS = "tasks";

  /** {@link #unit} of a server's pool measured per request (see {@link RequestView}). */
  public static final String REQUESTS = "requests";

  public int id;
  public String name = "";
  public String kind = "";
  public String poolClass = "";
  public String createdAt = "";
  public String state = "running";
  public long measuredMillis;

  // sizes, from the pool's public getters
  public int corePoolSize = -1,
      maximumPoolSize = -1,
      poolSize = -1,
      activeCount = -1,
      queueLength = -1;
  public int parallelism = -1, largestPoolSize = -1;
  public long stealCount = -1;

  /**
   * The effective size (what bounds the threads running tasks; see {@link SizeControl}) and the one
   * before the agent first changed it (the current one while it has not); -1 if the pool cannot be
   * resized. Set by the ticker's watch, right after the tick.
   */
  public int currentSize = -1, originalSize = -1;

  // totals since the agent saw the pool
  public long arrivals, completed, rejected, failed;

  // the window (L = λ·(Wq + S), λ counting the accepted arrivals)
  public double windowSeconds;
  public long windowArrivals, windowCompleted, windowRejected;
  public double arrivalRate, retirementRate;
  public double serviceMs = Double.NaN, waitMs = Double.NaN, responseMs = Double.NaN;
  public double waitP50Ms = Double.NaN,
      waitP90Ms = Double.NaN,
      waitP99Ms = Double.NaN,
      waitMaxMs = Double.NaN;
  public double serviceP50Ms = Double.NaN,
      serviceP90Ms = Double.NaN,
      serviceP99Ms = Double.NaN,
      serviceMaxMs = Double.NaN;

  /** Tasks timed in the window (the sample the times come from). */
  public long timedTasks;

  /** Since the agent saw the pool: tasks timed, and their summed wait and service (seconds). */
  public long totalTimed;

  public double totalWaitSeconds, totalServiceSeconds;
  public double littlesL = Double.NaN, deadTimeRatio = Double.NaN;

  /** CPU time of the pool's threads over the window, in percent of one core (top's convention). */
  public double cpuPercent = -1;

  public long cpuTimeNanos = -1;

  /** Mean CPU time per completed task over the window (ms), or NaN. */
  public double cpuPerTaskMs = Double.NaN;

  public int sampleEvery = 1;

  // the advisor
  public int recommendedSize = -1;
  public String recommendation = "";

  /** Which advice {@link #recommendation} words (null before the first tick). */
  public SizeAdvice.Kind advice;

  /**
   * What λ, S, Wq, L, the percentiles, the counts and the advice count: {@link #TASKS}, or {@link
   * #REQUESTS} for a server's pool that served requests.
   */
  public String unit = TASKS;

  /** The pool's task figures when {@link #unit} is {@link #REQUESTS}, else null. */
  public PoolFigures tasks;

  /** Pool tasks per request over the window (NaN unless per request). */
  public double tasksPerRequest = Double.NaN;

  /** A shallow copy. */
  public PoolFigures copy() {
    try {
      return (PoolFigures) clone();
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }

  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", id);
    m.put("name", name);
    m.put("kind", kind);
    m.put("class", poolClass);
    m.put("created_at", createdAt.isEmpty() ? null : createdAt); // null: made before the agent came
    m.put("state", state);
    m.put("core_pool_size", corePoolSize);
    m.put("maximum_pool_size", maximumPoolSize);
    m.put("pool_size", poolSize);
    m.put("active", activeCount);
    m.put("queue_length", queueLength);
    m.put("parallelism", parallelism);
    m.put("steals", stealCount);
    m.put("arrivals", arrivals);
    m.put("completed", completed);
    m.put("rejected", rejected);
    m.put("failed", failed);
    m.put("window_s", windowSeconds);
    m.put("arrival_rate", arrivalRate);
    m.put("retirement_rate", retirementRate);
    m.put("service_ms", serviceMs);
    m.put("wait_ms", waitMs);
    m.put("response_ms", responseMs);
    m.put("wait_p50_ms", waitP50Ms);
    m.put("wait_p90_ms", waitP90Ms);
    m.put("wait_p99_ms", waitP99Ms);
    m.put("service_p50_ms", serviceP50Ms);
    m.put("service_p90_ms", serviceP90Ms);
    m.put("service_p99_ms", serviceP99Ms);
    m.put("wait_max_ms", waitMaxMs);
    m.put("service_max_ms", serviceMaxMs);
    m.put("timed_tasks", timedTasks);
    m.put("littles_l", littlesL);
    m.put("dead_time_ratio", deadTimeRatio);
    m.put("cpu_percent", cpuPercent);
    m.put("cpu_time_ns", cpuTimeNanos);
    m.put("window_arrivals", windowArrivals);
    m.put("window_completed", windowCompleted);
    m.put("window_rejected", windowRejected);
    m.put("sample_every", sampleEvery);
    m.put("recommended_size", recommendedSize);
    m.put("recommendation", recommendation);
    m.put("unit", unit);
    if (tasks != null) {
      m.put("tasks_per_request", tasksPerRequest);
      m.put("tasks", tasks.toMap());
    }
    return m;
  }
}

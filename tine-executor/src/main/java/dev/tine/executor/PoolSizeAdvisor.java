package dev.tine.executor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Recommends a pool size from measured or given figures, and says why: Little's law for the offered
 * load, the M/M/c queue (Erlang C) for waiting-time percentiles, Goetz's {@code N = Ncpu·U·(1 +
 * W/C)} and a CPU-capacity check.
 *
 * <p>Model assumptions, stated in every answer: Poisson arrivals and exponential service (M/M/c).
 * For other service-time distributions the waits scale by about {@code (ca² + cs²)/2}
 * (Allen–Cunneen); measured percentiles from a {@link MeasuredExecutor} show the truth.
 */
public final class PoolSizeAdvisor {
  private PoolSizeAdvisor() {}

  /**
   * The wait percentile of the default target: unless told otherwise, every answer (the {@code tine
   * advise} command, the pool-sizing experiment, the agent's advice) bounds the 90th percentile of
   * the queueing wait by {@link #defaultMaxWaitMs(double) max(1 ms, S)}.
   */
  public static final double DEFAULT_PERCENTILE = 90;

  /** The largest size the default answers consider. */
  public static final int DEFAULT_MAX_POOL_SIZE = 10_000;

  /** The per-thread utilization Goetz's formula aims for unless told otherwise. */
  public static final double DEFAULT_TARGET_UTILIZATION = 0.8;

  /**
   * A dead-time ratio (wait / response) at or above which a measured pool counts as saturated: its
   * tasks wait longer than they run, so its throughput is what it let through, not what was
   * offered.
   */
  public static final double SATURATED_DEAD_TIME = 0.5;

  /**
   * The default bound on the {@link #DEFAULT_PERCENTILE}th percentile wait: the mean service time,
   * and at least 1 ms (waiting no longer than the work itself takes; under a millisecond the bound
   * would be noise).
   *
   * @param serviceMs the mean service time S, in ms
   * @return max(1, S), in ms
   */
  public static double defaultMaxWaitMs(double serviceMs) {
    return Math.max(1.0, serviceMs);
  }

  /**
   * The default target in words: "p90 queueing wait ≤ max(1 ms, S) = 10.4 ms (the default target)".
   *
   * @param serviceMs the mean service time S, in ms
   * @return the sentence
   */
  public static String defaultTargetWords(double serviceMs) {
    return f(
        "p%s queueing wait ≤ max(1 ms, S) = %.4g ms (the default target)",
        trim(DEFAULT_PERCENTILE), defaultMaxWaitMs(serviceMs));
  }

  /**
   * Advises from a measured snapshot with the default target ({@link #DEFAULT_PERCENTILE}, {@link
   * #defaultMaxWaitMs}), as {@link #adviseSnapshot(ExecutorSnapshot, double, double, double, int)}.
   *
   * @param s what the pool measured
   * @return the recommendation, with the target and any saturation stated in its reasoning
   * @throws IllegalArgumentException if the snapshot has no completed task, or no size can meet the
   *     target
   */
  public static Recommendation adviseSnapshot(ExecutorSnapshot s) {
    return adviseSnapshot(
        s,
        DEFAULT_TARGET_UTILIZATION,
        DEFAULT_PERCENTILE,
        defaultMaxWaitMs(s.avgServiceMs()),
        DEFAULT_MAX_POOL_SIZE);
  }

  /**
   * Advises from a measured snapshot, not knowing how many clients send the tasks, as {@link
   * #adviseSnapshot(ExecutorSnapshot, int, double, double, double, int)} with {@code clients} 0.
   *
   * @param s what the pool measured
   * @param targetUtilization Goetz's U
   * @param percentile the wait percentile to bound, or NaN for the utilization target
   * @param maxWaitMs the bound, or NaN
   * @param maxPoolSize the largest size to consider
   * @return the recommendation
   * @throws IllegalArgumentException if the snapshot has no completed task, or no size can meet the
   *     target
   */
  public static Recommendation adviseSnapshot(
      ExecutorSnapshot s,
      double targetUtilization,
      double percentile,
      double maxWaitMs,
      int maxPoolSize) {
    return adviseSnapshot(s, 0, targetUtilization, percentile, maxWaitMs, maxPoolSize);
  }

  /**
   * Advises from a measured snapshot with the default target, knowing that {@code clients} clients
   * send the tasks, each waiting for its reply before it sends again (0: not known).
   *
   * @param s what the pool measured
   * @param clients the closed population, or 0 if not known
   * @return the recommendation
   * @throws IllegalArgumentException if the snapshot has no completed task, or no size can meet the
   *     target
   */
  public static Recommendation adviseSnapshot(ExecutorSnapshot s, int clients) {
    return adviseSnapshot(
        s,
        clients,
        DEFAULT_TARGET_UTILIZATION,
        DEFAULT_PERCENTILE,
        defaultMaxWaitMs(s.avgServiceMs()),
        DEFAULT_MAX_POOL_SIZE);
  }

  /**
   * Advises from a measured snapshot, and never against it: the answer is at most the measured size
   * when the measured wait percentile met the target there, and more than it when it did not.
   *
   * <ul>
   *   <li>With {@code clients} known, the load is a closed population (N clients, each waiting for
   *       its reply): it is sized with the finite-source queue (M/M/c with N sources), whose think
   *       time comes from the measurement (Z = N/X − R). No more than N threads are ever useful.
   *   <li>Otherwise the open M/M/c queue answers, unless the snapshot waited markedly less than
   *       M/M/c predicts for the measured size (a closed or throttled load, or service less
   *       variable than exponential): then the population is fitted to the measured waits (the
   *       largest N whose finite-source queue waits no more than was measured) and sized with it.
   *   <li>A pool that was saturated when measured (dead time at least {@link #SATURATED_DEAD_TIME},
   *       or its queue growing, or tasks rejected) let through less than was offered, so its
   *       arrival rate understates an open load: the load is then estimated from what was in the
   *       pool (Little's L = λ·(Wq + S) tasks present, which with no waiting would all be in
   *       service, so λ' = L / S), or from the arrivals where those were higher, and the answer is
   *       stated as a lower bound.
   * </ul>
   *
   * @param s what the pool measured
   * @param clients the closed population sending the tasks, or 0 if not known
   * @param targetUtilization Goetz's U
   * @param percentile the wait percentile to bound, or NaN for the utilization target
   * @param maxWaitMs the bound, or NaN
   * @param maxPoolSize the largest size to consider
   * @return the recommendation
   * @throws IllegalArgumentException if the snapshot has no completed task, or no size can meet the
   *     target
   */
  public static Recommendation adviseSnapshot(
      ExecutorSnapshot s,
      int clients,
      double targetUtilization,
      double percentile,
      double maxWaitMs,
      int maxPoolSize) {
    return SnapshotAdvice.advise(s, clients, targetUtilization, percentile, maxWaitMs, maxPoolSize);
  }

  /**
   * What a recommendation is computed from; the constructor checks each figure.
   *
   * @param arrivalRate λ, tasks per second (> 0)
   * @param serviceMs S, mean service time in ms (> 0)
   * @param cpuMs C, mean CPU time per task in ms, or NaN if unknown (0 ≤ C ≤ S)
   * @param cores processors available to the pool
   * @param targetUtilization per-thread utilization to aim for when no wait target is given
   * @param percentile wait percentile to bound, e.g. 90, or NaN
   * @param maxWaitMs bound on that percentile of the queueing wait, or NaN
   * @param maxPoolSize the largest size to consider
   */
  public record Inputs(
      double arrivalRate,
      double serviceMs,
      double cpuMs,
      int cores,
      double targetUtilization,
      double percentile,
      double maxWaitMs,
      int maxPoolSize) {
    /**
     * Checks every figure: an {@link IllegalArgumentException} names the first one out of range.
     */
    public Inputs {
      if (!(arrivalRate > 0) || Double.isInfinite(arrivalRate))
        throw new IllegalArgumentException("arrival rate must be positive, was " + arrivalRate);
      if (!(serviceMs > 0) || Double.isInfinite(serviceMs))
        throw new IllegalArgumentException("service time must be positive, was " + serviceMs);
      if (!Double.isNaN(cpuMs) && (cpuMs < 0 || cpuMs > serviceMs * 1.0001))
        throw new IllegalArgumentException(
            "CPU time per task must be between 0 and the service time, was " + cpuMs);
      if (cores <= 0) throw new IllegalArgumentException("cores must be positive, was " + cores);
      if (!(targetUtilization > 0 && targetUtilization <= 1))
        throw new IllegalArgumentException(
            "target utilization must be in (0, 1], was " + targetUtilization);
      if (Double.isNaN(percentile) != Double.isNaN(maxWaitMs))
        throw new IllegalArgumentException("give both a percentile and a maximum wait, or neither");
      if (!Double.isNaN(percentile) && !(percentile > 0 && percentile < 100))
        throw new IllegalArgumentException("percentile must be in (0, 100), was " + percentile);
      if (!Double.isNaN(maxWaitMs) && maxWaitMs < 0)
        throw new IllegalArgumentException("maximum wait must not be negative, was " + maxWaitMs);
      if (maxPoolSize <= 0)
        throw new IllegalArgumentException(
            "maximum pool size must be positive, was " + maxPoolSize);
    }

    /**
     * The figures a snapshot measured: λ, S, C (from process CPU) and the processors.
     *
     * @param s what the pool measured
     * @param targetUtilization Goetz's U
     * @param percentile the wait percentile to bound, or NaN
     * @param maxWaitMs the bound, or NaN
     * @param maxPoolSize the largest size to consider
     * @return the inputs
     * @throws IllegalArgumentException if the snapshot has no completed task
     */
    public static Inputs fromSnapshot(
        ExecutorSnapshot s,
        double targetUtilization,
        double percentile,
        double maxWaitMs,
        int maxPoolSize) {
      if (s.completed() == 0)
        throw new IllegalArgumentException("the snapshot has no completed tasks to learn from");
      double c = s.cpuPerTaskMs();
      return new Inputs(
          s.arrivalRate(),
          s.avgServiceMs(),
          Double.isNaN(c) ? Double.NaN : Math.min(c, s.avgServiceMs()),
          s.processors(),
          targetUtilization,
          percentile,
          maxWaitMs,
          maxPoolSize);
    }
  }

  /**
   * The answer: a size, the figures behind it, and the reasoning as sentences.
   *
   * @param poolSize the recommended number of threads
   * @param figures the figures behind it, by name (offered_load, goetz_size, ...)
   * @param reasoning the steps, one sentence each
   * @param lowerBound true when the measured pool was saturated, so the size is at least what is
   *     needed
   */
  public record Recommendation(
      int poolSize, Map<String, Object> figures, List<String> reasoning, boolean lowerBound) {
    /**
     * An answer that is not a lower bound.
     *
     * @param poolSize the recommended number of threads
     * @param figures the figures behind it
     * @param reasoning the steps
     */
    public Recommendation(int poolSize, Map<String, Object> figures, List<String> reasoning) {
      this(poolSize, figures, reasoning, false);
    }

    @Override
    public String toString() {
      return "recommended pool size: "
          + (lowerBound ? "at least " : "")
          + poolSize
          + System.lineSeparator()
          + String.join(System.lineSeparator(), reasoning);
    }
  }

  /**
   * Erlang C: the probability that an arrival waits, for c servers and offered load a = λS.
   *
   * @param c servers (threads)
   * @param a offered load λ·S, in threads
   * @return P(wait), 1 when c ≤ a
   */
  public static double erlangC(int c, double a) {
    if (c <= a) return 1.0;
    double b = 1.0; // Erlang B by the stable recurrence B_k = a·B_{k-1} / (k + a·B_{k-1})
    for (int k = 1; k <= c; k++) {
      b = a * b / (k + a * b);
    }
    return c * b / (c - a * (1 - b));
  }

  /**
   * Mean queueing wait E[Wq] = C·S / (c − a), in the unit of {@code service}.
   *
   * @param c servers (threads)
   * @param a offered load λ·S, in threads
   * @param service the mean service time S
   * @return the mean wait, infinite when c ≤ a
   */
  public static double meanWait(int c, double a, double service) {
    return c <= a ? Double.POSITIVE_INFINITY : erlangC(c, a) * service / (c - a);
  }

  /**
   * The p-th percentile (0..1) of the queueing wait: max(0, S·ln(C/(1−p)) / (c − a)).
   *
   * @param c servers (threads)
   * @param a offered load λ·S, in threads
   * @param service the mean service time S
   * @param p the percentile as a fraction, e.g. 0.9
   * @return the wait percentile in the unit of {@code service}, infinite when c ≤ a
   */
  public static double waitPercentile(int c, double a, double service, double p) {
    if (c <= a) return Double.POSITIVE_INFINITY;
    double pw = erlangC(c, a);
    return Math.max(0, service * Math.log(pw / (1 - p)) / (c - a));
  }

  /**
   * Recommends a size.
   *
   * @param in the figures and the target
   * @return the size, the figures behind it and the reasoning
   * @throws NoSizeFits if no size up to {@code maxPoolSize} meets the target, or the CPUs cannot
   *     serve the arrival rate at any size ({@link NoSizeFits#limit()} says which)
   */
  public static Recommendation advise(Inputs in) {
    List<String> why = new ArrayList<>();
    Map<String, Object> fig = new LinkedHashMap<>();
    double lambda = in.arrivalRate(), sMs = in.serviceMs(), s = sMs / 1000.0;
    double a = lambda * s;
    fig.put("offered_load", a);
    why.add(
        f(
            "Little's law: offered load a = λ·S = %.4g/s × %.4g ms = %.3f threads busy on average.",
            lambda, sMs, a));
    int stable = (int) Math.floor(a) + 1;
    why.add(
        f(
            "Stability: the queue grows without bound unless c > a, so at least %s.",
            threads(stable)));
    fig.put("min_stable_size", stable);

    double goetz = Double.NaN;
    if (!Double.isNaN(in.cpuMs())) {
      double c = in.cpuMs(), w = sMs - c;
      double cpuDemand = lambda * c / 1000.0;
      fig.put("cpu_demand_cores", cpuDemand);
      if (cpuDemand > in.cores()) {
        throw new NoSizeFits(
            NoSizeFits.Limit.CPU_CAPACITY,
            cpuDemand,
            f(
                "CPU capacity: λ·C = %.4g/s × %.4g ms = %.2f cores of CPU needed but only %d"
                    + " available; no pool size can keep up (at most %.4g tasks/s).",
                lambda, c, cpuDemand, in.cores(), in.cores() * 1000.0 / c));
      }
      why.add(
          f(
              "CPU capacity: λ·C = %.2f of %d cores (%.0f%%).",
              cpuDemand, in.cores(), 100 * cpuDemand / in.cores()));
      goetz = c == 0 ? Double.POSITIVE_INFINITY : in.cores() * in.targetUtilization() * (1 + w / c);
      fig.put("goetz_size", goetz);
      why.add(
          f(
              "Goetz: N = Ncpu·U·(1 + W/C) = %d × %.2f × (1 + %.4g/%.4g) = %.1f threads keep the CPUs at %.0f%%.",
              in.cores(), in.targetUtilization(), w, c, goetz, 100 * in.targetUtilization()));
    }

    int chosen = -1;
    if (!Double.isNaN(in.percentile())) {
      double p = in.percentile() / 100.0;
      why.add(
          f(
              "M/M/c (Erlang C): smallest c whose p%s wait ≤ %.4g ms:",
              trim(in.percentile()), in.maxWaitMs()));
      for (int c = stable; c <= in.maxPoolSize(); c++) {
        double tp = waitPercentile(c, a, sMs, p);
        if (c < stable + 6 || tp <= in.maxWaitMs()) {
          why.add(
              f(
                  "  c = %d: ρ = %.2f, P(wait) = %.2f, E[Wq] = %.3g ms, p%s wait = %.3g ms%s",
                  c,
                  a / c,
                  erlangC(c, a),
                  meanWait(c, a, sMs),
                  trim(in.percentile()),
                  tp,
                  tp <= in.maxWaitMs() ? "  <- meets the target" : ""));
        }
        if (tp <= in.maxWaitMs()) {
          chosen = c;
          break;
        }
      }
      if (chosen < 0) {
        throw new NoSizeFits(
            NoSizeFits.Limit.WAIT_TARGET,
            Double.NaN,
            f(
                "no pool size up to %d keeps the p%s wait under %.4g ms (offered load %.3f)",
                in.maxPoolSize(), trim(in.percentile()), in.maxWaitMs(), a));
      }
    } else {
      chosen = Math.max(stable, (int) Math.ceil(a / in.targetUtilization() - 1e-9));
      why.add(
          f(
              "Utilization target %.0f%%: c = ceil(a / U) = %d (ρ = %.2f, P(wait) = %.2f, E[Wq] = %.3g ms).",
              100 * in.targetUtilization(),
              chosen,
              a / chosen,
              erlangC(chosen, a),
              meanWait(chosen, a, sMs)));
      if (chosen > in.maxPoolSize()) {
        throw new NoSizeFits(
            NoSizeFits.Limit.MAX_POOL_SIZE,
            Double.NaN,
            f(
                "the utilization target needs %s, more than the maximum %d",
                threads(chosen), in.maxPoolSize()));
      }
    }
    double cpuBusy =
        Double.isNaN(in.cpuMs()) ? Double.NaN : lambda * in.cpuMs() / 1000.0 / in.cores();
    if (!Double.isNaN(goetz) && chosen > goetz && cpuBusy >= in.targetUtilization()) {
      why.add(
          f(
              "Which wins: %d, for the wait target. It is more than Goetz's %.1f, the threads the CPUs can"
                  + " keep busy at %.0f%%, and the CPUs are %.0f%% busy: the extra threads would mostly wait"
                  + " for a CPU, so the target needs faster service (less CPU per task) or more cores, not"
                  + " only threads.",
              chosen, goetz, 100 * in.targetUtilization(), 100 * cpuBusy));
    } else if (!Double.isNaN(goetz) && chosen > goetz) {
      why.add(
          f(
              "Which wins: %d, for the wait target. It is more than Goetz's %.1f, which sizes for CPUs kept"
                  + " %.0f%% busy by work that never runs out; these arrivals keep them %.0f%% busy, so the"
                  + " CPUs are not the limit: the waits between bursts of arrivals set the size.",
              chosen, goetz, 100 * in.targetUtilization(), 100 * cpuBusy));
    } else if (!Double.isNaN(goetz)) {
      why.add(
          f(
              "Which wins: %d, for the %s. Goetz's %.1f is how many threads would keep the CPUs %.0f%%"
                  + " busy if work never ran out; these arrivals need only %d to meet the target, and"
                  + " threads beyond that would sit idle: Goetz's figure is a ceiling, the recommendation the need.",
              chosen,
              Double.isNaN(in.percentile()) ? "utilization target" : "wait target",
              goetz,
              100 * in.targetUtilization(),
              chosen));
    }
    why.add(
        "Assumes Poisson arrivals and exponential service; for other service-time distributions waits scale by about (ca² + cs²)/2.");
    fig.put("recommended_pool_size", chosen);
    fig.put("p_wait", erlangC(chosen, a));
    fig.put("mean_wait_ms", meanWait(chosen, a, sMs));
    return new Recommendation(chosen, fig, why);
  }

  /**
   * No pool size meets the target. An {@link IllegalArgumentException} (as bad inputs are), whose
   * {@link #limit()} says which limit was reached, so that a caller tells them apart by type, never
   * by its message.
   */
  public static final class NoSizeFits extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** Which limit no size could get under. */
    public enum Limit {
      /** The CPUs cannot serve the arrival rate at any size: λ·C is more than the cores. */
      CPU_CAPACITY,
      /** No size up to the maximum keeps the wait percentile under the bound. */
      WAIT_TARGET,
      /** The utilization target needs more threads than the maximum. */
      MAX_POOL_SIZE
    }

    /** Which limit was reached. */
    private final Limit limit;

    /** The cores of CPU the arrivals need, for {@link Limit#CPU_CAPACITY}; NaN otherwise. */
    private final double cpuDemandCores;

    NoSizeFits(Limit limit, double cpuDemandCores, String message) {
      super(message);
      this.limit = limit;
      this.cpuDemandCores = cpuDemandCores;
    }

    /**
     * Which limit was reached.
     *
     * @return the limit
     */
    public Limit limit() {
      return limit;
    }

    /**
     * The cores of CPU the arrivals need, λ·C.
     *
     * @return the cores needed, for {@link Limit#CPU_CAPACITY}; NaN for the other limits
     */
    public double cpuDemandCores() {
      return cpuDemandCores;
    }
  }

  /** "1 thread", "2 threads". */
  static String threads(int n) {
    return n + (n == 1 ? " thread" : " threads");
  }

  static String trim(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }

  static String f(String fmt, Object... args) {
    return String.format(Locale.ROOT, fmt, args);
  }
}

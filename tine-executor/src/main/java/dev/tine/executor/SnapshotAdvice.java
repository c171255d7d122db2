package dev.tine.executor;

import static dev.tine.executor.PoolSizeAdvisor.SATURATED_DEAD_TIME;
import static dev.tine.executor.PoolSizeAdvisor.f;
import static dev.tine.executor.PoolSizeAdvisor.meanWait;
import static dev.tine.executor.PoolSizeAdvisor.threads;
import static dev.tine.executor.PoolSizeAdvisor.trim;
import static dev.tine.executor.PoolSizeAdvisor.waitPercentile;

import dev.tine.executor.PoolSizeAdvisor.Inputs;
import dev.tine.executor.PoolSizeAdvisor.NoSizeFits;
import dev.tine.executor.PoolSizeAdvisor.Recommendation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link PoolSizeAdvisor#adviseSnapshot(ExecutorSnapshot, int, double, double, double, int)}:
 * advice from a measured snapshot that never contradicts the measurement. M/M/c answers an open
 * load; a closed or throttled one (it waited markedly less than M/M/c predicts at the measured
 * size, or the caller says how many clients there are) is sized with the {@link FiniteSourceQueue};
 * a saturated open load gets a lower bound from the load it hid.
 */
final class SnapshotAdvice {
  private SnapshotAdvice() {}

  static Recommendation advise(
      ExecutorSnapshot s,
      int clients,
      double targetUtilization,
      double percentile,
      double maxWaitMs,
      int maxPoolSize) {
    if (clients < 0)
      throw new IllegalArgumentException("clients must not be negative, was " + clients);
    Inputs measured = Inputs.fromSnapshot(s, targetUtilization, percentile, maxWaitMs, maxPoolSize);
    int c0 = s.poolSize();
    double measuredP = measuredWaitPercentile(s, percentile);
    if (clients > 0 && !Double.isNaN(percentile))
      return closed(s, measured, clients, 0, List.of(), c0, measuredP);
    Recommendation open;
    try {
      open = adviseOpen(s, measured);
    } catch (NoSizeFits e) {
      open = null;
      if (!(c0 > 0 && !Double.isNaN(measuredP) && measuredP <= maxWaitMs)) throw e;
    }
    if (c0 <= 0 || Double.isNaN(measuredP)) return open;
    // What M/M/c predicts at the size that was measured, against what was measured there.
    double a = measured.arrivalRate() * measured.serviceMs() / 1000.0;
    double predP = waitPercentile(c0, a, measured.serviceMs(), percentile / 100.0);
    double predMean = meanWait(c0, a, measured.serviceMs());
    // A growing queue or rejections: an open load beyond the pool, not a closed one.
    boolean fewerWaits =
        predMean > 2 * s.avgWaitMs() + 0.05
            && predP > 2 * measuredP + 0.05
            && queueGrowth(s) == 0
            && s.rejected() == 0;
    boolean measuredMeets = measuredP <= maxWaitMs;
    if (fewerWaits && (measuredMeets ? open == null || open.poolSize() > c0 : true)) {
      List<String> why = new ArrayList<>();
      why.add(
          f(
              "Fewer waits than M/M/c predicts: at the measured size c = %d it predicts a p%s wait of"
                  + " %s and E[Wq] = %s, but p%s was %.3g ms and the mean %.3g ms. An open stream of"
                  + " arrivals would have queued more: the load is closed or throttled (clients that"
                  + " wait for their reply before sending again, a rate limiter), or service is"
                  + " less variable than exponential. Sizing from what was measured instead.",
              c0,
              trim(percentile),
              ms(predP),
              ms(predMean),
              trim(percentile),
              measuredP,
              s.avgWaitMs()));
      boolean saturated = open == null || open.lowerBound();
      int fitted = fitPopulation(s, c0, saturated);
      if (fitted > 0) return closed(s, measured, fitted, saturated ? -1 : 1, why, c0, measuredP);
      if (open != null) return open; // indistinguishable from an open load
    }
    if (open == null) throw new IllegalStateException("unreachable: no answer and no exception");
    if (!measuredMeets && open.poolSize() <= c0) {
      List<String> why = new ArrayList<>(open.reasoning());
      why.add(
          f(
              "Measured at c = %d: p%s wait %.3g ms, over the target %.4g ms, although M/M/c"
                  + " predicts %s there: arrivals burstier or service more variable than M/M/c"
                  + " assumes. So more than %s: %d, and measure again.",
              c0, trim(percentile), measuredP, maxWaitMs, ms(predP), threads(c0), c0 + 1));
      Map<String, Object> fig = new LinkedHashMap<>(open.figures());
      fig.put("recommended_pool_size", c0 + 1);
      return new Recommendation(c0 + 1, fig, List.copyOf(why), true);
    }
    return open;
  }

  /** M/M/c's answer for a snapshot: the plain one, or a lower bound from a saturated pool. */
  private static Recommendation adviseOpen(ExecutorSnapshot s, Inputs measured) {
    double targetUtilization = measured.targetUtilization();
    double percentile = measured.percentile(), maxWaitMs = measured.maxWaitMs();
    int maxPoolSize = measured.maxPoolSize();
    double growth = queueGrowth(s);
    boolean growing = growth > 0;
    boolean saturated = s.deadTimeRatio() >= SATURATED_DEAD_TIME || growing || s.rejected() > 0;
    if (!saturated) return PoolSizeAdvisor.advise(measured);
    double fromPresence = s.littlesL() / (s.avgServiceMs() / 1000.0);
    double offered = Math.max(s.arrivalRate(), fromPresence);
    List<String> why = new ArrayList<>();
    why.add(
        f(
            "Saturated: when measured, tasks waited %.0f%% of their response time%s%s; the %.4g tasks/s"
                + " it completed is what the pool let through, not what was offered.",
            100 * s.deadTimeRatio(),
            growing ? f(", the queue grew by %.4g tasks/s", growth) : "",
            s.rejected() > 0 ? f(", %d tasks were rejected", s.rejected()) : "",
            s.retirementRate()));
    why.add(
        offered == fromPresence
            ? f(
                "Offered load estimated from what was in the pool: Little's L = %.3f tasks present;"
                    + " served without waiting they would all be running, so λ' = L / S = %.3f / %.4g ms"
                    + " = %.4g/s.",
                s.littlesL(), s.littlesL(), s.avgServiceMs(), offered)
            : f("Offered load estimated from the arrivals: λ' = %.4g/s.", offered));
    double cpuCap =
        Double.isNaN(measured.cpuMs()) || measured.cpuMs() <= 0
            ? Double.POSITIVE_INFINITY
            : targetUtilization * measured.cores() * 1000.0 / measured.cpuMs();
    if (offered > cpuCap) {
      why.add(
          f(
              "The CPUs cannot take that much: at C = %.4g ms per task, %d cores at %.0f%% serve at most"
                  + " %.4g tasks/s, so the estimate is capped there. Past that point the limit is CPU,"
                  + " not threads.",
              measured.cpuMs(), measured.cores(), 100 * targetUtilization, cpuCap));
      offered = cpuCap;
    }
    Inputs est =
        new Inputs(
            offered,
            measured.serviceMs(),
            measured.cpuMs(),
            measured.cores(),
            targetUtilization,
            percentile,
            maxWaitMs,
            maxPoolSize);
    Recommendation r = PoolSizeAdvisor.advise(est);
    why.addAll(r.reasoning());
    why.add(
        f(
            "Lower bound: a saturated pool hides part of its load (callers held back, or turned away),"
                + " so %d is at least what is needed; measure again at that size.",
            r.poolSize()));
    Map<String, Object> fig = new LinkedHashMap<>(r.figures());
    fig.put("saturated", true);
    fig.put("measured_arrival_rate", s.arrivalRate());
    fig.put("estimated_arrival_rate", offered);
    return new Recommendation(r.poolSize(), fig, List.copyOf(why), true);
  }

  /**
   * How fast the queue grew over the snapshot, tasks/s: arrivals not rejected and not completed,
   * when more than 5% of the completions and a queue remains; 0 otherwise.
   */
  private static double queueGrowth(ExecutorSnapshot s) {
    double growth = (s.arrivals() - s.rejected() - s.completed()) / s.seconds();
    boolean growing =
        s.queueLength() > 0 && growth > 0.05 * s.retirementRate() && s.retirementRate() > 0;
    return growing ? growth : 0;
  }

  /**
   * The measured wait at a percentile the snapshot holds (50, 90 or 99), in ms; NaN for another
   * percentile, or none.
   */
  private static double measuredWaitPercentile(ExecutorSnapshot s, double percentile) {
    if (percentile == 50) return s.p50WaitMs();
    if (percentile == 90) return s.p90WaitMs();
    if (percentile == 99) return s.p99WaitMs();
    return Double.NaN;
  }

  /**
   * The population of a finite-source queue that reproduces the measured mean wait at the measured
   * size {@code c0}, each population with the think time the measurement implies for it (Z = N/X −
   * R). An unsaturated pool: the largest whose queue waits no more than was measured (10% and 0.05
   * ms allowed for noise). A saturated pool waits about the same for every population at least as
   * large as the tasks present, so the waits cannot tell them apart: the smallest that waits as
   * long as was measured, the most demanding per client. 0 if the answer is indistinguishable from
   * an open stream (it reaches {@link #MAX_FITTED_POPULATION}).
   */
  private static int fitPopulation(ExecutorSnapshot s, int c0, boolean saturated) {
    double x = s.retirementRate(), r = s.avgResponseMs(), sMs = s.avgServiceMs();
    double w = s.avgWaitMs();
    int fitted = 0;
    for (int n = 1; n <= MAX_FITTED_POPULATION; n++) {
      double z = n / x * 1000.0 - r;
      if (saturated) {
        if (z >= 0 && FiniteSourceQueue.meanWait(n, c0, sMs, z) >= 0.9 * w - 0.05) return n;
      } else {
        if (FiniteSourceQueue.meanWait(n, c0, sMs, Math.max(0, z)) > 1.1 * w + 0.05)
          return Math.max(1, fitted);
        fitted = n;
      }
    }
    return 0;
  }

  /** The largest population {@link #fitPopulation} tries before calling a load open. */
  static final int MAX_FITTED_POPULATION = 1000;

  /** The closed-population answer, with the measurement's check at the measured size c0. */
  private static Recommendation closed(
      ExecutorSnapshot s,
      Inputs measured,
      int n,
      int fitted,
      List<String> before,
      int c0,
      double measuredP) {
    double percentile = measured.percentile(), maxWaitMs = measured.maxWaitMs();
    double p = percentile / 100.0, sMs = measured.serviceMs();
    double x = s.retirementRate(), r = s.avgResponseMs();
    double z = n / x * 1000.0 - r;
    List<String> why = new ArrayList<>(before);
    Map<String, Object> fig = new LinkedHashMap<>();
    if (fitted > 0) {
      why.add(
          f(
              "Population fitted to the measured waits: %s is the largest number of clients whose"
                  + " finite-source queue at c = %d waits no more than the measured mean (%.3g ms).",
              clientsWord(n), c0, s.avgWaitMs()));
    } else if (fitted < 0) {
      why.add(
          f(
              "Population fitted to the measured waits: the pool was saturated (tasks waited %.0f%% of"
                  + " their response time), and a saturated queue waits about as long for any number"
                  + " of clients, so the smallest that waits as long as measured (%.3g ms) is taken:"
                  + " %s (Little's L = %.3f tasks were present), the most demanding per client.",
              100 * s.deadTimeRatio(), s.avgWaitMs(), clientsWord(n), s.littlesL()));
    } else {
      why.add(
          f(
              "Closed population: %s, each waiting for its reply before sending again, so at most %d"
                  + " %s ever in the pool and more than %s never helps. M/M/c's open stream of"
                  + " arrivals does not apply.",
              clientsWord(n), n, n == 1 ? "task is" : "tasks are", threads(n)));
    }
    if (z < 0) {
      why.add(
          f(
              "Think time: N/X − R = %d / %.4g/s − %.4g ms is negative (more tasks were present than"
                  + " %s could send): taken as 0.",
              n, x, r, clientsWord(n)));
      z = 0;
    } else {
      why.add(
          f(
              "Think time between a reply and the next request: Z = N/X − R = %d / %.4g/s − %.4g ms"
                  + " = %.3g ms.",
              n, x, r, z));
    }
    why.add(
        f(
            "Finite-source M/M/c (%d %s): smallest c whose p%s wait ≤ %.4g ms:",
            n, n == 1 ? "source" : "sources", trim(percentile), maxWaitMs));
    int limit = Math.min(n, measured.maxPoolSize());
    int chosen = -1;
    for (int c = 1; c <= limit; c++) {
      double tp = FiniteSourceQueue.waitPercentile(n, c, sMs, z, p);
      boolean meets = tp <= maxWaitMs;
      if (c <= 6 || meets || c == c0) {
        why.add(
            f(
                "  c = %d: P(wait) = %.2f, E[Wq] = %.3g ms, p%s wait = %.3g ms%s",
                c,
                FiniteSourceQueue.waitProbability(n, c, sMs, z),
                FiniteSourceQueue.meanWait(n, c, sMs, z),
                trim(percentile),
                tp,
                meets ? "  <- meets the target" : ""));
      }
      if (meets) {
        chosen = c;
        break;
      }
    }
    if (chosen < 0)
      throw new NoSizeFits(
          NoSizeFits.Limit.WAIT_TARGET,
          Double.NaN,
          f(
              "no pool size up to %d keeps the p%s wait under %.4g ms for %s",
              measured.maxPoolSize(), trim(percentile), maxWaitMs, clientsWord(n)));
    if (c0 > 0 && !Double.isNaN(measuredP)) {
      if (measuredP <= maxWaitMs && chosen > c0) {
        why.add(
            f(
                "Measured at c = %d: p%s wait %.3g ms, within the target: %d, not more.",
                c0, trim(percentile), measuredP, c0));
        chosen = c0;
      } else if (measuredP > maxWaitMs && chosen <= c0 && c0 < n) {
        why.add(
            f(
                "Measured at c = %d: p%s wait %.3g ms, over the target %.4g ms, so more than %s: %d.",
                c0, trim(percentile), measuredP, maxWaitMs, threads(c0), c0 + 1));
        chosen = c0 + 1;
      } else {
        why.add(
            f(
                "Measured at c = %d: p%s wait %.3g ms, %s the target, as the model says.",
                c0, trim(percentile), measuredP, measuredP <= maxWaitMs ? "within" : "over"));
      }
    }
    if (!Double.isNaN(measured.cpuMs())) {
      double cpuDemand = x * measured.cpuMs() / 1000.0;
      why.add(
          f(
              "CPU: λ·C = %.2f of %d cores (%.0f%%) when measured%s.",
              cpuDemand,
              measured.cores(),
              100 * cpuDemand / measured.cores(),
              cpuDemand >= measured.targetUtilization() * measured.cores()
                  ? ": the CPUs are busy, so faster service helps more than threads"
                  : ": not the limit"));
      fig.put("cpu_demand_cores", cpuDemand);
    }
    why.add(
        "Assumes exponential think and service times (finite-source M/M/c); the measured"
            + " percentiles show the truth: measure again at the new size.");
    fig.put("closed_population", true);
    fig.put(fitted != 0 ? "fitted_clients" : "clients", n);
    fig.put("think_time_ms", z);
    fig.put("measured_pool_size", c0);
    fig.put("measured_p_wait_ms", measuredP);
    fig.put("recommended_pool_size", chosen);
    fig.put("p_wait", FiniteSourceQueue.waitProbability(n, chosen, sMs, z));
    fig.put("mean_wait_ms", FiniteSourceQueue.meanWait(n, chosen, sMs, z));
    if (fitted < 0)
      why.add(
          f(
              "Lower bound: a saturated pool hides how many clients wait behind it, so %d is at least"
                  + " what is needed; measure again at that size.",
              chosen));
    return new Recommendation(chosen, fig, List.copyOf(why), fitted < 0);
  }

  private static String ms(double v) {
    return Double.isInfinite(v) ? "∞ (c ≤ a: unstable)" : f("%.3g ms", v);
  }

  private static String clientsWord(int n) {
    return n + (n == 1 ? " client" : " clients");
  }
}

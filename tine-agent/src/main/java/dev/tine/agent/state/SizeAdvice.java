package dev.tine.agent.state;

import dev.tine.executor.PoolSizeAdvisor;
import java.util.Locale;

/**
 * What the agent advises for a pool at a tick, and the one place its advice is worded. The kind is
 * decided by type (the figures at hand, or {@link PoolSizeAdvisor.NoSizeFits#limit()}), never read
 * back from a text.
 */
public final class SizeAdvice {
  /** Which advice a pool gets. */
  public enum Kind {
    /** No arrival in the window, and no task running through it. */
    IDLE,
    /**
     * No arrival and no end in the window, but tasks running all through it (L, set by {@code
     * PoolState}, counts them): busy, with nothing to size from.
     */
    RUNNING_THROUGH,
    /** Arrivals, but no timed task done in the window yet: nothing to size from. */
    TOO_FEW_TIMED,
    /** A size that keeps the p90 wait under the service time. */
    SIZED,
    /** The CPUs cannot serve the arrivals at any size. */
    CPU_BOUND,
    /** No size up to the advisor's maximum meets the target, or the figures were out of range. */
    NO_SIZE
  }

  /** The wait percentile the agent bounds, and the largest size it considers. */
  static final double PERCENTILE = 90;

  static final int MAX_POOL_SIZE = 4096;

  /** The utilization target when no wait target applies (the advisor's default). */
  static final double TARGET_UTILIZATION = 0.8;

  private SizeAdvice() {}

  /**
   * Advises from the window's figures in {@code f} (λ, S, C): sets its {@code advice}, {@code
   * recommendation} and, when sized, {@code recommendedSize}.
   */
  static void advise(PoolFigures f, int cores, ServerFamily family) {
    if (!(f.arrivalRate > 0) || !(f.serviceMs > 0) || f.windowCompleted == 0) {
      if (f.windowArrivals == 0 && f.windowCompleted == 0 && f.littlesL > 0) {
        // every thread it shows busy, for the whole window: not idle, and no size follows
        set(
            f,
            Kind.RUNNING_THROUGH,
            String.format(
                Locale.ROOT,
                "no arrival; %.0f tasks ran through the window, none ended: nothing to size from",
                f.littlesL));
      } else if (f.windowArrivals == 0) set(f, Kind.IDLE, "idle");
      else set(f, Kind.TOO_FEW_TIMED, "not enough timed tasks yet");
      return;
    }
    double c = Double.isNaN(f.cpuPerTaskMs) ? Double.NaN : Math.min(f.cpuPerTaskMs, f.serviceMs);
    double maxWait = Math.max(1.0, f.serviceMs);
    try {
      var in =
          new PoolSizeAdvisor.Inputs(
              f.arrivalRate,
              f.serviceMs,
              c,
              cores,
              TARGET_UTILIZATION,
              PERCENTILE,
              maxWait,
              MAX_POOL_SIZE);
      var r = PoolSizeAdvisor.advise(in);
      f.recommendedSize = r.poolSize();
      double a = f.arrivalRate * f.serviceMs / 1000.0;
      Object cpu = r.figures().get("cpu_demand_cores");
      String text =
          String.format(
              Locale.ROOT,
              "λS=%.2f busy, ρ=%.2f keeps p90 wait ≤ %.3g ms%s",
              a,
              a / r.poolSize(),
              maxWait,
              cpu instanceof Double d
                  ? String.format(Locale.ROOT, "; CPU %.2f of %d cores", d, cores)
                  : "");
      if (family != null) text += "; " + family.advice(r.poolSize(), f);
      set(f, Kind.SIZED, text);
    } catch (PoolSizeAdvisor.NoSizeFits e) {
      if (e.limit() == PoolSizeAdvisor.NoSizeFits.Limit.CPU_CAPACITY) {
        set(
            f,
            Kind.CPU_BOUND,
            String.format(
                Locale.ROOT,
                "CPU-bound: needs %.2f cores of %d; more threads will not help",
                e.cpuDemandCores(),
                cores));
      } else {
        set(f, Kind.NO_SIZE, shortened(e));
      }
      withExtras(f, family);
    } catch (IllegalArgumentException e) {
      set(f, Kind.NO_SIZE, shortened(e)); // figures out of the advisor's range
      withExtras(f, family);
    }
  }

  private static void set(PoolFigures f, Kind kind, String text) {
    f.advice = kind;
    f.recommendation = text;
  }

  private static void withExtras(PoolFigures f, ServerFamily family) {
    if (family != null && !family.extras().isEmpty()) f.recommendation += "; " + family.extras();
  }

  private static String shortened(IllegalArgumentException e) {
    String msg = e.getMessage();
    return msg == null ? e.toString() : msg.length() > 100 ? msg.substring(0, 100) + "…" : msg;
  }
}

package dev.tine.bench.stats;

import java.util.Locale;

/**
 * A ratio of times (lower is faster) with its 95% confidence interval. {@link #clear()} is false
 * when the interval contains 1.0: the data do not show which side is faster.
 */
public record Ratio(double value, double low, double high) {
  public static final Ratio NONE = new Ratio(Double.NaN, Double.NaN, Double.NaN);

  public boolean known() {
    return Double.isFinite(value);
  }

  /** The interval lies entirely below or above 1.0. */
  public boolean clear() {
    return Double.isFinite(low) && Double.isFinite(high) && (high < 1 || low > 1);
  }

  /** The reciprocal (a speedup from a time ratio), with the interval's ends swapped. */
  public Ratio inverse() {
    return new Ratio(1 / value, 1 / high, 1 / low);
  }

  /** "0.54 [0.52, 0.56]". */
  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%.2f [%.2f, %.2f]", value, low, high);
  }
}

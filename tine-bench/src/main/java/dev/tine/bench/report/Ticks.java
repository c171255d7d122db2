package dev.tine.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Axis ticks a reader can read: round values (1, 2, 5 × 10^k) and human units (1.5 M, 12 µs, 3%).
 */
final class Ticks {
  private Ticks() {}

  /** What the numbers on an axis are. */
  enum Unit {
    PLAIN,
    TIMES,
    PERCENT,
    MILLIS,
    PER_SECOND
  }

  /**
   * About {@code target} round tick values from 0 (or the data's low end) to at least {@code max}.
   */
  static List<Double> linear(double max, int target) {
    if (!(max > 0)) max = 1;
    double raw = max / Math.max(1, target), mag = Math.pow(10, Math.floor(Math.log10(raw)));
    double step = mag;
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * mag >= raw) {
        step = m * mag;
        break;
      }
    }
    List<Double> ts = new ArrayList<>();
    for (int i = 0; i * step < max + step * 0.999 && i < 100; i++) ts.add(i * step);
    return ts;
  }

  /**
   * Ticks for a log axis of ratios between lo and hi: 1/8, 1/4, 1/2, 1, 2, 4, ... (and 0.75, 1.5
   * when narrow).
   */
  static List<Double> logRatio(double lo, double hi) {
    List<Double> ts = new ArrayList<>();
    double span = Math.log(hi / lo) / Math.log(2);
    double[] base =
        span < 1.5
            ? new double[] {0.5, 0.67, 0.75, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2}
            : new double[] {1.0 / 16, 1.0 / 8, 0.25, 0.5, 1, 2, 4, 8, 16};
    for (double b : base) if (b >= lo * 0.999 && b <= hi * 1.001) ts.add(b);
    return ts;
  }

  static String format(double v, Unit u) {
    return switch (u) {
      case TIMES -> trim(v) + "×";
      case PERCENT -> trim(100 * v) + "%";
      case MILLIS ->
          v == 0
              ? "0"
              : v >= 1000
                  ? trim(v / 1000) + " s"
                  : v >= 1 ? trim(v) + " ms" : trim(v * 1000) + " µs";
      case PER_SECOND -> si(v) + "/s";
      case PLAIN -> si(v);
    };
  }

  /** 1500000 → "1.5 M", 12000 → "12 k", 0.5 → "0.5". */
  static String si(double v) {
    double a = Math.abs(v);
    if (a >= 1e9) return trim(v / 1e9) + " G";
    if (a >= 1e6) return trim(v / 1e6) + " M";
    if (a >= 1e4) return trim(v / 1e3) + " k";
    return trim(v);
  }

  /**
   * A short human number: 1234 → "1234", 12.34 → "12.3", 1.5 → "1.5", 2.0 → "2", 0.125 → "0.125".
   */
  static String trim(double v) {
    if (v == 0 || !Double.isFinite(v)) return v == 0 ? "0" : "-";
    double a = Math.abs(v);
    String s =
        a >= 100
            ? String.format(Locale.ROOT, "%.0f", v)
            : a >= 10
                ? String.format(Locale.ROOT, "%.1f", v)
                : a >= 1
                    ? String.format(Locale.ROOT, "%.2f", v)
                    : String.format(Locale.ROOT, "%.3f", v);
    if (a < 0.001) // plain digits, two significant ones: 0.00015, never 1.5e-04
    s =
          new java.math.BigDecimal(v)
              .round(new java.math.MathContext(2))
              .stripTrailingZeros()
              .toPlainString();
    else if (s.contains(".")) s = s.replaceAll("0+$", "").replaceAll("\\.$", "");
    return s;
  }
}

package dev.tine.bench.stats;

import java.util.Arrays;

/**
 * The Mann-Whitney rank-sum test (as benchstat uses) and Holm's step-down correction for testing
 * many cells at once. Ranks make no assumption about the shape of the times, and under "no change"
 * the two runs' times are exchangeable, so the false-alarm rate is what it says.
 */
public final class MannWhitney {
  private MannWhitney() {}

  /** Exact null distributions are used up to this many values per sample (counts fit in a long). */
  static final int EXACT_MAX = 30;

  /**
   * Two-sided p-value of the hypothesis that {@code x} and {@code y} come from the same
   * distribution. NaN values are dropped; NaN if either sample is empty.
   */
  public static double twoSidedP(double[] x, double[] y) {
    double[] a = Arrays.stream(x).filter(Double::isFinite).toArray(),
        b = Arrays.stream(y).filter(Double::isFinite).toArray();
    int m = a.length, n = b.length;
    if (m == 0 || n == 0) return Double.NaN;
    double u = 0;
    boolean ties = false;
    for (double xi : a) {
      for (double yj : b) {
        if (xi > yj) u += 1;
        else if (xi == yj) {
          u += 0.5;
          ties = true;
        }
      }
    }
    if (!ties && m <= EXACT_MAX && n <= EXACT_MAX) {
      long[] counts = distribution(m, n);
      long total = 0;
      for (long c : counts) total += c;
      int k = (int) Math.round(u);
      long low = 0, high = 0;
      for (int i = 0; i <= k; i++) low += counts[i];
      for (int i = k; i < counts.length; i++) high += counts[i];
      return Math.min(1, 2.0 * Math.min(low, high) / total);
    }
    // normal approximation with continuity correction (ties only shrink the variance a little;
    // ignored)
    double mean = m * (double) n / 2, sd = Math.sqrt(m * (double) n * (m + n + 1) / 12.0);
    double z = (Math.abs(u - mean) - 0.5) / sd;
    return Math.min(1, 2 * upperNormalTail(Math.max(0, z)));
  }

  /** counts[u] = number of orderings of m x's and n y's with U = u (pairs where x > y). */
  static long[] distribution(int m, int n) {
    long[][] prev = new long[n + 1][], cur;
    for (int j = 0; j <= n; j++) prev[j] = new long[] {1}; // m = 0: one ordering, U = 0
    for (int i = 1; i <= m; i++) {
      cur = new long[n + 1][];
      cur[0] = new long[] {1};
      for (int j = 1; j <= n; j++) {
        // the largest value is an x (it beats all j y's) or a y
        long[] withX = prev[j], withY = cur[j - 1];
        long[] c = new long[i * j + 1];
        for (int u = 0; u < withY.length; u++) c[u] += withY[u];
        for (int u = 0; u < withX.length; u++) c[u + j] += withX[u];
        cur[j] = c;
      }
      prev = cur;
    }
    return prev[n];
  }

  static double upperNormalTail(double z) { // Abramowitz-Stegun 7.1.26 via erfc
    double t = 1 / (1 + 0.3275911 * z / Math.sqrt(2));
    double poly =
        t
            * (0.254829592
                + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    return 0.5 * poly * Math.exp(-z * z / 2);
  }

  /**
   * Holm's step-down procedure: which of the hypotheses with these p-values are rejected while
   * keeping the chance of any false rejection at most {@code alpha}. NaN p-values are never
   * rejected.
   */
  public static boolean[] holm(double[] p, double alpha) {
    Integer[] order = new Integer[p.length];
    for (int i = 0; i < p.length; i++) order[i] = i;
    Arrays.sort(
        order,
        (i, j) -> Double.compare(Double.isNaN(p[i]) ? 2 : p[i], Double.isNaN(p[j]) ? 2 : p[j]));
    boolean[] reject = new boolean[p.length];
    int k = (int) Arrays.stream(p).filter(d -> !Double.isNaN(d)).count();
    for (int r = 0; r < k; r++) {
      int i = order[r];
      if (p[i] <= alpha / (k - r)) reject[i] = true;
      else break;
    }
    return reject;
  }

  /**
   * Holm's adjusted p-values: the smallest family-wise level at which each hypothesis is rejected
   * by {@link #holm} ({@code holmAdjusted(p)[i] <= alpha} exactly when {@code holm(p, alpha)[i]}).
   * The k-th smallest p (from 0) is multiplied by (m - k), and the adjusted values are made
   * non-decreasing in that order, capped at 1. NaN stays NaN and does not count in m.
   */
  public static double[] holmAdjusted(double[] p) {
    Integer[] order = new Integer[p.length];
    for (int i = 0; i < p.length; i++) order[i] = i;
    Arrays.sort(
        order,
        (i, j) -> Double.compare(Double.isNaN(p[i]) ? 2 : p[i], Double.isNaN(p[j]) ? 2 : p[j]));
    double[] adj = new double[p.length];
    Arrays.fill(adj, Double.NaN);
    int k = (int) Arrays.stream(p).filter(d -> !Double.isNaN(d)).count();
    double running = 0;
    for (int r = 0; r < k; r++) {
      int i = order[r];
      running = Math.max(running, Math.min(1, (k - r) * p[i]));
      adj[i] = running;
    }
    return adj;
  }
}

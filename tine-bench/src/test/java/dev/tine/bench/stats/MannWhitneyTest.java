package dev.tine.bench.stats;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The rank test's exact p-values and its false-alarm rate; Holm's step-down. */
class MannWhitneyTest {
  @Test
  void exactPValues() {
    double[] lo = {1, 2, 3, 4, 5}, hi = {6, 7, 8, 9, 10};
    assertEquals(
        2.0 / 252,
        MannWhitney.twoSidedP(lo, hi),
        1e-12,
        "complete separation of 5 and 5: 2 of C(10,5)");
    assertEquals(2.0 / 252, MannWhitney.twoSidedP(hi, lo), 1e-12);
    assertEquals(1.0, MannWhitney.twoSidedP(new double[] {1, 4}, new double[] {2, 3}), 1e-12);
    long total = 0;
    for (long c : MannWhitney.distribution(10, 10)) total += c;
    assertEquals(184_756L, total, "C(20,10) orderings");
  }

  @Test
  void falseAlarmRateIsAlpha() {
    Random r = new Random(1);
    int below5 = 0, trials = 4000;
    for (int t = 0; t < trials; t++) {
      double[] x = new double[10], y = new double[10];
      for (int i = 0; i < 10; i++) {
        x[i] = Math.exp(r.nextGaussian());
        y[i] = Math.exp(r.nextGaussian());
      }
      if (MannWhitney.twoSidedP(x, y) < 0.05) below5++;
    }
    double rate = below5 / (double) trials;
    assertTrue(rate > 0.035 && rate <= 0.055, "p < 0.05 under no difference: " + rate);
  }

  @Test
  void holmsAdjustedPRejectsExactlyWhereHolmDoes() {
    java.util.Random rnd = new java.util.Random(3);
    for (int t = 0; t < 200; t++) {
      double[] p = new double[1 + rnd.nextInt(12)];
      for (int i = 0; i < p.length; i++)
        p[i] = rnd.nextInt(10) == 0 ? Double.NaN : Math.pow(rnd.nextDouble(), 3);
      double[] adj = MannWhitney.holmAdjusted(p);
      for (double alpha : new double[] {0.01, 0.05, 0.1}) {
        boolean[] reject = MannWhitney.holm(p, alpha);
        for (int i = 0; i < p.length; i++) {
          assertEquals(reject[i], adj[i] <= alpha, java.util.Arrays.toString(p) + " at " + i);
          if (!Double.isNaN(p[i])) assertTrue(adj[i] >= p[i] && adj[i] <= 1);
        }
      }
    }
    // m = 3: 0.01 × 3, then max(0.03, 0.02 × 2), then max(0.04, 0.5 × 1)
    assertArrayEquals(
        new double[] {0.03, 0.04, 0.5},
        MannWhitney.holmAdjusted(new double[] {0.01, 0.02, 0.5}),
        1e-12);
  }

  @Test
  void holmStepsDown() {
    double[] p = {0.001, 0.04, 0.012, Double.NaN, 0.5};
    // k = 4 known: 0.001 <= 0.05/4; 0.012 <= 0.05/3; 0.04 > 0.05/2 stops
    assertArrayEquals(new boolean[] {true, false, true, false, false}, MannWhitney.holm(p, 0.05));
    assertArrayEquals(
        new boolean[] {false, false}, MannWhitney.holm(new double[] {0.03, 0.04}, 0.05));
  }
}

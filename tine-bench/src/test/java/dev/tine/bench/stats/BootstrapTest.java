package dev.tine.bench.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The paired-ratio intervals on synthetic rounds whose true ratio is known: they contain it about
 * 95% of the time, they are deterministic, and they say "no clear difference" when there is none.
 * The synthetic data come from seeded generators, so every assertion sees the same numbers.
 */
class BootstrapTest {
  /**
   * n rounds: b = drift·noise, a = truth·drift·noise; a round-wide drift both share, as on a noisy
   * box.
   */
  static double[][] rounds(Random rnd, int n, double truth, boolean heavyTails) {
    double[] a = new double[n], b = new double[n];
    for (int i = 0; i < n; i++) {
      double drift = Math.exp(rnd.nextGaussian() * 0.2);
      a[i] = truth * 100 * drift * Math.exp(noise(rnd, heavyTails));
      b[i] = 100 * drift * Math.exp(noise(rnd, heavyTails));
    }
    return new double[][] {a, b};
  }

  /**
   * Normal noise, or mostly small noise with a 15% chance of a one-sided disturbance (a busy
   * neighbour).
   */
  static double noise(Random rnd, boolean heavy) {
    if (!heavy) return rnd.nextGaussian() * 0.07;
    return rnd.nextDouble() < 0.15 ? Math.abs(rnd.nextGaussian()) * 0.5 : rnd.nextGaussian() * 0.05;
  }

  @Test
  void intervalsContainTheTrueRatioAbout95PercentOfTheTime() {
    Random rnd = new Random(20261122);
    for (int n : new int[] {5, 7, 10}) {
      for (boolean heavy : new boolean[] {false, true}) {
        int trials = 250, hits = 0;
        for (int t = 0; t < trials; t++) {
          double[][] ab = rounds(rnd, n, 1.2, heavy);
          Ratio r = Bootstrap.pairedRatio(ab[0], ab[1]);
          assertTrue(r.low() <= r.value() && r.value() <= r.high(), r.toString());
          if (r.low() <= 1.2 && 1.2 <= r.high()) hits++;
        }
        double coverage = hits / (double) trials;
        // 250 trials: a true 95% lands in [0.92, 0.98] with high probability; an interval that
        // ignored
        // the noise (e.g. [median, median]) or the plain bootstrap at 7 rounds (87%) would not.
        assertTrue(
            coverage >= 0.90 && coverage <= 0.995,
            "n=" + n + (heavy ? " heavy" : " normal") + ": " + coverage);
      }
    }
  }

  @Test
  void moreRoundsGiveTighterIntervals() {
    Random rnd = new Random(7);
    double w5 = 0, w20 = 0;
    for (int t = 0; t < 100; t++) {
      double[][] a = rounds(rnd, 5, 1.2, false), b = rounds(rnd, 20, 1.2, false);
      Ratio r5 = Bootstrap.pairedRatio(a[0], a[1]), r20 = Bootstrap.pairedRatio(b[0], b[1]);
      w5 += Math.log(r5.high() / r5.low());
      w20 += Math.log(r20.high() / r20.low());
    }
    assertTrue(w20 < 0.6 * w5, "20 rounds: width " + w20 / 100 + " vs 5 rounds: " + w5 / 100);
  }

  @Test
  void aClearDifferenceIsClearAndNoDifferenceIsNot() {
    Random rnd = new Random(3);
    int clearWhenDifferent = 0, clearWhenSame = 0;
    for (int t = 0; t < 100; t++) {
      double[][] d = rounds(rnd, 10, 1.3, false), s = rounds(rnd, 10, 1.0, false);
      if (Bootstrap.pairedRatio(d[0], d[1]).clear()) clearWhenDifferent++;
      if (Bootstrap.pairedRatio(s[0], s[1]).clear()) clearWhenSame++;
    }
    assertTrue(
        clearWhenDifferent >= 95,
        "a 30% difference in 10 rounds of 7% noise: " + clearWhenDifferent);
    assertTrue(clearWhenSame <= 10, "equal times called different: " + clearWhenSame + " of 100");
  }

  @Test
  void deterministicAndPaired() {
    double[] a = {110, 230, 95, 120, 300},
        b = {100, 210, 90, 100, 250}; // a ≈ 1.1-1.2 × b, rounds drift 3x
    Ratio r1 = Bootstrap.pairedRatio(a, b), r2 = Bootstrap.pairedRatio(a.clone(), b.clone());
    assertEquals(r1, r2, "seeded: the same times give the same interval");
    assertEquals(1.1, r1.value(), 1e-12, "median of 1.1, 1.095, 1.056, 1.2, 1.2");
    assertTrue(r1.clear() && r1.low() > 1, "pairing cancels the drift between rounds: " + r1);
    // unpaired, the same numbers would overlap completely: medians 120 vs 100 with ranges 95-300
    // and 90-250
  }

  @Test
  void missingRoundsAreSkipped() {
    double[] a = {2, Double.NaN, 2, 2, 2}, b = {1, 1, 1, Double.NaN, 1};
    Ratio r = Bootstrap.pairedRatio(a, b);
    assertEquals(2.0, r.value(), 1e-12);
    assertEquals(Ratio.NONE, Bootstrap.pairedRatio(new double[] {Double.NaN}, new double[] {1}));
  }

  @Test
  void geometricMeanOfKnownRatios() {
    Random rnd = new Random(11);
    int hits = 0, trials = 100;
    for (int t = 0; t < trials; t++) {
      List<double[]> as = new ArrayList<>(), bs = new ArrayList<>();
      for (double truth : new double[] {0.5, 1.0, 2.0, 0.8}) { // geometric mean 0.8^(1/4) = 0.946
        double[][] ab = rounds(rnd, 6, truth, true);
        as.add(ab[0]);
        bs.add(ab[1]);
      }
      Ratio g = Bootstrap.geometricMean(as, bs);
      if (g.low() <= Math.pow(0.8, 0.25) && Math.pow(0.8, 0.25) <= g.high()) hits++;
    }
    assertTrue(hits >= 90, "geometric-mean interval covered the truth " + hits + " of " + trials);
    Ratio one =
        Bootstrap.geometricMean(
            List.of(new double[] {3, 3, 3}, new double[] {1, 1, 1}),
            List.of(new double[] {1, 1, 1}, new double[] {3, 3, 3}));
    assertEquals(1.0, one.value(), 1e-12, "3 and 1/3");
    assertFalse(one.clear());
  }
}

package dev.tine.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.bench.report.Charts.Series;
import dev.tine.bench.report.Ticks.Unit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The report's charts say what they show: readable ticks, honest legends, a usable scale. */
class ChartsTest {
  static final double NaN = Double.NaN;

  /** Steal ratios are tiny with latent forks: the axis reads 0.00015%, not 1.5e-04%. */
  @Test
  void tinyPercentagesArePlainNumbers() {
    assertEquals("0.00015%", Ticks.format(1.5e-6, Unit.PERCENT));
    assertEquals("0.0002%", Ticks.format(2e-6, Unit.PERCENT));
    assertEquals("1.5%", Ticks.format(0.015, Unit.PERCENT));
    String svg =
        Charts.lineChart(
            "s",
            "steals / tasks executed",
            List.of(1, 2),
            List.of(new Series("tine", new double[] {1e-6, 3e-6})),
            null,
            null,
            Unit.PERCENT);
    assertFalse(Pattern.compile("[\\d.]e[-+]\\d").matcher(svg).find(), "no e-notation: " + svg);
  }

  /** A series with no point gets no legend entry; one far above the rest is cut and says so. */
  @Test
  void legendsNameOnlyWhatIsDrawnAndOffScaleLinesSaySo() {
    String svg =
        Charts.lineChart(
            "x",
            "speedup",
            List.of(1, 2),
            List.of(
                new Series("tine", new double[] {1.0, 1.6}),
                new Series("jdk", new double[] {0.9, 1.5}),
                new Series("tine-eager", new double[] {10.0, 12.0}),
                new Series("nothing", new double[] {NaN, NaN})),
            new double[] {1, 1.8},
            "ceiling",
            Unit.TIMES);
    assertFalse(svg.contains(">nothing<"), "a series with no point is not in the legend");
    assertTrue(svg.contains("tine-eager (off scale: up to 12×)"), svg);
    // the scale fits the others: its top tick is far below 12
    Matcher m = Pattern.compile(">([\\d.]+)×</text>").matcher(svg);
    double topTick = 0;
    while (m.find()) topTick = Math.max(topTick, Double.parseDouble(m.group(1)));
    assertTrue(topTick < 4, "top tick " + topTick + " fits tine, jdk and the ceiling");
    assertTrue(svg.contains("class=\"offscale\""), "off-scale points are marked at the top");
    String two =
        Charts.lineChart(
            "y",
            "speedup",
            List.of(1, 2),
            List.of(
                new Series("tine", new double[] {0.6, 0.64}),
                new Series("jdk", new double[] {0.05, 0.07})),
            null,
            null,
            Unit.TIMES);
    assertFalse(two.contains("off scale"), "of two series neither is cut: " + two);
  }

  /**
   * A ceiling far above every series is left out of the scale, and a bar series of zeros says so.
   */
  @Test
  void aFarCeilingAndZeroBarsAreNamedNotHidden() {
    String svg =
        Charts.lineChart(
            "c",
            "speedup",
            List.of(1, 2),
            List.of(
                new Series("tine", new double[] {0.07, 0.1}),
                new Series("jdk", new double[] {0.04, 0.03})),
            new double[] {1, 1.1},
            "ceiling",
            Unit.TIMES);
    assertTrue(svg.contains("ceiling (off scale: up to 1.1×)"), svg);
    String bars =
        Charts.barChart(
            "g",
            "GC",
            List.of(1, 2),
            List.of(
                new Series("tine", new double[] {0, 0}), new Series("jdk", new double[] {2, 3})),
            Unit.MILLIS);
    assertTrue(bars.contains(">tine (0 in every run)<"), bars);
  }

  /** Ten GC settings get ten colours: a hue per collector, a shade per young size. */
  @Test
  void gcSettingsHaveDistinctColours() {
    Set<String> colours = new HashSet<>();
    for (String c : List.of("Serial", "Parallel", "G1"))
      for (String y : List.of(" 4M", " 64M", " 2+2p"))
        colours.add(ExperimentReport.collectorColor(c + y));
    colours.add(ExperimentReport.collectorColor("ZGC"));
    assertEquals(10, colours.size(), colours.toString());
  }
}

package dev.tine.bench.report;

import dev.tine.bench.report.Ticks.Unit;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Inline SVG charts for the HTML report: lines over thread counts (with interval whiskers and a
 * ceiling curve) and grouped bars, with the frame they share (axes, legend, colours, escaping).
 * Axes carry round ticks in human units; legends sit below the plot, never over data or labels. The
 * verdict's forest plot is {@link ForestPlot}.
 */
final class Charts {
  private Charts() {}

  static final Map<String, String> COLORS =
      Map.of(
          "tine",
          "#1f6feb",
          "jdk",
          "#d1242f",
          "jdk-builtin",
          "#2da44e",
          "tine-eager",
          "#8250df",
          "tine-nostats",
          "#0a7e8c",
          "seq",
          "#444444");
  static final String[] SPARE = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf"
  };

  static String color(String name, int i) {
    String c = COLORS.get(name);
    return c != null ? c : SPARE[i % SPARE.length];
  }

  /** One line or bar series: values per x, optional interval per x (NaN where unknown). */
  record Series(String name, double[] y, double[] lo, double[] hi, String color, String dash) {
    Series(String name, double[] y) {
      this(name, y, null, null, null, null);
    }

    Series(String name, double[] y, double[] lo, double[] hi) {
      this(name, y, lo, hi, null, null);
    }

    String colorOr(int i) {
      return color != null ? color : Charts.color(name, i);
    }
  }

  static String esc(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  static double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  static String f(String fmt, Object... args) {
    return String.format(Locale.ROOT, fmt, args);
  }

  /** A line series this many times higher than all others is drawn cut at the top. */
  static final double OUTLIER = 4;

  private static final int W0 = 400, PLOT_H = 190, L = 58, R = 14, T = 30, B = 44, LEGEND_ROW = 16;

  private static int legendRows(List<String> names, int W) {
    int x = L, rows = 1;
    for (String n : names) {
      int w = 18 + 7 * n.length() + 14;
      if (x + w > W - R && x > L) {
        rows++;
        x = L;
      }
      x += w;
    }
    return rows;
  }

  /** The legend below the plot: a swatch and a name per entry, wrapping. */
  private static void legend(
      StringBuilder sb,
      List<String> names,
      List<String> colors,
      List<String> dashes,
      boolean lines,
      int top,
      int W) {
    int x = L, y = top;
    for (int i = 0; i < names.size(); i++) {
      String n = names.get(i);
      int w = 18 + 7 * n.length() + 14;
      if (x + w > W - R && x > L) {
        y += LEGEND_ROW;
        x = L;
      }
      if (lines || dashes.get(i) != null) {
        sb.append(
            f(
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2.5\"%s/>",
                x,
                y - 4,
                x + 14,
                y - 4,
                colors.get(i),
                dashes.get(i) == null ? "" : " stroke-dasharray=\"" + dashes.get(i) + "\""));
      } else {
        sb.append(
            f(
                "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"%s\"/>",
                x, y - 9, colors.get(i)));
      }
      sb.append(f("<text x=\"%d\" y=\"%d\" class=\"axis\">%s</text>", x + 18, y, esc(n)));
      x += w;
    }
  }

  private static String open(String id, String title, int height, int W) {
    return f(
        "<svg class=\"chart\" id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">"
            + "<text x=\"%d\" y=\"16\" class=\"title\">%s</text>",
        id, W, height, W, height, L, esc(title));
  }

  /** Y axis with round ticks in {@code unit}; returns the top of the scale. */
  private static double yAxis(StringBuilder sb, double ymax, Unit unit, int W) {
    List<Double> ticks = Ticks.linear(ymax, 4);
    double top = ticks.get(ticks.size() - 1);
    int y0 = T + PLOT_H;
    for (double v : ticks) {
      double y = y0 - PLOT_H * v / top;
      sb.append(
          f(
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>",
              L, y, W - R, y));
      sb.append(
          f(
              "<text x=\"%d\" y=\"%.1f\" class=\"axis\" text-anchor=\"end\">%s</text>",
              L - 5, y + 4, esc(Ticks.format(v, unit))));
    }
    sb.append(f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", L, T, L, y0));
    sb.append(
        f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", L, y0, W - R, y0));
    return top;
  }

  private static double[] xPositions(int nx, int W) {
    double[] px = new double[nx];
    for (int i = 0; i < nx; i++)
      px[i] = nx == 1 ? (L + W - R) / 2.0 : L + 24 + (W - R - L - 48) * i / (double) (nx - 1);
    return px;
  }

  private static void xLabels(
      StringBuilder sb, List<Integer> xs, double[] px, String label, int W) {
    int y0 = T + PLOT_H;
    for (int i = 0; i < xs.size(); i++) {
      sb.append(
          f(
              "<text x=\"%.1f\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">%d</text>",
              px[i], y0 + 15, xs.get(i)));
    }
    sb.append(
        f(
            "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">%s</text>",
            (L + W - R) / 2, y0 + 31, esc(label)));
  }

  static double max(List<Series> series, double floor) {
    double m = floor;
    for (Series s : series) {
      for (int i = 0; i < s.y.length; i++) {
        if (Double.isFinite(s.y[i])) m = Math.max(m, s.y[i]);
        if (s.hi != null && Double.isFinite(s.hi[i])) m = Math.max(m, s.hi[i]);
      }
    }
    return m;
  }

  /**
   * A line chart over thread counts: one polyline per series with interval whiskers, and, if given,
   * a dashed ceiling curve (the box's measured n-thread ceiling, 1 at one thread).
   */
  static String lineChart(
      String id,
      String title,
      List<Integer> xs,
      List<Series> series,
      double[] ceiling,
      String ceilingLabel,
      Unit unit) {
    int W = W0;
    // Series with nothing to draw get no legend entry. Among three or more series, one far above
    // the rest (more than OUTLIER times the next one's highest point) would flatten them onto the
    // axis: the scale fits the others, and that series is drawn cut at the top, its legend entry
    // saying how high it goes.
    List<Integer> drawn = new java.util.ArrayList<>();
    for (int i = 0; i < series.size(); i++)
      if (java.util.Arrays.stream(series.get(i).y).anyMatch(Double::isFinite)) drawn.add(i);
    double[] peak = new double[series.size()];
    for (int i : drawn)
      peak[i] = java.util.Arrays.stream(series.get(i).y).filter(Double::isFinite).max().orElse(0);
    int outlier = -1;
    if (drawn.size() >= 3) { // with two, cutting one would leave a single line: keep both
      List<Integer> byPeak = new java.util.ArrayList<>(drawn);
      byPeak.sort((x, y) -> Double.compare(peak[y], peak[x]));
      double second = peak[byPeak.get(1)];
      if (second > 0 && peak[byPeak.get(0)] > OUTLIER * second) outlier = byPeak.get(0);
    }
    List<String> names = new java.util.ArrayList<>(),
        colors = new java.util.ArrayList<>(),
        dashes = new java.util.ArrayList<>();
    for (int i : drawn) {
      names.add(
          series.get(i).name
              + (i == outlier ? " (off scale: up to " + Ticks.format(peak[i], unit) + ")" : ""));
      colors.add(series.get(i).colorOr(i));
      dashes.add(series.get(i).dash);
    }
    double ymax = 0, whiskers = 0;
    for (int i : drawn) {
      if (i == outlier) continue;
      ymax = Math.max(ymax, peak[i]);
      whiskers = Math.max(whiskers, max(List.of(series.get(i)), 0));
    }
    // the ceiling, likewise, is left out of the scale when it would flatten every series
    double ceilingPeak = 0;
    if (ceiling != null)
      for (double c : ceiling) if (Double.isFinite(c)) ceilingPeak = Math.max(ceilingPeak, c);
    boolean ceilingOff = ymax > 0 && ceilingPeak > OUTLIER * ymax;
    if (ceiling != null) {
      names.add(
          ceilingLabel
              + (ceilingOff ? " (off scale: up to " + Ticks.format(ceilingPeak, unit) + ")" : ""));
      colors.add("#888");
      dashes.add("5 4");
    }
    int height = T + PLOT_H + B + legendRows(names, W) * LEGEND_ROW;
    StringBuilder sb = new StringBuilder(open(id, title, height, W));
    // the scale fits the points and the ceiling; a whisker longer than that is cut at the top
    // (marked)
    if (!ceilingOff) ymax = Math.max(ymax, ceilingPeak);
    whiskers = Math.max(whiskers, ymax);
    double top = yAxis(sb, Math.min(whiskers, ymax * 1.4) * 1.05, unit, W);
    double[] px = xPositions(xs.size(), W);
    xLabels(sb, xs, px, "threads", W);
    int y0 = T + PLOT_H;
    if (ceiling != null) {
      StringBuilder pts = new StringBuilder();
      for (int i = 0; i < xs.size(); i++) {
        if (Double.isFinite(ceiling[i]))
          pts.append(f("%.1f,%.1f ", px[i], y0 - PLOT_H * Math.min(ceiling[i], top) / top));
      }
      sb.append(
          f(
              "<polyline class=\"ceiling\" points=\"%s\" fill=\"none\" stroke=\"#888\" stroke-width=\"1.5\""
                  + " stroke-dasharray=\"5 4\"/>",
              pts.toString().trim()));
    }
    boolean whiskersShown = series.size() <= 4; // more would hide the lines
    for (int si : drawn) {
      Series s = series.get(si);
      String c = s.colorOr(si);
      StringBuilder pts = new StringBuilder();
      double dx = whiskersShown ? (si - (series.size() - 1) / 2.0) * 4 : 0; // whiskers side by side
      for (int i = 0; i < xs.size(); i++) {
        if (!Double.isFinite(s.y[i])) continue;
        double y = y0 - PLOT_H * Math.min(s.y[i], top) / top;
        pts.append(f("%.1f,%.1f ", px[i] + dx, y));
        if (whiskersShown && s.lo != null && Double.isFinite(s.lo[i]) && Double.isFinite(s.hi[i])) {
          double yHi = y0 - PLOT_H * Math.min(s.hi[i], top) / top;
          sb.append(
              f(
                  "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\"/>",
                  px[i] + dx, y0 - PLOT_H * Math.min(s.lo[i], top) / top, px[i] + dx, yHi, c));
          if (s.hi[i] > top) { // cut: a small arrowhead says the interval goes on
            sb.append(
                f(
                    "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>",
                    px[i] + dx - 3, yHi + 5, px[i] + dx, yHi, px[i] + dx + 3, yHi + 5, c));
          }
        }
        if (s.y[i] > top) { // off scale: an arrowhead at the top instead of a point on the line
          sb.append(
              f(
                  "<polygon class=\"offscale\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>",
                  px[i] + dx - 5, y + 7, px[i] + dx, y - 2, px[i] + dx + 5, y + 7, c));
        }
        sb.append(
            f(
                "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s, %d %s: %s</title></circle>",
                px[i] + dx,
                y,
                c,
                esc(s.name),
                xs.get(i),
                xs.get(i) == 1 ? "thread" : "threads",
                esc(Ticks.format(s.y[i], unit))));
      }
      sb.append(
          f(
              "<polyline class=\"series\" points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>",
              pts.toString().trim(),
              c,
              s.dash == null ? "" : " stroke-dasharray=\"" + s.dash + "\""));
    }
    legend(sb, names, colors, dashes, true, y0 + B + 10, W);
    return sb.append("</svg>").toString();
  }

  /** Grouped bars: per thread count, one bar per series. */
  static String barChart(
      String id, String title, List<Integer> xs, List<Series> series, Unit unit) {
    return barChart(id, title, xs.stream().map(String::valueOf).toList(), "threads", series, unit);
  }

  /** Grouped bars: per group (labelled below the axis), one bar per series. */
  static String barChart(
      String id,
      String title,
      List<String> groupLabels,
      String axisLabel,
      List<Series> series,
      Unit unit) {
    int W =
        Math.max(
            W0,
            L
                + R
                + groupLabels.size()
                    * Math.max(
                        40, 8 * groupLabels.stream().mapToInt(String::length).max().orElse(4)));
    // a series with no bar to see says so in its legend entry
    List<String> names =
        series.stream()
            .map(x ->
                java.util.Arrays.stream(x.y).allMatch(v -> !(v > 0))
                    ? x.name
                        + (java.util.Arrays.stream(x.y).anyMatch(Double::isFinite)
                            ? " (0 in every run)"
                            : " (not measured)")
                    : x.name)
            .toList();
    List<String> colors = new java.util.ArrayList<>();
    for (int i = 0; i < series.size(); i++) colors.add(series.get(i).colorOr(i));
    int height = T + PLOT_H + B + legendRows(names, W) * LEGEND_ROW;
    StringBuilder sb = new StringBuilder(open(id, title, height, W));
    double top = yAxis(sb, max(series, 0) * 1.05, unit, W);
    int y0 = T + PLOT_H, groups = groupLabels.size(), ns = Math.max(1, series.size());
    if (max(series, 0) == 0) {
      sb.append(
          f(
              "<text x=\"%d\" y=\"%d\" class=\"axis faint\" text-anchor=\"middle\">zero in every run</text>",
              (L + W - R) / 2, T + PLOT_H / 2));
    }
    double gw = (W - L - R) / (double) Math.max(1, groups), bw = gw * 0.8 / ns;
    for (int si = 0; si < series.size(); si++) {
      Series s = series.get(si);
      for (int g = 0; g < groups; g++) {
        double v = s.y[g];
        if (!Double.isFinite(v)) continue;
        double bh = PLOT_H * v / top, x = L + g * gw + gw * 0.1 + si * bw;
        sb.append(
            f(
                "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s, %s: %s</title></rect>",
                x,
                y0 - bh,
                bw,
                bh,
                colors.get(si),
                esc(s.name),
                esc(groupLabels.get(g)),
                esc(Ticks.format(v, unit))));
      }
    }
    for (int g = 0; g < groups; g++) {
      sb.append(
          f(
              "<text x=\"%.1f\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">%s</text>",
              L + g * gw + gw / 2, y0 + 15, esc(groupLabels.get(g))));
    }
    sb.append(
        f(
            "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">%s</text>",
            (L + W - R) / 2, y0 + 31, esc(axisLabel)));
    legend(
        sb,
        names,
        colors,
        java.util.Collections.nCopies(names.size(), (String) null),
        false,
        y0 + B + 10,
        W);
    return sb.append("</svg>").toString();
  }
}

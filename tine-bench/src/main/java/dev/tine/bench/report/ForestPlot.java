package dev.tine.bench.report;

import static dev.tine.bench.report.Charts.esc;
import static dev.tine.bench.report.Charts.f;

import dev.tine.bench.report.Ticks.Unit;
import dev.tine.bench.stats.Ratio;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.DoubleUnaryOperator;

/**
 * The report's verdict: each program's ratio with its 95% interval, as text ({@link #interval}) and
 * as a forest plot, one panel per thread count on a log axis, coloured by what the interval says.
 */
final class ForestPlot {
  private ForestPlot() {}

  /**
   * "0.75× [0.65, 0.87]"; an end that would print as 1.00 gets three decimals, so that the colour
   * (the interval excludes 1) and the text never seem to disagree.
   */
  static String interval(Ratio x) {
    if (!Double.isFinite(x.low())) return f("%.2f×", x.value());
    return f("%.2f× [%s, %s]", x.value(), end(x.low()), end(x.high()));
  }

  private static String end(double v) {
    return Math.abs(v - 1) < 0.005 ? f("%.3f", v) : f("%.2f", v);
  }

  /** One row of the verdict: a program (or the geometric mean) and its ratio per panel. */
  record ForestRow(String label, Ratio[] ratios, boolean summary) {}

  /**
   * The verdict as a forest plot: one panel per thread count, a row per program, the ratio as a dot
   * with its 95% whisker on a log axis, a line at 1.0; green where the interval lies below 1 (the
   * first engine faster), red above, grey where it contains 1. The value is written beside.
   */
  static String svg(
      String id,
      String title,
      List<String> panels,
      List<ForestRow> rows,
      String left,
      String right) {
    double lo = 0.8, hi = 1.25;
    for (ForestRow r : rows) {
      for (Ratio x : r.ratios()) {
        if (x == null || !x.known()) continue;
        lo = Math.min(lo, Double.isFinite(x.low()) ? x.low() : x.value());
        hi = Math.max(hi, Double.isFinite(x.high()) ? x.high() : x.value());
      }
    }
    lo = Math.max(lo / 1.15, 1.0 / 64);
    hi = Math.min(hi * 1.15, 64);
    int nameW = 120, textW = 128, rowH = 22, top = 58, k = Math.max(1, panels.size());
    int panelW =
        Math.max(
            200,
            Math.min(
                420, (900 - nameW) / k - textW)); // 2 panels: 900 px, the side text fits beside
    int w = nameW + k * (panelW + textW), h = top + rows.size() * rowH + 40;
    StringBuilder sb =
        new StringBuilder(
            f(
                "<svg class=\"chart verdict\" id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
                    + " xmlns=\"http://www.w3.org/2000/svg\"><text x=\"0\" y=\"16\" class=\"title\">%s</text>",
                id, w, h, w, h, esc(title)));
    List<Double> ticks = Ticks.logRatio(lo, hi);
    double llo = Math.log(lo), lhi = Math.log(hi);
    for (int p = 0; p < k; p++) {
      int x0 = nameW + p * (panelW + textW);
      DoubleUnaryOperator px = v -> x0 + 8 + (panelW - 16) * (Math.log(v) - llo) / (lhi - llo);
      sb.append(
          f(
              "<text x=\"%.1f\" y=\"36\" class=\"panel\" text-anchor=\"middle\">%s</text>",
              x0 + panelW / 2.0, esc(panels.get(p))));
      sb.append(
          f(
              "<text x=\"%d\" y=\"%d\" class=\"axis faint\">← %s</text>",
              x0 + 8, top - 6, esc(left)));
      sb.append(
          f(
              "<text x=\"%d\" y=\"%d\" class=\"axis faint\" text-anchor=\"end\">%s →</text>",
              x0 + panelW - 8, top - 6, esc(right)));
      int yb = top + rows.size() * rowH;
      for (double t : ticks) { // grid lines; labels below, 1× first so that it is always labelled
        double x = px.applyAsDouble(t);
        sb.append(
            f(
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"%s/>",
                x,
                top,
                x,
                yb,
                t == 1 ? "#333" : "#e5e5e5",
                t == 1 ? " class=\"one\" stroke-width=\"1.5\"" : ""));
      }
      List<Double> byPriority = new ArrayList<>(ticks);
      byPriority.sort(Comparator.comparingDouble(t -> Math.abs(Math.log(t))));
      List<Double> labelled = new ArrayList<>();
      for (double t : byPriority) {
        double x = px.applyAsDouble(t);
        if (labelled.stream().allMatch(o -> Math.abs(px.applyAsDouble(o) - x) >= 44))
          labelled.add(t);
      }
      for (double t : labelled) {
        sb.append(
            f(
                "<text x=\"%.1f\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">%s</text>",
                px.applyAsDouble(t), yb + 15, esc(Ticks.format(t, Unit.TIMES))));
      }
      sb.append(
          f(
              "<text x=\"%d\" y=\"%d\" class=\"axis faint\">value [95%% CI]</text>",
              x0 + panelW + 4, top - 6));
      for (int i = 0; i < rows.size(); i++) {
        ForestRow r = rows.get(i);
        int y = top + i * rowH + rowH / 2;
        if (r.summary()) {
          sb.append(
              f(
                  "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>",
                  x0, y - rowH / 2, x0 + panelW + textW - 8, y - rowH / 2));
        }
        Ratio x = p < r.ratios().length ? r.ratios()[p] : null;
        if (x == null || !x.known()) continue;
        String c = !x.clear() ? "#777" : x.high() < 1 ? "#1a7f37" : "#cf222e";
        if (Double.isFinite(x.low())) {
          sb.append(
              f(
                  "<line class=\"whisker\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>",
                  px.applyAsDouble(Math.max(lo, x.low())),
                  y,
                  px.applyAsDouble(Math.min(hi, x.high())),
                  y,
                  c));
        }
        double cx = px.applyAsDouble(Math.max(lo, Math.min(hi, x.value())));
        if (r.summary()) {
          sb.append(
              f(
                  "<polygon class=\"point\" points=\"%.1f,%d %.1f,%d %.1f,%d %.1f,%d\" fill=\"%s\"/>",
                  cx - 6, y, cx, y - 6, cx + 6, y, cx, y + 6, c));
        } else {
          sb.append(
              f("<circle class=\"point\" cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"%s\"/>", cx, y, c));
        }
        String text = interval(x);
        sb.append(
            f(
                "<text x=\"%d\" y=\"%d\" class=\"value%s\" fill=\"%s\">%s</text>",
                x0 + panelW + 4, y + 4, r.summary() ? " strong" : "", c, esc(text)));
      }
    }
    for (int i = 0; i < rows.size(); i++) {
      ForestRow r = rows.get(i);
      sb.append(
          f(
              "<text x=\"0\" y=\"%d\" class=\"name%s\">%s</text>",
              top + i * rowH + rowH / 2 + 4, r.summary() ? " strong" : "", esc(r.label())));
    }
    return sb.append("</svg>").toString();
  }
}

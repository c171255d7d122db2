package dev.tine.bench.report;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Inline SVG charts for the HTML report: lines over thread counts, grouped bars. */
final class Charts {
  private Charts() {}

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  static double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  /** A line chart: one polyline per series over the x values, with an optional horizontal line. */
  static String lineChart(String id, String title, String yLabel, List<Integer> xs, Map<String, double[]> series,
      double hline, String hlabel) {
    int w = 360, h = 220, l = 48, r = 12, t = 28, b = 36;
    double ymax = 0;
    for (double[] ys : series.values()) for (double y : ys) if (Double.isFinite(y)) ymax = Math.max(ymax, y);
    if (Double.isFinite(hline)) ymax = Math.max(ymax, hline);
    ymax = ymax <= 0 ? 1 : ymax * 1.15;
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "<svg class=\"chart\" id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">",
        id, w, h, w, h));
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"16\" class=\"title\">%s</text>", l, esc(title)));
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", l, h - b, w - r, h - b));
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", l, t, l, h - b));
    sb.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\" class=\"axis\">%s</text>", t - 6, esc(yLabel)));
    for (int k = 0; k <= 4; k++) {
      double v = ymax * k / 4;
      double y = h - b - (h - b - t) * k / 4.0;
      sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" class=\"axis\" text-anchor=\"end\">%.3g</text>", l - 4, y + 4, v));
    }
    int nx = xs.size();
    double[] px = new double[nx];
    for (int i = 0; i < nx; i++) {
      px[i] = nx == 1 ? (l + w - r) / 2.0 : l + 10 + (w - r - l - 20) * i / (double) (nx - 1);
      sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">%d</text>", px[i], h - b + 16, xs.get(i)));
    }
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">threads</text>", (l + w) / 2, h - 4));
    if (Double.isFinite(hline)) {
      double y = h - b - (h - b - t) * hline / ymax;
      sb.append(String.format(Locale.ROOT, "<line class=\"ceiling\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>", l, y, w - r, y));
      sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" class=\"axis\" text-anchor=\"end\">%s</text>", w - r, y - 4, esc(hlabel)));
    }
    String[] colors = {"#1f6feb", "#d1242f", "#2da44e", "#8250df"};
    int ci = 0, ly = t + 4;
    for (Map.Entry<String, double[]> e : series.entrySet()) {
      String c = colors[ci++ % colors.length];
      StringBuilder pts = new StringBuilder();
      double[] ys = e.getValue();
      for (int i = 0; i < nx; i++) {
        if (!Double.isFinite(ys[i])) continue;
        double y = h - b - (h - b - t) * ys[i] / ymax;
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", px[i], y));
        sb.append(String.format(Locale.ROOT, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s %d threads: %.3g</title></circle>",
            px[i], y, c, esc(e.getKey()), xs.get(i), ys[i]));
      }
      sb.append(String.format(Locale.ROOT, "<polyline class=\"series\" points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>", pts.toString().trim(), c));
      sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" class=\"axis\">%s</text>",
          w - r - 90, ly, c, w - r - 76, ly + 9, esc(e.getKey())));
      ly += 14;
    }
    return sb.append("</svg>").toString();
  }

  /** Grouped bars: per thread count, one bar per series. */
  static String barChart(String id, String title, String yLabel, List<Integer> xs, Map<String, double[]> series) {
    int w = 360, h = 220, l = 48, r = 12, t = 28, b = 36;
    double ymax = 0;
    for (double[] ys : series.values()) for (double y : ys) if (Double.isFinite(y)) ymax = Math.max(ymax, y);
    ymax = ymax <= 0 ? 1 : ymax * 1.15;
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "<svg class=\"chart\" id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">",
        id, w, h, w, h));
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"16\" class=\"title\">%s</text>", l, esc(title)));
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", l, h - b, w - r, h - b));
    sb.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\" class=\"axis\">%s</text>", t - 6, esc(yLabel)));
    String[] colors = {"#1f6feb", "#d1242f", "#2da44e", "#8250df"};
    int groups = xs.size(), ns = series.size();
    double gw = (w - l - r) / (double) Math.max(1, groups), bw = gw * 0.8 / Math.max(1, ns);
    int si = 0;
    for (Map.Entry<String, double[]> e : series.entrySet()) {
      String c = colors[si % colors.length];
      for (int g = 0; g < groups; g++) {
        double v = e.getValue()[g];
        if (!Double.isFinite(v)) continue;
        double bh = (h - b - t) * v / ymax;
        double x = l + g * gw + gw * 0.1 + si * bw;
        sb.append(String.format(Locale.ROOT, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %d threads: %.3g</title></rect>",
            x, h - b - bh, bw, bh, c, esc(e.getKey()), xs.get(g), v));
      }
      sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" class=\"axis\">%s</text>",
          w - r - 90, t + 4 + 14 * si, c, w - r - 76, t + 13 + 14 * si, esc(e.getKey())));
      si++;
    }
    for (int g = 0; g < groups; g++) {
      sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">%d</text>", l + g * gw + gw / 2, h - b + 16, xs.get(g)));
    }
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">threads</text>", (l + w) / 2, h - 4));
    return sb.append("</svg>").toString();
  }
}

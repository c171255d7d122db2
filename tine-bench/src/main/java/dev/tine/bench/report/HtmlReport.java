package dev.tine.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * A self-contained HTML report of a bench run (inline SVG, no scripts, no network): per program,
 * speedup against threads with the two-thread ceiling (Lea's figure 4-2), task rate (4-3), steal
 * ratio (4-6), GC time (4-4), Tine against JDK bars, and the table of records beside the charts.
 */
public final class HtmlReport {
  private HtmlReport() {}

  /** The whole page from the bench's JSON records. */
  public static String html(List<Map<String, Object>> records, String title) {
    Map<String, List<Map<String, Object>>> byProgram = new LinkedHashMap<>();
    for (Map<String, Object> m : records) byProgram.computeIfAbsent((String) m.get("program"), k -> new ArrayList<>()).add(m);
    StringBuilder sb = new StringBuilder();
    sb.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>").append(Charts.esc(title)).append("</title><style>")
        .append("body{font-family:sans-serif;margin:24px;color:#222}h2{margin-top:32px}.row{display:flex;flex-wrap:wrap;gap:12px}")
        .append("table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}")
        .append(".title{font-size:13px;font-weight:bold}.axis{font-size:10px}")
        .append("</style></head><body><h1>").append(Charts.esc(title)).append("</h1>");
    double ceiling = records.isEmpty() ? Double.NaN : Charts.num(records.get(0).get("ceiling"));
    sb.append(String.format(Locale.ROOT, "<p>Two-thread ceiling measured in this run: <b>%.2f×</b>. Ratios are paired per round (median over rounds).</p>", ceiling));
    int id = 0;
    for (Map.Entry<String, List<Map<String, Object>>> e : byProgram.entrySet()) {
      List<Map<String, Object>> rs = e.getValue();
      TreeSet<Integer> threadSet = new TreeSet<>();
      for (Map<String, Object> m : rs) if (!"seq".equals(m.get("runtime"))) threadSet.add(((Number) m.get("threads")).intValue());
      List<Integer> xs = new ArrayList<>(threadSet);
      if (xs.isEmpty()) xs.add(1);
      Map<String, double[]> speed = new LinkedHashMap<>(), rate = new LinkedHashMap<>(), steal = new LinkedHashMap<>(),
          gc = new LinkedHashMap<>(), ms = new LinkedHashMap<>();
      for (Map<String, Object> m : rs) {
        String rt = (String) m.get("runtime");
        if ("seq".equals(rt)) continue;
        int i = xs.indexOf(((Number) m.get("threads")).intValue());
        for (Map<String, double[]> s : List.of(speed, rate, steal, gc, ms)) {
          s.computeIfAbsent(rt, k -> {
            double[] a = new double[xs.size()];
            java.util.Arrays.fill(a, Double.NaN);
            return a;
          });
        }
        speed.get(rt)[i] = Charts.num(m.get("speedup"));
        rate.get(rt)[i] = Charts.num(m.get("task_rate_per_s"));
        double tasks = Charts.num(m.get("tasks_executed")), steals = Charts.num(m.get("steals"));
        steal.get(rt)[i] = Double.isFinite(tasks) && tasks > 0 ? steals / tasks : Double.NaN;
        gc.get(rt)[i] = Charts.num(m.get("minor_gc_ms")) + Charts.num(m.get("full_gc_ms"));
        ms.get(rt)[i] = Charts.num(m.get("median_ms"));
      }
      sb.append("<h2>").append(Charts.esc(e.getKey())).append("</h2><p>").append(Charts.esc(String.valueOf(rs.get(0).get("parameters")))).append("</p><div class=\"row\">");
      sb.append(Charts.lineChart("speedup-" + id, "speedup vs threads", "× seq", xs, speed, ceiling, "2-thread ceiling"));
      sb.append(Charts.barChart("time-" + id, "median time: Tine vs JDK", "ms", xs, ms));
      if (rate.values().stream().anyMatch(a -> java.util.Arrays.stream(a).anyMatch(Double::isFinite))) {
        sb.append(Charts.lineChart("rate-" + id, "task rate", "tasks/s", xs, rate, Double.NaN, ""));
      }
      sb.append(Charts.lineChart("steal-" + id, "steal ratio (steals / tasks, Tine)", "ratio", xs,
          Map.of("tine", steal.getOrDefault("tine", new double[xs.size()])), Double.NaN, ""));
      sb.append(Charts.barChart("gc-" + id, "GC time per run", "ms", xs, gc));
      sb.append("</div><table><tr><th>runtime</th><th>threads</th><th>median ms</th><th>min</th><th>max</th><th>× seq</th><th>speedup</th><th>vs jdk</th><th>steals</th><th>minor GC</th><th>verified</th></tr>");
      for (Map<String, Object> m : rs) {
        sb.append(String.format(Locale.ROOT, "<tr><td>%s</td><td>%s</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.2f</td><td>%.2f</td><td>%s</td><td>%s</td><td>%.1f</td><td>%s</td></tr>",
            Charts.esc(String.valueOf(m.get("runtime"))), m.get("threads"), Charts.num(m.get("median_ms")), Charts.num(m.get("min_ms")), Charts.num(m.get("max_ms")),
            Charts.num(m.get("x_seq")), Charts.num(m.get("speedup")), m.get("vs_jdk") == null ? "" : String.format(Locale.ROOT, "%.2f", Charts.num(m.get("vs_jdk"))),
            m.get("steals") == null ? "" : m.get("steals"), Charts.num(m.get("minor_gc_count")), m.get("verified")));
      }
      sb.append("</table>");
      id++;
    }
    return sb.append("</body></html>").toString();
  }
}

package dev.tine.bench.report;

import static dev.tine.bench.report.Charts.esc;
import static dev.tine.bench.report.Charts.f;
import static dev.tine.bench.report.Charts.num;

import dev.tine.bench.report.Charts.Series;
import dev.tine.bench.report.Ticks.Unit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Report sections for the Lea's paper §4.2/§4.3 experiments, chosen by the records' "experiment"
 * field.
 */
public final class ExperimentReport {
  private ExperimentReport() {}

  /** The section for these records, or null if they are not from a known experiment. */
  public static String section(List<Map<String, Object>> records) {
    if (records.isEmpty()) return null;
    Object kind = records.get(0).get("experiment");
    if ("gc".equals(kind)) return gc(records);
    if ("data-width".equals(kind)) return dataWidth(records);
    return null;
  }

  /** A page holding one experiment's section: what 'tine experiment ... --report FILE' writes. */
  public static String page(String title, List<Map<String, Object>> records) {
    StringBuilder sb =
        new StringBuilder("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
            .append(esc(title))
            .append("</title><style>")
            .append(HtmlReport.STYLE)
            .append("</style></head><body><h1>")
            .append(esc(title))
            .append("</h1>");
    var machine =
        records.isEmpty()
            ? null
            : dev.tine.bench.run.Machine.fromMap(records.get(0).get("machine"));
    if (machine != null)
      sb.append("<p class=\"sub\">").append(esc(machine.toString())).append("</p>");
    String s = section(records);
    return sb.append(s == null ? "" : s).append("</body></html>").toString();
  }

  private static double[] nan(int n) {
    double[] a = new double[n];
    Arrays.fill(a, Double.NaN);
    return a;
  }

  static String gcSetting(Map<String, Object> m) {
    String c =
        switch (String.valueOf(m.get("collector"))) {
          case "serial" -> "Serial";
          case "parallel" -> "Parallel";
          case "g1" -> "G1";
          case "zgc" -> "ZGC";
          default -> String.valueOf(m.get("collector"));
        };
    String y = String.valueOf(m.get("young"));
    return c + " " + (y.equals("auto") ? "auto" : y.equals("2+2p") ? "2+2p" : y + "M");
  }

  /** One colour per collector; the young size by the line's dashes. */
  /**
   * A colour per (collector, young size): a hue per collector and, within it, dark to light for 4
   * MB, 64 MB and (2+2p) MB, so that ten lines are told apart by colour, the dash repeating the
   * young size.
   */
  static String collectorColor(String setting) {
    int young = setting.endsWith(" 64M") ? 1 : setting.endsWith(" 2+2p") ? 2 : 0;
    String[] shades =
        setting.startsWith("Serial")
            ? new String[] {"#08519c", "#3182bd", "#6baed6"}
            : setting.startsWith("Parallel")
                ? new String[] {"#a63603", "#e6550d", "#fd8d3c"}
                : setting.startsWith("G1")
                    ? new String[] {"#006d2c", "#31a354", "#74c476"}
                    : new String[] {"#54278f", "#756bb1", "#9e9ac8"};
    return shades[young];
  }

  static String youngDash(String setting) {
    return setting.endsWith(" 64M") ? "7 3" : setting.endsWith(" 2+2p") ? "2 3" : null;
  }

  private static String gc(List<Map<String, Object>> rs) {
    Set<String> settings = new LinkedHashSet<>();
    TreeSet<Integer> threads = new TreeSet<>();
    for (Map<String, Object> m : rs) {
      settings.add(gcSetting(m));
      threads.add((int) num(m.get("threads")));
    }
    List<String> ss = new ArrayList<>(settings);
    List<Integer> ts = new ArrayList<>(threads);
    StringBuilder sb =
        new StringBuilder(
            "<h2 id=\"experiment-gc\">Garbage collection and speedup (Lea's paper §4.2, Lea fig. 4-4)</h2>"
                + "<p class=\"sub\">Each collector with the young generation fixed at 4 MB, 64 MB and (2+2p) MB (-Xmn; ZGC sizes its"
                + " own), each setting and thread count in a fresh JVM. Lea, 1999: Fib at 4 threads took 5.1 s with generational"
                + " copying and 9.1 s with mark-sweep; 4 MB semi-spaces cut the speedup as threads grew.</p>");
    int id = 0;
    for (String prog : List.of("fib-every", "fib")) {
      String params =
          rs.stream()
              .filter(m -> prog.equals(m.get("program")))
              .map(m -> String.valueOf(m.get("parameters")))
              .findFirst()
              .orElse(null);
      if (params == null) continue;
      sb.append(
          f(
              "<h3>%s (%s)</h3><div class=\"row\">",
              prog.equals("fib") ? "Lea's fib" : "fork-every fib", esc(params)));
      for (String rt : List.of("tine", "jdk")) {
        List<Series> times = new ArrayList<>();
        for (int p : ts) {
          double[] y = nan(ss.size());
          for (Map<String, Object> m : rs) {
            if (prog.equals(m.get("program"))
                && rt.equals(m.get("runtime"))
                && (int) num(m.get("threads")) == p) {
              y[ss.indexOf(gcSetting(m))] = num(m.get("median_ms"));
            }
          }
          times.add(new Series(p + (p == 1 ? " thread" : " threads"), y));
        }
        sb.append(
            Charts.barChart(
                "gc-time-" + id,
                (rt.equals("tine") ? "Tine" : "JDK") + ": median time per run",
                ss,
                "collector, young generation",
                times,
                Unit.MILLIS));
        if (ts.size() > 1) {
          List<Series> speed = new ArrayList<>();
          for (String s : ss) {
            double[] y = nan(ts.size()), lo = nan(ts.size()), hi = nan(ts.size());
            for (Map<String, Object> m : rs) {
              if (prog.equals(m.get("program"))
                  && rt.equals(m.get("runtime"))
                  && gcSetting(m).equals(s)) {
                int i = ts.indexOf((int) num(m.get("threads")));
                y[i] = num(m.get("speedup"));
                lo[i] = num(m.get("speedup_ci_low"));
                hi[i] = num(m.get("speedup_ci_high"));
              }
            }
            speed.add(new Series(s, y, lo, hi, collectorColor(s), youngDash(s)));
          }
          sb.append(
              Charts.lineChart(
                  "gc-speedup-" + id,
                  (rt.equals("tine") ? "Tine" : "JDK") + ": speedup over 1 thread",
                  ts,
                  speed,
                  null,
                  null,
                  Unit.TIMES));
        }
        id++;
      }
      sb.append("</div>");
    }
    sb.append(
        table(
            rs,
            List.of(
                "collector",
                "young",
                "program",
                "runtime",
                "threads",
                "median_ms",
                "speedup",
                "minor_gc_count",
                "minor_gc_ms",
                "full_gc_count",
                "verified")));
    return sb.toString();
  }

  private static String dataWidth(List<Map<String, Object>> rs) {
    Map<String, List<Map<String, Object>>> byWidth = new LinkedHashMap<>();
    TreeSet<Integer> threads = new TreeSet<>();
    for (Map<String, Object> m : rs) {
      byWidth.computeIfAbsent(String.valueOf(m.get("width")), k -> new ArrayList<>()).add(m);
      if (!"seq".equals(m.get("runtime"))) threads.add((int) num(m.get("threads")));
    }
    List<Integer> ts = new ArrayList<>(threads);
    List<String> widths = new ArrayList<>(byWidth.keySet());
    String params =
        String.valueOf(rs.get(0).get("parameters")).replaceAll(" \\w+ values", " values");
    StringBuilder sb =
        new StringBuilder(
            f(
                "<h2 id=\"experiment-data-width\">Data width (Lea's paper §4.3, Lea fig. 4-5)</h2>"
                    + "<p class=\"sub\">cilksort of %s in byte, short, int and long arrays. Lea, 1999 (100M values, one thread): bytes"
                    + " 122.5 s, longs 242.5 s; wider data also scaled worse.</p><div class=\"row\">",
                esc(params)));
    List<Series> speed = new ArrayList<>();
    for (String w : widths) {
      double[] y = nan(ts.size()), lo = nan(ts.size()), hi = nan(ts.size());
      Map<String, Object> one = null;
      for (Map<String, Object> m : byWidth.get(w))
        if ("tine".equals(m.get("runtime")) && num(m.get("threads")) == 1) one = m;
      for (Map<String, Object> m : byWidth.get(w)) {
        if (!"tine".equals(m.get("runtime")) || one == null) continue;
        int i = ts.indexOf((int) num(m.get("threads")));
        dev.tine.bench.stats.Ratio x =
            dev.tine.bench.stats.Bootstrap.pairedRatio(Compare.times(one), Compare.times(m));
        y[i] = x.value();
        lo[i] = x.low();
        hi[i] = x.high();
      }
      speed.add(new Series(w, y, lo, hi));
    }
    sb.append(
        Charts.lineChart(
            "dw-speedup",
            "Tine: speedup over 1 thread, per width",
            ts,
            speed,
            null,
            null,
            Unit.TIMES));
    List<Series> times = new ArrayList<>();
    List<String> rts = new ArrayList<>(List.of("seq"));
    for (int t : ts) rts.add("tine p=" + t);
    for (String rt : rts) {
      double[] y = nan(widths.size());
      for (int i = 0; i < widths.size(); i++) {
        for (Map<String, Object> m : byWidth.get(widths.get(i))) {
          String label =
              "seq".equals(m.get("runtime")) ? "seq" : m.get("runtime") + " p=" + m.get("threads");
          if (label.equals(rt)) y[i] = num(m.get("median_ms"));
        }
      }
      times.add(new Series(rt, y));
    }
    sb.append(
        Charts.barChart(
            "dw-time",
            "median time per run, per width",
            widths,
            "element type",
            times,
            Unit.MILLIS));
    sb.append("</div>");
    sb.append(
        table(
            rs,
            List.of(
                "width",
                "bytes",
                "runtime",
                "threads",
                "median_ms",
                "x_seq",
                "x_seq_ci_low",
                "x_seq_ci_high",
                "verified")));
    return sb.toString();
  }

  private static String table(List<Map<String, Object>> rs, List<String> cols) {
    StringBuilder sb = new StringBuilder("<table><tr>");
    for (String c : cols) sb.append("<th>").append(esc(c.replace('_', ' '))).append("</th>");
    sb.append("</tr>");
    for (Map<String, Object> m : rs) {
      sb.append("<tr>");
      for (String c : cols) {
        Object v = m.get(c);
        sb.append("<td>")
            .append(esc(v instanceof Double d ? Ticks.trim(d) : String.valueOf(v == null ? "" : v)))
            .append("</td>");
      }
      sb.append("</tr>");
    }
    return sb.append("</table>").toString();
  }
}

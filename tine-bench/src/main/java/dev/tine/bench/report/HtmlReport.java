package dev.tine.bench.report;

import static dev.tine.bench.report.Charts.esc;
import static dev.tine.bench.report.Charts.f;
import static dev.tine.bench.report.Charts.num;

import dev.tine.bench.report.Charts.Series;
import dev.tine.bench.report.ForestPlot.ForestRow;
import dev.tine.bench.report.Ticks.Unit;
import dev.tine.bench.run.Machine;
import dev.tine.bench.run.RunConditions;
import dev.tine.bench.stats.Bootstrap;
import dev.tine.bench.stats.Ratio;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A self-contained HTML report of a bench run (inline SVG, no scripts, no network), summary first.
 * The first screen gives the verdict — Tine's time over the JDK ForkJoinPool's per program and
 * thread count, with 95% whiskers, a line at 1.0 and the geometric mean — beside the box's measured
 * ceiling and the machine. Per-program sections follow with Lea's figures: speedup against threads
 * with the n-thread ceiling (fig. 4-2), task rate (4-3), GC time (4-4), steal ratio (4-6), Tine
 * against JDK times, and the table of records. Built from the JSON records, so a saved run renders
 * the same.
 */
public final class HtmlReport {
  private HtmlReport() {}

  static final String STYLE =
      "body{font-family:system-ui,sans-serif;margin:20px 28px;color:#222;max-width:1500px}"
          + "h1{font-size:22px;margin:0 0 4px}h2{margin-top:34px;font-size:18px}.sub{color:#555;margin:0 0 12px}"
          + ".first{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}.side{flex:1;min-width:300px;max-width:420px;"
          + "font-size:13px}.side h3{font-size:14px;margin:10px 0 4px}.row{display:flex;flex-wrap:wrap;gap:12px}"
          + "table{border-collapse:collapse;font-size:12px;margin-top:8px}td,th{border:1px solid #ccc;padding:2px 6px;"
          + "text-align:right}th{background:#f4f4f4}td.l,th.l{text-align:left}.title{font-size:13px;font-weight:bold}"
          + ".axis{font-size:10.5px;fill:#333}.faint{fill:#777}.panel{font-size:13px;font-weight:bold}.name{font-size:12.5px}"
          + ".value{font-size:11.5px}.strong{font-weight:bold}.faster{color:#1a7f37}.slower{color:#cf222e}.unclear{color:#666}"
          + "ul{margin:2px 0 6px 18px;padding:0}li{margin:1px 0}td.nw{white-space:nowrap}"
          + "svg.chart{max-width:100%;height:auto}.scroll{max-width:100%;min-width:0;overflow-x:auto}"
          + ".scroll svg.verdict{max-width:none}"
          + ".busy{border:2px solid #bf8700;background:#fff8c5;padding:8px 12px;margin:8px 0 14px;font-size:14px;"
          + "max-width:1100px}";

  /** The page from the bench's JSON records alone (no machine details). */
  public static String html(List<Map<String, Object>> records, String title) {
    return html(records, title, null, List.of());
  }

  /**
   * The page: {@code machine} may be null; {@code extraSections} are appended HTML fragments (the
   * experiments' sections, e.g. from 'tine experiment gc --json').
   */
  public static String html(
      List<Map<String, Object>> records,
      String title,
      Machine machine,
      List<String> extraSections) {
    if (machine == null && !records.isEmpty())
      machine = Machine.fromMap(records.get(0).get("machine"));
    Map<String, List<Map<String, Object>>> byProgram = new LinkedHashMap<>();
    for (Map<String, Object> m : records)
      byProgram.computeIfAbsent((String) m.get("program"), k -> new ArrayList<>()).add(m);
    StringBuilder sb = new StringBuilder();
    sb.append(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>")
        .append(esc(title))
        .append("</title><style>")
        .append(STYLE)
        .append("</style></head><body><h1>")
        .append(esc(title))
        .append("</h1>");
    sb.append("<p class=\"sub\">").append(esc(subtitle(records, machine))).append("</p>");
    sb.append(busyWarning(Steadiness.of(records)));
    if (!records.isEmpty()) sb.append(verdict(records, byProgram, machine));
    int id = 0;
    for (Map.Entry<String, List<Map<String, Object>>> e : byProgram.entrySet()) {
      sb.append(programSection(e.getKey(), e.getValue(), id++));
    }
    for (String s : extraSections) sb.append(s);
    return sb.append("</body></html>").toString();
  }

  /** The busy-machine box at the top of the page, or "". */
  static String busyWarning(Steadiness s) {
    if (!s.busy()) return "";
    StringBuilder b =
        new StringBuilder(
            "<div class=\"busy\" id=\"busy\"><b>Busy machine: these figures were measured on a disturbed"
                + " machine.</b><ul>");
    for (String r : s.reasons()) b.append("<li>").append(esc(r)).append("</li>");
    return b.append("</ul>").append(esc(s.holds())).append("</div>").toString();
  }

  /** The machine and the ceiling, on the line under the title. */
  static String subtitle(List<Map<String, Object>> records, Machine machine) {
    StringBuilder s = new StringBuilder(machine == null ? "" : machine + ". ");
    Map<Integer, Double> cs = ceilingsByThreads(records);
    if (!cs.isEmpty()) {
      s.append(
          "The box's ceiling, measured in this run (the same sequential work on n threads at once vs one): ");
      List<String> parts = new ArrayList<>();
      cs.forEach((t, c) -> parts.add(f("%.2f× at %d threads", c, t)));
      s.append(String.join(", ", parts))
          .append(
              " — a guide, not a cap: it is measured between rounds, so a program can exceed it when the"
                  + " load changed.");
    }
    return s.toString();
  }

  static double[] times(Map<String, Object> m) {
    return Compare.times(m);
  }

  static Ratio ratio(Map<String, Object> m, String name) {
    double v = num(m.get(name));
    return Double.isFinite(v)
        ? new Ratio(v, num(m.get(name + "_ci_low")), num(m.get(name + "_ci_high")))
        : Ratio.NONE;
  }

  static Map<String, Object> find(List<Map<String, Object>> rs, String runtime, int threads) {
    for (Map<String, Object> m : rs) {
      if (runtime.equals(m.get("runtime")) && (int) num(m.get("threads")) == threads) return m;
    }
    return null;
  }

  /**
   * The first screen: the forest plot of Tine / JDK, and beside it the verdict in words, the
   * ceiling, the machine.
   */
  private static String verdict(
      List<Map<String, Object>> records,
      Map<String, List<Map<String, Object>>> byProgram,
      Machine machine) {
    TreeSet<Integer> threads = new TreeSet<>();
    for (Map<String, Object> m : records)
      if ("tine".equals(m.get("runtime")) && m.get("vs_jdk") != null)
        threads.add((int) num(m.get("threads")));
    StringBuilder side = new StringBuilder("<div class=\"side\">");
    StringBuilder out = new StringBuilder("<div class=\"first\" id=\"verdict\">");
    if (!threads.isEmpty()) {
      List<Integer> ts = new ArrayList<>(threads);
      List<ForestRow> rows = new ArrayList<>();
      List<List<double[]>> as = new ArrayList<>(), bs = new ArrayList<>();
      for (int i = 0; i < ts.size(); i++) {
        as.add(new ArrayList<>());
        bs.add(new ArrayList<>());
      }
      for (Map.Entry<String, List<Map<String, Object>>> e : byProgram.entrySet()) {
        Ratio[] rs = new Ratio[ts.size()];
        boolean any = false;
        // a Tine-only rewrite divides by another program's JDK version: shown, labelled, but
        // left out of the geometric mean and the verdict's words
        boolean rewrite = e.getValue().get(0).get("rewrite_of") != null;
        for (int i = 0; i < ts.size(); i++) {
          Map<String, Object> t = find(e.getValue(), "tine", ts.get(i)),
              j = find(e.getValue(), "jdk", ts.get(i));
          rs[i] = t == null ? Ratio.NONE : ratio(t, "vs_jdk");
          if (rs[i].known() && j != null) {
            any = true;
            if (!rewrite) {
              as.get(i).add(times(t));
              bs.get(i).add(times(j));
            }
          }
        }
        if (any)
          rows.add(
              new ForestRow(
                  rewrite
                      ? e.getKey()
                          + " (rewrite, JDK: "
                          + e.getValue().get(0).get("rewrite_of")
                          + ")"
                      : e.getKey(),
                  rs,
                  false));
      }
      Ratio[] geo = new Ratio[ts.size()];
      for (int i = 0; i < ts.size(); i++) geo[i] = Bootstrap.geometricMean(as.get(i), bs.get(i));
      rows.add(new ForestRow("geometric mean, like for like", geo, true));
      List<String> panels = ts.stream().map(t -> t + (t == 1 ? " thread" : " threads")).toList();
      out.append(
          "<div class=\"scroll\">"); // wide: scrolls on a phone rather than shrink to unreadable
      out.append(
          ForestPlot.svg(
              "verdict-chart",
              "Verdict: Tine's time / the JDK ForkJoinPool's time, same program and threads",
              panels,
              rows,
              "Tine faster",
              "Tine slower"));
      out.append("</div>");
      side.append("<h3>In words (95% intervals)</h3>");
      side.append(
          "<p>Over the programs written the same way on both runtimes; a row marked rewrite"
              + " (Tine's own form) divides by another program's JDK version and is not counted.</p>");
      for (int i = 0; i < ts.size(); i++) {
        List<String> faster = new ArrayList<>(),
            slower = new ArrayList<>(),
            unclear = new ArrayList<>();
        for (ForestRow r : rows) {
          if (r.summary() || r.label().contains(" (rewrite, JDK: ")) continue;
          Ratio x = r.ratios()[i];
          if (!x.known()) continue;
          if (!x.clear()) unclear.add(r.label());
          else if (x.high() < 1) faster.add(r.label() + f(" %.2f×", x.value()));
          else slower.add(r.label() + f(" %.2f×", x.value()));
        }
        side.append(f("<b>%s</b>: geometric mean %s<ul>", esc(panels.get(i)), esc(words(geo[i]))));
        // an empty list is not news: grey, not the colour of a verdict
        side.append(
            f(
                "<li class=\"%s\">Tine faster on %s</li>",
                faster.isEmpty() ? "unclear" : "faster", esc(list(faster))));
        side.append(
            f(
                "<li class=\"%s\">Tine slower on %s</li>",
                slower.isEmpty() ? "unclear" : "slower", esc(list(slower))));
        side.append(
            f("<li class=\"unclear\">no clear difference on %s</li></ul>", esc(list(unclear))));
      }
    }
    side.append(builtinTable(byProgram));
    if (machine != null) {
      side.append("<h3>Machine</h3><table>");
      for (Map.Entry<String, Object> e : machine.toMap().entrySet()) {
        side.append(
            f(
                "<tr><th class=\"l\">%s</th><td class=\"l\">%s</td></tr>",
                esc(e.getKey().replace('_', ' ')), esc(String.valueOf(e.getValue()))));
      }
      RunConditions run =
          records.isEmpty() ? null : RunConditions.fromMap(records.get(0).get("run"));
      if (run != null) {
        for (String[] kv :
            new String[][] {
              {"started", run.started().toString().replace('T', ' ')},
              {"command", run.commandLine()},
              {"load average", load(run)}
            }) {
          side.append(
              f("<tr><th class=\"l\">%s</th><td class=\"l\">%s</td></tr>", esc(kv[0]), esc(kv[1])));
        }
      }
      side.append("</table>");
    }
    side.append(
        "<p>Ratios are paired per round (each time over the other's in the same round), median over rounds;"
            + " intervals: bootstrap over the rounds.</p></div>");
    return out.append(side).append("</div>").toString();
  }

  /** "0.4 before, 2.1 after (1 minute)", or "not known". */
  static String load(RunConditions run) {
    if (run.loadBefore() < 0) return "not known";
    return f("%.1f before, %.1f after the run (1-minute)", run.loadBefore(), run.loadAfter());
  }

  static String words(Ratio x) {
    if (!x.known()) return "-";
    String v = ForestPlot.interval(x);
    return v
        + (!x.clear() ? ", no clear difference" : x.high() < 1 ? ", Tine faster" : ", Tine slower");
  }

  static String list(List<String> xs) {
    return xs.isEmpty() ? "none" : String.join(", ", xs);
  }

  /**
   * "IntStream.range(0, n).parallel() over rows" → "parallel IntStream"; Arrays.parallelSort as is.
   */
  static String shortForm(String form) {
    return form.contains("IntStream") ? "parallel IntStream" : form;
  }

  /** Tine against the JDK's ready-made parallel forms, where a program has one. */
  private static String builtinTable(Map<String, List<Map<String, Object>>> byProgram) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, List<Map<String, Object>>> e : byProgram.entrySet()) {
      for (Map<String, Object> m : e.getValue()) {
        if (!"tine".equals(m.get("runtime")) || m.get("vs_builtin") == null) continue;
        Map<String, Object> b = find(e.getValue(), "jdk-builtin", (int) num(m.get("threads")));
        Ratio x = ratio(m, "vs_builtin");
        String cls = !x.clear() ? "unclear" : x.high() < 1 ? "faster" : "slower";
        sb.append(
            f(
                "<tr><td class=\"l\">%s</td><td class=\"l\">%s</td><td>%s</td><td class=\"nw %s\">%s</td></tr>",
                esc(e.getKey()),
                esc(b == null ? "" : shortForm(String.valueOf(b.get("builtin_form")))),
                m.get("threads"),
                cls,
                esc(ForestPlot.interval(x))));
      }
    }
    if (sb.length() == 0) return "";
    return "<h3>Tine / the JDK's ready-made form</h3><table><tr><th class=\"l\">program</th><th class=\"l\">JDK form</th>"
        + "<th>p</th><th>Tine / it</th></tr>"
        + sb
        + "</table>";
  }

  /**
   * The measured n-thread ceilings, from the records' thread_ceiling fields (else the two-thread
   * one).
   */
  static Map<Integer, Double> ceilingsByThreads(List<Map<String, Object>> records) {
    Map<Integer, Double> cs = new java.util.TreeMap<>();
    for (Map<String, Object> m : records) {
      double c = num(m.get("thread_ceiling"));
      int t = (int) num(m.get("threads"));
      if (t > 1 && Double.isFinite(c)) cs.put(t, c);
    }
    if (cs.isEmpty() && !records.isEmpty() && Double.isFinite(num(records.get(0).get("ceiling")))) {
      cs.put(2, num(records.get(0).get("ceiling")));
    }
    return cs;
  }

  private static double[] nan(int n) {
    double[] a = new double[n];
    Arrays.fill(a, Double.NaN);
    return a;
  }

  /** A program's section: Lea's figures and its table. */
  private static String programSection(String program, List<Map<String, Object>> rs, int id) {
    TreeSet<Integer> threadSet = new TreeSet<>();
    for (Map<String, Object> m : rs)
      if (!"seq".equals(m.get("runtime"))) threadSet.add((int) num(m.get("threads")));
    List<Integer> xs = new ArrayList<>(threadSet);
    if (xs.isEmpty()) xs.add(1);
    Map<String, double[][]> speed = new LinkedHashMap<>();
    Map<String, double[]> rate = new LinkedHashMap<>(),
        steal = new LinkedHashMap<>(),
        gc = new LinkedHashMap<>(),
        ms = new LinkedHashMap<>();
    double[] ceiling = nan(xs.size());
    for (Map<String, Object> m : rs) {
      String rt = (String) m.get("runtime");
      if ("seq".equals(rt)) continue;
      int i = xs.indexOf((int) num(m.get("threads")));
      double[][] sp =
          speed.computeIfAbsent(
              rt, k -> new double[][] {nan(xs.size()), nan(xs.size()), nan(xs.size())});
      sp[0][i] = num(m.get("speedup"));
      sp[1][i] = num(m.get("speedup_ci_low"));
      sp[2][i] = num(m.get("speedup_ci_high"));
      rate.computeIfAbsent(rt, k -> nan(xs.size()))[i] = num(m.get("task_rate_per_s"));
      double tasks = num(m.get("tasks_executed")), steals = num(m.get("steals"));
      if (Double.isFinite(tasks) && tasks > 0)
        steal.computeIfAbsent(rt, k -> nan(xs.size()))[i] = steals / tasks;
      gc.computeIfAbsent(rt, k -> nan(xs.size()))[i] =
          num(m.get("minor_gc_ms")) + num(m.get("full_gc_ms"));
      ms.computeIfAbsent(rt, k -> nan(xs.size()))[i] = num(m.get("median_ms"));
      ceiling[i] = xs.get(i) == 1 ? 1.0 : num(m.get("thread_ceiling"));
    }
    if (xs.contains(2) && !Double.isFinite(ceiling[xs.indexOf(2)]))
      ceiling[xs.indexOf(2)] = num(rs.get(0).get("ceiling"));
    StringBuilder sb = new StringBuilder();
    sb.append("<h2 id=\"program-")
        .append(esc(program))
        .append("\">")
        .append(esc(program))
        .append("</h2><p class=\"sub\">")
        .append(esc(String.valueOf(rs.get(0).get("parameters"))))
        .append("</p><div class=\"row\">");
    List<Series> sp = new ArrayList<>();
    speed.forEach((k, v) -> sp.add(new Series(k, v[0], v[1], v[2])));
    sb.append(
        Charts.lineChart(
            "speedup-" + id,
            "speedup over sequential (Lea fig. 4-2)",
            xs,
            sp,
            ceiling,
            "the box's n-thread ceiling",
            Unit.TIMES));
    sb.append(Charts.barChart("time-" + id, "median time per run", xs, series(ms), Unit.MILLIS));
    if (rate.values().stream().anyMatch(a -> Arrays.stream(a).anyMatch(Double::isFinite))) {
      sb.append(
          Charts.lineChart(
              "rate-" + id,
              "task rate (Lea fig. 4-3)",
              xs,
              series(rate),
              null,
              null,
              Unit.PER_SECOND));
    }
    if (!steal.isEmpty()) {
      sb.append(
          Charts.lineChart(
              "steal-" + id,
              "steals / tasks executed (Lea fig. 4-6)",
              xs,
              series(steal),
              null,
              null,
              Unit.PERCENT));
    }
    sb.append(
        Charts.barChart(
            "gc-" + id, "GC pause time per run (Lea fig. 4-4)", xs, series(gc), Unit.MILLIS));
    sb.append("</div>").append(table(rs));
    return sb.toString();
  }

  private static List<Series> series(Map<String, double[]> m) {
    List<Series> s = new ArrayList<>();
    m.forEach((k, v) -> s.add(new Series(k, v)));
    return s;
  }

  private static String cell(Map<String, Object> m, String name) {
    Ratio x = ratio(m, name);
    if (!x.known()) return "";
    return ForestPlot.interval(x).replace("×", "")
        + (x.clear() || !Double.isFinite(x.low()) ? "" : " ~");
  }

  private static String table(List<Map<String, Object>> rs) {
    StringBuilder sb =
        new StringBuilder(
            "<table><tr><th class=\"l\">runtime</th><th>threads</th><th>median ms</th>"
                + "<th>min</th><th>max</th><th>× seq [95% CI]</th><th>speedup</th><th>vs jdk [95% CI]</th><th>steals</th>"
                + "<th>minor GC</th><th>verified</th></tr>");
    for (Map<String, Object> m : rs) {
      sb.append(
          f(
              "<tr><td class=\"l\">%s</td><td>%s</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%s</td><td>%.2f</td>"
                  + "<td>%s</td><td>%s</td><td>%.1f</td><td>%s</td></tr>",
              esc(String.valueOf(m.get("runtime"))),
              m.get("threads"),
              num(m.get("median_ms")),
              num(m.get("min_ms")),
              num(m.get("max_ms")),
              "seq".equals(m.get("runtime")) ? "1.00" : cell(m, "x_seq"),
              num(m.get("speedup")),
              cell(m, "vs_jdk"),
              m.get("steals") == null ? "" : m.get("steals"),
              num(m.get("minor_gc_count")),
              m.get("verified")));
    }
    return sb.append("</table>").toString();
  }
}

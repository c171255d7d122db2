package dev.tine.bench.experiments;

import dev.tine.bench.stats.Bootstrap;
import dev.tine.bench.stats.Ratio;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The gc experiment's tables, in the layout of Lea's paper's figure 4-4, from its JSON records. */
public final class GcTables {
  private GcTables() {}

  static double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  static String setting(Map<String, Object> m) {
    String c =
        switch (String.valueOf(m.get("collector"))) {
          case "serial" -> "Serial";
          case "parallel" -> "Parallel";
          case "g1" -> "G1";
          case "zgc" -> "ZGC";
          default -> String.valueOf(m.get("collector"));
        };
    String y = String.valueOf(m.get("young"));
    return String.format(
        Locale.ROOT,
        "%-9s %-9s",
        c,
        y.equals("auto") ? "auto" : y.equals("2+2p") ? "(2+2p)MB" : y + " MB");
  }

  static double[] times(Map<String, Object> m) {
    return ((List<?>) m.get("times_ms"))
        .stream().mapToDouble(x -> x instanceof Number n ? n.doubleValue() : Double.NaN).toArray();
  }

  static Map<String, Object> find(
      List<Map<String, Object>> rs, String setting, String program, String runtime, int p) {
    for (Map<String, Object> m : rs) {
      if (setting(m).equals(setting)
          && program.equals(m.get("program"))
          && runtime.equals(m.get("runtime"))
          && (int) num(m.get("threads")) == p) {
        return m;
      }
    }
    return null;
  }

  public static void print(List<Map<String, Object>> rs, PrintStream out) {
    Set<String> settings = new LinkedHashSet<>();
    TreeSet<Integer> threads = new TreeSet<>();
    Map<String, String> params = new LinkedHashMap<>();
    for (Map<String, Object> m : rs) {
      settings.add(setting(m));
      threads.add((int) num(m.get("threads")));
      params.put((String) m.get("program"), String.valueOf(m.get("parameters")));
    }
    for (String prog : List.of("fib-every", "fib")) {
      if (!params.containsKey(prog)) continue;
      for (String rt : List.of("tine", "jdk")) {
        out.printf(
            Locale.ROOT,
            "%nFigure 4-4 (Lea's paper §4.2): %s (%s) on %s — median ms per run, speedup over 1 thread"
                + " of the same setting, young GCs per run / their ms%n",
            prog.equals("fib") ? "Lea's fib" : "fork-every fib",
            params.get(prog),
            rt.equals("tine") ? "Tine" : "the JDK's ForkJoinPool");
        StringBuilder head =
            new StringBuilder(String.format(Locale.ROOT, "%-19s", "collector young"));
        for (int p : threads) head.append(String.format(Locale.ROOT, " | %-27s", "p=" + p));
        out.println(head);
        for (String s : settings) {
          StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-19s", s));
          for (int p : threads) {
            Map<String, Object> m = find(rs, s, prog, rt, p);
            if (m == null) {
              line.append(String.format(Locale.ROOT, " | %-27s", "-"));
              continue;
            }
            String cell =
                Boolean.TRUE.equals(m.get("verified"))
                    ? String.format(
                        Locale.ROOT,
                        "%8.1f %5.2fx %6.1f/%5.1f",
                        num(m.get("median_ms")),
                        num(m.get("speedup")),
                        num(m.get("minor_gc_count")),
                        num(m.get("minor_gc_ms")))
                    : "FAILED: " + m.get("failure");
            line.append(String.format(Locale.ROOT, " | %-27s", cell));
          }
          out.println(line);
        }
      }
    }
    printSummary(rs, settings, threads, out);
    long bad = rs.stream().filter(m -> !Boolean.TRUE.equals(m.get("verified"))).count();
    out.println(
        bad == 0 ? "every result verified (fib values)" : bad + " RESULTS WERE WRONG OR MISSING");
  }

  /** What the tables say against Lea's two findings, at the largest thread count. */
  static void printSummary(
      List<Map<String, Object>> rs,
      Set<String> settings,
      TreeSet<Integer> threads,
      PrintStream out) {
    int p = threads.last();
    out.printf(
        Locale.ROOT,
        "%nAt %d %s, time / the fastest setting's time for the same program and runtime"
            + " (95%% interval; separate JVMs, so unpaired):%n",
        p,
        p == 1 ? "thread" : "threads");
    for (String prog : List.of("fib-every", "fib")) {
      for (String rt : List.of("tine", "jdk")) {
        String best = null;
        double bestMs = Double.POSITIVE_INFINITY;
        for (String s : settings) {
          Map<String, Object> m = find(rs, s, prog, rt, p);
          if (m != null && num(m.get("median_ms")) < bestMs) {
            bestMs = num(m.get("median_ms"));
            best = s;
          }
        }
        if (best == null) continue;
        List<String> parts = new ArrayList<>();
        Map<String, Object> b = find(rs, best, prog, rt, p);
        for (String s : settings) {
          Map<String, Object> m = find(rs, s, prog, rt, p);
          if (m == null || s.equals(best)) continue;
          Ratio x = Bootstrap.unpairedRatio(times(m), times(b));
          parts.add(
              String.format(
                  Locale.ROOT,
                  "%s %.2f [%.2f, %.2f]",
                  s.trim().replaceAll(" +", " "),
                  x.value(),
                  x.low(),
                  x.high()));
        }
        out.printf(
            Locale.ROOT,
            "  %s on %s: fastest %s (%.1f ms); %s%n",
            prog,
            rt,
            best.trim().replaceAll(" +", " "),
            bestMs,
            String.join("; ", parts));
      }
    }
    out.println(
        "Lea (1999, 4 of 30 CPUs): Fib took 5.1 s with generational copying and 9.1 s with mark-sweep (1.78x);"
            + " small semi-spaces (4 MB) cut the speedup as threads grew, 64 MB and (2+2p) MB did not.");
  }
}

package dev.tine.bench.experiments;

import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.programs.WidthSort;
import dev.tine.bench.report.Records;
import dev.tine.bench.run.BenchResult;
import dev.tine.bench.run.BenchRunner;
import dev.tine.bench.run.Cell;
import dev.tine.bench.run.Engine;
import dev.tine.bench.stats.Ratio;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Lea's paper §4.3 (fig. 4-5): the same sort over byte, short, int and long data holding values
 * 0..255. Lea measured 122.5 s for bytes and 242.5 s for longs on one thread (100M values) and
 * lower speedups for wider data. Here cilksort ({@link WidthSort}) sequentially and on Tine at each
 * thread count, in the bench's interleaved rounds (so widths and thread counts are paired per
 * round), every result checked for order and for its multiset.
 */
public final class DataWidth {
  private DataWidth() {}

  public static BenchResult run(
      int n,
      List<Integer> threads,
      List<Engine> engines,
      int warmup,
      int repeat,
      PrintStream progress)
      throws InterruptedException {
    List<Program> ps = WidthSort.all();
    Map<String, Map<String, String>> overrides = new HashMap<>();
    for (Program p : ps) overrides.put(p.name(), Map.of("n", Integer.toString(n)));
    return new BenchRunner(
            new BenchRunner.Options(
                ps, engines, threads, Size.QUICK, overrides, warmup, repeat, false, progress))
        .run();
  }

  /** The bench records, each marked as this experiment's, with the element type and its bytes. */
  public static List<Map<String, Object>> records(BenchResult r) {
    List<Map<String, Object>> rs = Records.of(r);
    for (Map<String, Object> m : rs) {
      String type = ((String) m.get("program")).substring("sort-".length());
      m.put("experiment", "data-width");
      m.put("width", type);
      m.put(
          "bytes",
          switch (type) {
            case "byte" -> 1;
            case "short" -> 2;
            case "int" -> 4;
            default -> 8;
          });
    }
    return rs;
  }

  static String ci(Ratio x) {
    if (!x.known()) return "-";
    return String.format(Locale.ROOT, "%.2f [%.2f, %.2f]", x.value(), x.low(), x.high());
  }

  public static void print(BenchResult r, List<Integer> threads, PrintStream out) {
    Engine par =
        r.cells().stream().anyMatch(c -> c.engine == Engine.TINE) ? Engine.TINE : Engine.JDK;
    String params =
        r.cells().isEmpty()
            ? ""
            : r.cells().get(0).workload.parameters().replaceAll(" \\w+ values", " values");
    out.printf(
        Locale.ROOT,
        "%nFigure 4-5 (Lea's paper §4.3): cilksort of %s on %s — median ms per run; speedup over 1"
            + " thread, paired per round [95%% CI]%n",
        params,
        par == Engine.TINE ? "Tine" : "the JDK's ForkJoinPool");
    StringBuilder head =
        new StringBuilder(String.format(Locale.ROOT, "%-6s %5s %9s", "width", "bytes", "seq ms"));
    for (int p : threads) head.append(String.format(Locale.ROOT, " %9s", "p=" + p + " ms"));
    for (int p : threads)
      if (p > 1) head.append(String.format(Locale.ROOT, "  %-22s", "speedup p=" + p));
    out.println(head);
    Map<Program, List<Cell>> by = r.byProgram();
    for (Map.Entry<Program, List<Cell>> e : by.entrySet()) {
      WidthSort<?> ws = (WidthSort<?>) e.getKey();
      Cell seq = r.find(ws, Engine.SEQ, 1), one = r.find(ws, par, 1);
      StringBuilder line =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "%-6s %5d %9.1f",
                  ws.type(),
                  ws.bytes(),
                  seq == null ? Double.NaN : seq.medianMillis()));
      for (int p : threads) {
        Cell c = r.find(ws, par, p);
        line.append(
            String.format(Locale.ROOT, " %9.1f", c == null ? Double.NaN : c.medianMillis()));
      }
      for (int p : threads) {
        if (p == 1) continue;
        Cell c = r.find(ws, par, p);
        line.append(
            String.format(
                Locale.ROOT, "  %-22s", one == null || c == null ? "-" : ci(one.ratioTo(c))));
      }
      boolean ok = e.getValue().stream().allMatch(Cell::verified);
      out.println(
          line
              + (ok
                  ? ""
                  : "  FAILED: "
                      + e.getValue().stream()
                          .filter(c -> !c.verified())
                          .findFirst()
                          .map(Cell::failure)
                          .orElse("")));
    }
    Program narrow = by.keySet().stream().findFirst().orElse(null),
        wide = by.keySet().stream().reduce((a, b) -> b).orElse(null);
    if (narrow != null && wide != null && narrow != wide) {
      for (Engine e : List.of(Engine.SEQ, par)) {
        Cell w = r.find(wide, e, 1), nn = r.find(narrow, e, 1);
        if (w != null && nn != null) {
          out.printf(
              Locale.ROOT,
              "one thread, %s: %s / %s time = %s (paired per round)%n",
              e == Engine.SEQ ? "sequential" : e.id,
              ((WidthSort<?>) wide).type(),
              ((WidthSort<?>) narrow).type(),
              ci(w.ratioTo(nn)));
        }
      }
    }
    out.println(
        "Lea (1999, 100M values, one thread): bytes 122.5 s, longs 242.5 s (longs / bytes = 1.98); wider data"
            + " also gave lower speedups.");
    out.println(
        r.allVerified()
            ? "every result verified (sorted, and the same 256-value histogram as the input)"
            : "SOME RESULTS WERE WRONG");
  }
}

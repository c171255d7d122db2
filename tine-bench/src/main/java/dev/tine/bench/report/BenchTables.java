package dev.tine.bench.report;

import dev.tine.bench.Program;
import dev.tine.bench.Workload;
import dev.tine.bench.run.BenchResult;
import dev.tine.bench.run.Cell;
import dev.tine.bench.run.Engine;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The bench's console output: one table per program, then the geometric means and a legend. */
public final class BenchTables {
  private BenchTables() {}

  public static void print(BenchResult r, PrintStream out) {
    double ceil = r.ceilingMedian();
    out.printf(Locale.ROOT, "two-thread ceiling on this box (same work, 2 threads vs 1): median %.2fx %s%n%n",
        ceil, fmtList(r.ceilings()));
    for (Map.Entry<Program, List<Cell>> e : r.byProgram().entrySet()) {
      List<Cell> cs = e.getValue();
      Workload w = cs.get(0).workload;
      out.printf(Locale.ROOT, "%s (%s) — %s, %s size%n", e.getKey().name(), w.parameters(),
          e.getKey().description(), r.size().id());
      Cell seqCell = r.seqTwin(cs.get(0));
      out.printf(Locale.ROOT, "  %-16s %10s %10s %10s %8s %8s %9s %8s %9s %9s %9s %6s%n", "runtime",
          "median ms", "min ms", "max ms", "x seq", "speedup", "%ceiling", "vs jdk", "forks/run",
          "steals/run", "minorGC", "ok");
      for (Cell c : cs) {
        double xSeq = seqCell == null ? Double.NaN : c.pairedRatio(seqCell);
        String speed = c.engine == Engine.SEQ ? "" : fmt(1 / xSeq);
        String pctCeil = c.threads == 2 && c.engine != Engine.SEQ && seqCell != null
            ? String.format(Locale.ROOT, "%.0f%%", 100 * (1 / xSeq) / ceil) : "";
        Cell jdkCell = c.engine.isTine() ? r.jdkTwin(c) : null;
        String vsJdk = jdkCell == null ? "" : fmt(c.pairedRatio(jdkCell));
        int runs = Math.max(1, c.runs());
        var k = c.counters().perRun(runs);
        String forks = c.engine.countsTasks() ? Long.toString(k.forks()) : "";
        String steals = c.engine.countsTasks() ? Long.toString(k.steals())
            : c.engine == Engine.JDK ? Long.toString(c.jdkSteals() / runs) : "";
        out.printf(Locale.ROOT, "  %-16s %10.1f %10.1f %10.1f %8s %8s %9s %8s %9s %9s %9s %6s%n", c.label(),
            c.medianMillis(), c.minMillis(), c.maxMillis(), c.engine == Engine.SEQ ? "1.00" : fmt(xSeq), speed,
            pctCeil, vsJdk, forks, steals, String.format(Locale.ROOT, "%.1f", (double) c.gc().minorCount() / runs),
            c.verified() ? "yes" : "NO");
        if (!c.verified()) {
          out.println("    FAILED: " + c.failure());
        }
      }
      for (Cell c : cs) {
        if (c.engine != Engine.TINE) continue;
        for (Cell n : cs) {
          if (n.engine == Engine.TINE_NOSTATS && n.threads == c.threads) {
            out.printf(Locale.ROOT, "  counters' cost at p=%d: tine / tine-nostats = %s (paired)%n", c.threads,
                fmt(c.pairedRatio(n)));
          }
        }
      }
      out.println();
    }
    printGeometricMeans(r, out);
    out.println("x seq: time / sequential time in the same round, median over rounds (lower is better);");
    out.println("speedup: 1 / x seq; %ceiling: speedup / the two-thread ceiling measured above;");
    out.println("vs jdk: Tine time / JDK time at the same threads in the same round, median over rounds;");
    out.println("minorGC: young collections per run.");
  }

  /** One line per (Tine engine, threads) seen with the JDK: Tine/JDK over all programs. */
  private static void printGeometricMeans(BenchResult r, PrintStream out) {
    record Acc(double logSum, int n) {}
    Map<String, Acc> sums = new TreeMap<>();
    for (Cell c : r.cells()) {
      Cell j = c.engine.isTine() ? r.jdkTwin(c) : null;
      double x = j == null ? Double.NaN : c.pairedRatio(j);
      if (x > 0 && Double.isFinite(x)) {
        sums.merge(c.label(), new Acc(Math.log(x), 1), (a, b) -> new Acc(a.logSum + b.logSum, a.n + b.n));
      }
    }
    for (Map.Entry<String, Acc> e : sums.entrySet()) {
      Acc a = e.getValue();
      out.printf(Locale.ROOT, "%s vs jdk, geometric mean over %d program(s): %.2f%n", e.getKey(), a.n,
          Math.exp(a.logSum / a.n));
    }
    if (!sums.isEmpty()) out.println();
  }

  static String fmt(double x) {
    return Double.isNaN(x) ? "-" : String.format(Locale.ROOT, "%.2f", x);
  }

  private static String fmtList(List<Double> xs) {
    return Arrays.toString(xs.stream().map(BenchTables::fmt).toArray());
  }
}

package dev.tine.bench.report;

import dev.tine.bench.Program;
import dev.tine.bench.Workload;
import dev.tine.bench.run.BenchResult;
import dev.tine.bench.run.Cell;
import dev.tine.bench.run.Engine;
import dev.tine.bench.run.TineCounters;
import dev.tine.bench.stats.Ratio;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The bench's console output: one table per program (times, paired ratios with their 95%
 * intervals), the geometric means, a verdict per thread count, and a legend.
 */
public final class BenchTables {
  private BenchTables() {}

  /** Marks a ratio whose interval contains 1.0. */
  static final String UNCLEAR = "~";

  public static void print(BenchResult r, PrintStream out) {
    print(r, new Steadiness(List.of(), ""), out);
  }

  /** The tables, headed by the busy-machine warning when {@code steadiness} flags one. */
  public static void print(BenchResult r, Steadiness steadiness, PrintStream out) {
    for (String l : steadiness.lines()) out.println(l);
    if (steadiness.busy()) out.println();
    out.printf(
        Locale.ROOT,
        "two-thread ceiling on this box (same work, 2 threads vs 1): median %.2fx %s%n",
        r.ceilingMedian(),
        fmtList(r.ceilings()));
    for (Map.Entry<Integer, List<Double>> e : r.ceilingsByThreads().entrySet()) {
      if (e.getKey() == 2) continue;
      out.printf(
          Locale.ROOT,
          "%d-thread ceiling (same work, %d threads vs 1): median %.2fx %s%n",
          e.getKey(),
          e.getKey(),
          r.ceilingMedian(e.getKey()),
          fmtList(e.getValue()));
    }
    if (!r.ceilings().isEmpty()) {
      out.println(
          "  (a guide, not a cap: it is measured between rounds, while the programs run in them, so a");
      out.println(
          "  program can exceed it when the machine's load changed; %ceiling below reads against it)");
    }
    out.println();
    for (Map.Entry<Program, List<Cell>> e : r.byProgram().entrySet()) {
      printProgram(r, e.getKey(), e.getValue(), out);
    }
    printGeometricMeans(r, out);
    printRewrites(r, out);
    printVerdict(r, out);
    out.println(
        "x seq: time / sequential time in the same round, median over rounds (lower is better), and its 95%");
    out.println(
        "  interval (bootstrap over the rounds); speedup: 1 / x seq; %ceiling: speedup / the n-thread ceiling");
    out.println(
        "  (n/a for jdk-builtin: it runs another algorithm than the sequential code, so its speedup is not scaling);");
    out.println(
        "vs jdk: time / the JDK ForkJoinPool's time at the same threads in the same round, median and interval;");
    out.println(
        UNCLEAR
            + ": the interval contains 1.00 — no clear difference. Tighter intervals: more rounds (the width");
    out.println(
        "  shrinks as 1/sqrt(rounds): --repeat 40 halves it) or fewer programs. minorGC: young collections per run.");
  }

  private static void printProgram(BenchResult r, Program p, List<Cell> cs, PrintStream out) {
    Workload w = cs.get(0).workload;
    out.printf(
        Locale.ROOT,
        "%s (%s) — %s, %s size%n",
        p.name(),
        w.parameters(),
        p.description(),
        r.size().id());
    out.printf(
        Locale.ROOT,
        "  %-17s %9s %8s %8s  %-20s %7s %8s  %-20s %9s %9s %7s %3s%n",
        "runtime",
        "median ms",
        "min ms",
        "max ms",
        "x seq [95% CI]",
        "speedup",
        "%ceiling",
        "vs jdk [95% CI]",
        "forks/run",
        "steals/run",
        "minorGC",
        "ok");
    for (Cell c : cs) {
      Ratio xSeq = r.xSeq(c);
      boolean seq = c.engine == Engine.SEQ;
      String speed = seq ? "" : fmt(1 / xSeq.value());
      double ceil = r.ceilingMedian(c.threads);
      // jdk-builtin runs another algorithm than the sequential code (Arrays.parallelSort against a
      // quicksort): its speedup measures the algorithm too, so a share of the ceiling means nothing
      String pctCeil =
          c.engine == Engine.JDK_BUILTIN && c.threads >= 2
              ? "n/a"
              : c.threads >= 2 && !seq && xSeq.known() && Double.isFinite(ceil)
                  ? String.format(Locale.ROOT, "%.0f%%", 100 * (1 / xSeq.value()) / ceil)
                  : "";
      int runs = Math.max(1, c.runs());
      TineCounters k = c.counters().perRun(runs);
      String forks = c.engine.countsTasks() ? Long.toString(k.forks()) : "";
      String steals =
          c.engine.countsTasks()
              ? Long.toString(k.steals())
              : c.engine == Engine.JDK || c.engine == Engine.JDK_BUILTIN
                  ? Long.toString(c.jdkSteals() / runs)
                  : "";
      out.printf(
          Locale.ROOT,
          "  %-17s %9.1f %8.1f %8.1f  %-20s %7s %8s  %-20s %9s %9s %7.1f %3s%n",
          c.label(),
          c.medianMillis(),
          c.minMillis(),
          c.maxMillis(),
          seq ? "1.00" : withInterval(xSeq),
          speed,
          pctCeil,
          withInterval(r.vsJdk(c)),
          forks,
          steals,
          (double) c.gc().minorCount() / runs,
          c.verified() ? "yes" : "NO");
      if (!c.verified()) {
        out.println("    FAILED: " + c.failure());
      }
    }
    for (Cell c : cs) {
      Ratio b = r.vsBuiltin(c);
      if (c.engine == Engine.TINE && b.known()) {
        out.printf(
            Locale.ROOT,
            "  %s / jdk-builtin p=%d (%s) = %s%n",
            c.label(),
            c.threads,
            w.jdkBuiltinForm(),
            verdictWords(b, "Tine"));
      }
      if (c.engine != Engine.TINE) continue;
      for (Cell n : cs) {
        if (n.engine == Engine.TINE_NOSTATS && n.threads == c.threads) {
          out.printf(
              Locale.ROOT,
              "  counters' cost at p=%d: tine / tine-nostats = %s (paired)%n",
              c.threads,
              withInterval(c.ratioTo(n)));
        }
      }
    }
    out.println();
  }

  /**
   * One line per (engine, threads) compared with the JDK: the geometric mean over the programs
   * written the same way on both runtimes (the headline; rewrites are on their own lines).
   */
  private static void printGeometricMeans(BenchResult r, PrintStream out) {
    Map<String, BenchResult.GeoMean> gms = r.geometricMeansVsJdk();
    for (Map.Entry<String, BenchResult.GeoMean> e : gms.entrySet()) {
      BenchResult.GeoMean g = e.getValue();
      out.printf(
          Locale.ROOT,
          "%s vs jdk, geometric mean over %d %s%s: %s%n",
          e.getKey(),
          g.programs(),
          g.programs() == 1 ? "program" : "programs",
          e.getKey().startsWith("tine") ? " written the same way on both runtimes" : "",
          verdictWords(g.ratio(), e.getKey().startsWith("tine") ? "Tine" : "jdk-builtin"));
    }
    if (!gms.isEmpty()) out.println();
  }

  /**
   * Tine's own forms: programs whose Tine side is rewritten with a Tine-only API. Each against its
   * own sequential code, and against the JDK program of the same shape, labelled as a rewrite: no
   * geometric mean, since several of them share one JDK program.
   */
  private static void printRewrites(BenchResult r, PrintStream out) {
    List<String> lines = new ArrayList<>();
    for (Cell c : r.cells()) {
      if (c.engine != Engine.TINE || BenchResult.likeForLike(c)) continue;
      Ratio xSeq = r.xSeq(c), vsJdk = r.vsJdk(c);
      if (!xSeq.known() && !vsJdk.known()) continue;
      lines.add(
          String.format(
              Locale.ROOT,
              "  %s p=%d: x seq %s; vs the JDK's %s program (a rewrite, not like for like) %s",
              c.program.name(),
              c.threads,
              xSeq.known() ? withInterval(xSeq) : "-",
              c.program.rewriteOf(),
              vsJdk.known() ? withInterval(vsJdk) : "-"));
    }
    if (lines.isEmpty()) return;
    out.println(
        "Tine's own forms (the Tine side rewritten with a Tine-only API; the JDK side is another"
            + " program's, so they stay out of the geometric mean and the verdict):");
    for (String l : lines) out.println(l);
    out.println();
  }

  /**
   * Per thread count: the programs where Tine is faster, slower, or not clearly either, than the
   * JDK.
   */
  private static void printVerdict(BenchResult r, PrintStream out) {
    TreeSet<Integer> threads = new TreeSet<>();
    for (Cell c : r.cells())
      if (c.engine == Engine.TINE && BenchResult.likeForLike(c) && r.vsJdk(c).known())
        threads.add(c.threads);
    if (threads.isEmpty()) return;
    out.println(
        "verdict at every thread count, Tine / JDK ForkJoinPool time, programs written the same way"
            + " (95% interval below 1: Tine faster; above: slower):");
    for (int t : threads) {
      List<String> faster = new ArrayList<>(),
          slower = new ArrayList<>(),
          unclear = new ArrayList<>();
      for (Cell c : r.cells()) {
        if (c.engine != Engine.TINE || c.threads != t || !BenchResult.likeForLike(c)) continue;
        Ratio x = r.vsJdk(c);
        if (!x.known()) continue;
        String item = c.program.name() + " " + fmt(x.value());
        if (!x.clear()) unclear.add(c.program.name());
        else if (x.high() < 1) faster.add(item);
        else slower.add(item);
      }
      out.printf(
          Locale.ROOT,
          "  p=%d: faster on %s; slower on %s; no clear difference on %s%n",
          t,
          list(faster),
          slower.isEmpty() ? "none (no program's 95% interval lies above 1.0)" : list(slower),
          list(unclear));
    }
    out.println();
  }

  private static String list(List<String> xs) {
    return xs.isEmpty() ? "none" : xs.size() + " (" + String.join(", ", xs) + ")";
  }

  /**
   * "0.75 [0.72, 0.78]", with {@link #UNCLEAR} appended when the interval contains 1.0; "" if
   * unknown.
   */
  static String withInterval(Ratio x) {
    if (!x.known()) return "";
    if (!Double.isFinite(x.low())) return fmt(x.value());
    return String.format(
        Locale.ROOT, "%.2f [%.2f,%.2f]%s", x.value(), x.low(), x.high(), x.clear() ? "" : UNCLEAR);
  }

  /** "0.75 [95% CI 0.72–0.78]: Tine faster" / "... no clear difference". */
  static String verdictWords(Ratio x, String who) {
    if (!x.known()) return "-";
    String ci =
        Double.isFinite(x.low())
            ? String.format(Locale.ROOT, "%.2f [95%% CI %.2f-%.2f]", x.value(), x.low(), x.high())
            : fmt(x.value());
    if (!x.clear()) return ci + ": no clear difference";
    return ci + ": " + who + (x.high() < 1 ? " faster" : " slower");
  }

  static String fmt(double x) {
    return Double.isNaN(x) ? "-" : String.format(Locale.ROOT, "%.2f", x);
  }

  private static String fmtList(List<Double> xs) {
    return Arrays.toString(xs.stream().map(BenchTables::fmt).toArray());
  }
}

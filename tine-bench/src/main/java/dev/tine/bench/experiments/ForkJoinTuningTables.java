package dev.tine.bench.experiments;

import static dev.tine.bench.experiments.ForkJoinTuning.find;

import dev.tine.bench.experiments.ForkJoinTuning.Run;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The fork/join tuning study's tables 2-1..2-3 and 3-1..3-4 from the fork-join-tuning runs, JDK and
 * Tine side by side.
 */
public final class ForkJoinTuningTables {
  private ForkJoinTuningTables() {}

  static String cell(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,.0f", v);
  }

  static String ms(Run r) {
    return r == null ? "-" : cell(r.ms());
  }

  static String count(Run r, long v) {
    return r == null || v < 0 ? "-" : Long.toString(v);
  }

  public static void print(List<Run> runs, int[] ms, PrintStream out) {
    for (String table : List.of("fib", "quicksort")) {
      out.printf(
          "%nTable %s: elapsed ms (program 1 sequential; 2 forks at every step; 3 throttled by an atomic counter)%n",
          table.equals("fib") ? "2-1" : "3-1");
      out.printf(
          Locale.ROOT,
          "%-13s %10s %10s %10s %10s %10s%n",
          "multiplicity",
          "1",
          "2 jdk",
          "3 jdk",
          "2 tine",
          "3 tine");
      Run seq = find(runs, table, "1", "seq", 1);
      for (int m : ms) {
        out.printf(
            Locale.ROOT,
            "%-13d %10s %10s %10s %10s %10s%n",
            m,
            m == 1 && seq != null ? cell(seq.ms()) : "-",
            ms(find(runs, table, "2", "jdk", m)),
            ms(find(runs, table, "3", "jdk", m)),
            ms(find(runs, table, "2", "tine", m)),
            ms(find(runs, table, "3", "tine", m)));
      }
      if (table.equals("fib")) {
        printFibDetails(runs, ms, seq, out);
      } else {
        printQuickSortDetails(runs, ms, out);
      }
    }
    long bad = runs.stream().filter(r -> !r.verified()).count();
    out.println(bad == 0 ? "\nevery result verified" : "\n" + bad + " RESULTS WERE WRONG");
  }

  private static void printFibDetails(List<Run> runs, int[] ms, Run seq, PrintStream out) {
    String table = "fib";
    out.printf("%nTable 2-2: garbage collection at multiplicity 1 (count / ms)%n");
    out.printf(
        Locale.ROOT,
        "%-10s %14s %14s %14s %14s %14s%n",
        "GC",
        "program 1",
        "2 jdk",
        "3 jdk",
        "2 tine",
        "3 tine");
    Run[] rs = {
      seq,
      find(runs, table, "2", "jdk", 1),
      find(runs, table, "3", "jdk", 1),
      find(runs, table, "2", "tine", 1),
      find(runs, table, "3", "tine", 1)
    };
    out.printf(Locale.ROOT, "%-10s", "minor GC");
    for (Run r : rs)
      out.printf(
          Locale.ROOT,
          " %14s",
          r == null ? "-" : r.gc().minorCount() + " / " + r.gc().minorMillis());
    out.printf(Locale.ROOT, "%n%-10s", "full GC");
    for (Run r : rs)
      out.printf(
          Locale.ROOT, " %14s", r == null ? "-" : r.gc().fullCount() + " / " + r.gc().fullMillis());
    int top = ms[ms.length - 1];
    out.printf("%n%nTable 2-3: child tasks at multiplicity %d%n", top);
    out.printf(Locale.ROOT, "%-8s %14s %14s %14s %14s%n", "", "2 jdk", "3 jdk", "2 tine", "3 tine");
    Run[] cs = {
      find(runs, table, "2", "jdk", top),
      find(runs, table, "3", "jdk", top),
      find(runs, table, "2", "tine", top),
      find(runs, table, "3", "tine", top)
    };
    for (String what : List.of("fork", "join", "steal")) {
      out.printf(Locale.ROOT, "%-8s", what);
      for (Run r : cs) {
        long v =
            r == null
                ? -1
                : what.equals("fork") ? r.forks() : what.equals("join") ? r.joins() : r.steals();
        out.printf(Locale.ROOT, " %14s", v < 0 ? "-" : String.format(Locale.ROOT, "%,d", v));
      }
      out.println();
    }
    out.println(
        "(JDK fork and join counts: program 2's are fib(n+1)-1 by construction, program 3's are counted;"
            + " the JDK exposes only steals. Tine's latent forks: a join of a never-promoted fork is a direct call;"
            + " Tine counts joins that had to wait or run the task, so a join of a stolen fork that had already"
            + " finished is not counted and joins can be a few fewer than forks. Every result is verified.)");
  }

  private static void printQuickSortDetails(List<Run> runs, int[] ms, PrintStream out) {
    String table = "quicksort";
    int mid = ms.length > 2 ? ms[2] : ms[ms.length - 1];
    out.printf("%nTable 3-2: child tasks at multiplicity %d%n", mid);
    Run j2 = find(runs, table, "2", "jdk", mid),
        j3 = find(runs, table, "3", "jdk", mid),
        t2 = find(runs, table, "2", "tine", mid);
    out.printf(Locale.ROOT, "%-8s %14s %14s %14s%n", "", "2 jdk", "3 jdk", "2 tine");
    out.printf(
        Locale.ROOT,
        "%-8s %14s %14s %14s%n",
        "fork",
        count(j2, j2 == null ? -1 : j2.forks()),
        j3 == null ? "-" : j3.forks(),
        t2 == null ? "-" : t2.forks());
    out.printf(
        Locale.ROOT,
        "%-8s %14s %14s %14s%n",
        "steal",
        j2 == null ? "-" : j2.steals(),
        j3 == null ? "-" : j3.steals(),
        t2 == null ? "-" : t2.steals());
    for (String prog : List.of("2", "3")) {
      out.printf(
          "%nTable %s: worker threads, program %s, averages per worker (ms)%n",
          prog.equals("2") ? "3-3" : "3-4", prog);
      out.printf(
          Locale.ROOT,
          "%-8s %-5s %10s %10s %12s %10s %12s%n",
          "threads",
          "rt",
          "CPU",
          "BLOCKED n",
          "BLOCKED ms",
          "WAITING n",
          "WAITING ms");
      for (int m : ms) {
        if (m == 1) continue;
        for (String rt : List.of("jdk", "tine")) {
          Run r = find(runs, table, prog, rt, m);
          if (r == null || Double.isNaN(r.workers().cpuMs())) continue;
          var w = r.workers();
          out.printf(
              Locale.ROOT,
              "%-8d %-5s %10s %10s %12s %10s %12s%n",
              m,
              rt,
              cell(w.cpuMs()),
              cell(w.blockedCount()),
              cell(w.blockedMs()),
              cell(w.waitedCount()),
              cell(w.waitedMs()));
        }
      }
    }
    out.println(
        "(worker figures are cumulative over each pool's life: the pool ran only this program.)");
  }
}

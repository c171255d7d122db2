package dev.tine.bench;

import dev.tine.PoolStats;
import dev.tine.WorkStealingPool;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ForkJoinPool;

/**
 * Runs programs on seq/Tine/JDK at several thread counts in one JVM: warm-up rounds, then timed
 * rounds in which every cell runs once, in an order rotated each round (so slow drift of a noisy
 * box spreads evenly), with the two-thread ceiling measured once per round too. Reports medians.
 */
public final class BenchRunner {
  public record Options(
      List<Program> programs,
      List<Runtime> runtimes,
      List<Integer> threads,
      Size size,
      Map<String, Map<String, String>> overrides,
      int warmup,
      int repeat,
      boolean tineStatsOff,
      PrintStream out,
      PrintStream progress) {}

  private final Options o;
  private final List<Cell> cells = new ArrayList<>();
  private final List<Double> ceilings = new ArrayList<>();
  private final Map<Integer, WorkStealingPool> tinePools = new TreeMap<>();
  private final Map<Integer, WorkStealingPool> tineNoStatsPools = new TreeMap<>();
  private final Map<Integer, WorkStealingPool> tineEagerPools = new TreeMap<>();
  private final Map<Integer, ForkJoinPool> jdkPools = new TreeMap<>();

  public BenchRunner(Options o) {
    this.o = o;
  }

  public List<Cell> cells() {
    return cells;
  }

  public double ceilingMedian() {
    double[] a = ceilings.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    if (a.length == 0) return Double.NaN;
    return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
  }

  public List<Double> ceilings() {
    return ceilings;
  }

  public void run() throws InterruptedException {
    for (Program p : o.programs) {
      Workload w = p.workload(o.size, o.overrides.getOrDefault(p.name(), Map.of()));
      if (o.runtimes.contains(Runtime.SEQ)) {
        cells.add(new Cell(p, w, Runtime.SEQ, 1));
      }
      for (int t : o.threads) {
        for (Runtime r : o.runtimes) {
          if (r != Runtime.SEQ) {
            cells.add(new Cell(p, w, r, t));
          }
        }
      }
    }
    for (int t : o.threads) {
      if (o.runtimes.contains(Runtime.TINE)) {
        tinePools.put(t, WorkStealingPool.builder().parallelism(t).name("bench-tine-" + t)
            .recordStats(!o.tineStatsOff).threadContentionMonitoring(true).build());
      }
      if (o.runtimes.contains(Runtime.TINE_NOSTATS)) {
        tineNoStatsPools.put(t, WorkStealingPool.builder().parallelism(t).name("bench-tine-nostats-" + t)
            .recordStats(false).build());
      }
      if (o.runtimes.contains(Runtime.TINE_EAGER)) {
        tineEagerPools.put(t, WorkStealingPool.builder().parallelism(t).name("bench-tine-eager-" + t)
            .eagerForks(true).build());
      }
      if (o.runtimes.contains(Runtime.JDK)) {
        jdkPools.put(t, new ForkJoinPool(t));
      }
    }
    Ceiling ceiling = Ceiling.calibrate(150);
    Progress progress = new Progress(o.progress, (o.warmup + o.repeat) * cells.size());
    try {
      for (int round = 0; round < o.warmup + o.repeat; round++) {
        boolean timed = round >= o.warmup;
        for (int k = 0; k < cells.size(); k++) {
          Cell c = cells.get((k + round) % cells.size());
          progress.step(c, timed ? "round " + (round - o.warmup + 1) + "/" + o.repeat : "warm-up");
          runOnce(c, timed);
        }
        if (timed) {
          ceilings.add(ceiling.measureOnce());
        }
      }
    } finally {
      progress.done();
      tinePools.values().forEach(WorkStealingPool::close);
      tineNoStatsPools.values().forEach(WorkStealingPool::close);
      tineEagerPools.values().forEach(WorkStealingPool::close);
      jdkPools.values().forEach(ForkJoinPool::shutdownNow);
    }
  }

  private void runOnce(Cell c, boolean timed) {
    c.workload.prepare();
    WorkStealingPool tp = c.runtime == Runtime.TINE ? tinePools.get(c.threads)
        : c.runtime == Runtime.TINE_NOSTATS ? tineNoStatsPools.get(c.threads)
        : c.runtime == Runtime.TINE_EAGER ? tineEagerPools.get(c.threads) : null;
    ForkJoinPool jp = c.runtime == Runtime.JDK ? jdkPools.get(c.threads) : null;
    if (tp != null) tp.resetStats();
    long jdkStealsBefore = jp != null ? jp.getStealCount() : 0;
    GcSnapshot g0 = GcSnapshot.now();
    long t0 = System.nanoTime();
    Object result;
    try {
      result = switch (c.runtime) {
        case SEQ -> c.workload.sequential();
        case TINE, TINE_NOSTATS, TINE_EAGER -> c.workload.tine(tp);
        case JDK -> c.workload.jdk(jp);
      };
    } catch (RuntimeException | Error e) {
      c.verified = false;
      c.failure = e.toString();
      return;
    }
    long dt = System.nanoTime() - t0;
    GcSnapshot g = GcSnapshot.now().minus(g0);
    if (!c.workload.verify(result)) {
      c.verified = false;
      c.failure = "wrong result: " + abbreviate(result);
    }
    if (!timed) return;
    c.nanos.add(dt);
    c.gc = c.gc.plus(g);
    if (tp != null && c.runtime != Runtime.TINE_NOSTATS) {
      PoolStats s = tp.stats();
      c.forks += s.forks();
      c.steals += s.steals();
      c.localPops += s.localPops();
      c.joins += s.joins();
      c.joinsHelped += s.joinsHelped();
      c.joinsBlocked += s.joinsBlocked();
      c.executed += s.tasksExecuted();
      c.parks += s.parks();
    }
    if (jp != null) {
      c.jdkSteals += jp.getStealCount() - jdkStealsBefore;
    }
  }

  /** The JDK cell of the same program at the same thread count, or null. */
  private Cell jdkTwin(Cell c) {
    for (Cell x : cells) {
      if (x.program == c.program && x.runtime == Runtime.JDK && x.threads == c.threads) return x;
    }
    return null;
  }

  /** One line per (Tine runtime, threads) seen with the JDK: Tine/JDK over all programs. */
  private void printGeometricMeans(PrintStream out) {
    Map<String, double[]> sums = new java.util.TreeMap<>(); // label -> {sum of logs, count}
    for (Cell c : cells) {
      Cell j = c.runtime.isTine() ? jdkTwin(c) : null;
      double r = j == null ? Double.NaN : c.pairedRatio(j);
      if (r > 0 && Double.isFinite(r)) {
        double[] acc = sums.computeIfAbsent(c.label(), k -> new double[2]);
        acc[0] += Math.log(r);
        acc[1]++;
      }
    }
    for (Map.Entry<String, double[]> e : sums.entrySet()) {
      double[] acc = e.getValue();
      out.printf(Locale.ROOT, "%s vs jdk, geometric mean over %d program(s): %.2f%n", e.getKey(), (int) acc[1],
          Math.exp(acc[0] / acc[1]));
    }
    if (!sums.isEmpty()) out.println();
  }

  private static String abbreviate(Object r) {
    String s = String.valueOf(r);
    return s.length() > 60 ? s.substring(0, 60) + "..." : s;
  }

  /** Prints one table per program: medians, ratios to sequential and JDK, and the ceiling. */
  public void printTables() {
    PrintStream out = o.out;
    double ceil = ceilingMedian();
    out.printf(Locale.ROOT, "two-thread ceiling on this box (same work, 2 threads vs 1): median %.2fx %s%n%n",
        ceil, fmtList(ceilings));
    Map<Program, List<Cell>> byProgram = new LinkedHashMap<>();
    for (Cell c : cells) byProgram.computeIfAbsent(c.program, k -> new ArrayList<>()).add(c);
    for (Map.Entry<Program, List<Cell>> e : byProgram.entrySet()) {
      List<Cell> cs = e.getValue();
      Workload w = cs.get(0).workload;
      out.printf(Locale.ROOT, "%s (%s) — %s, %s size%n", e.getKey().name(), w.parameters(),
          e.getKey().description(), o.size.id());
      Cell seqCell = cs.stream().filter(c -> c.runtime == Runtime.SEQ).findFirst().orElse(null);
      out.printf(Locale.ROOT, "  %-16s %10s %10s %10s %8s %8s %9s %8s %9s %9s %9s %6s%n", "runtime",
          "median ms", "min ms", "max ms", "x seq", "speedup", "%ceiling", "vs jdk", "forks/run",
          "steals/run", "minorGC", "ok");
      for (Cell c : cs) {
        double med = c.medianMillis();
        double xSeq = seqCell == null ? Double.NaN : c.pairedRatio(seqCell);
        String speed = c.runtime == Runtime.SEQ ? "" : fmt(1 / xSeq);
        String pctCeil = c.threads == 2 && c.runtime != Runtime.SEQ && seqCell != null
            ? String.format(Locale.ROOT, "%.0f%%", 100 * (1 / xSeq) / ceil) : "";
        Cell jdkCell = c.runtime.isTine() ? jdkTwin(c) : null;
        String vsJdk = jdkCell == null ? "" : fmt(c.pairedRatio(jdkCell));
        int runs = Math.max(1, c.runs());
        String forks = c.runtime == Runtime.TINE || c.runtime == Runtime.TINE_EAGER ? Long.toString(c.forks / runs) : "";
        String steals = c.runtime == Runtime.TINE || c.runtime == Runtime.TINE_EAGER ? Long.toString(c.steals / runs)
            : c.runtime == Runtime.JDK ? Long.toString(c.jdkSteals / runs) : "";
        out.printf(Locale.ROOT, "  %-16s %10.1f %10.1f %10.1f %8s %8s %9s %8s %9s %9s %9s %6s%n", c.label(),
            med, c.minMillis(), c.maxMillis(), c.runtime == Runtime.SEQ ? "1.00" : fmt(xSeq), speed,
            pctCeil, vsJdk, forks, steals, String.format(Locale.ROOT, "%.1f", (double) c.gc.minorCount() / runs),
            c.verified ? "yes" : "NO");
        if (!c.verified) {
          out.println("    FAILED: " + c.failure);
        }
      }
      for (Cell c : cs) {
        if (c.runtime != Runtime.TINE) continue;
        for (Cell n : cs) {
          if (n.runtime == Runtime.TINE_NOSTATS && n.threads == c.threads) {
            out.printf(Locale.ROOT, "  counters' cost at p=%d: tine / tine-nostats = %s (paired)%n", c.threads,
                fmt(c.pairedRatio(n)));
          }
        }
      }
      out.println();
    }
    printGeometricMeans(out);
    out.println("x seq: time / sequential time in the same round, median over rounds (lower is better);");
    out.println("speedup: 1 / x seq; %ceiling: speedup / the two-thread ceiling measured above;");
    out.println("vs jdk: Tine time / JDK time at the same threads in the same round, median over rounds;");
    out.println("minorGC: young collections per run.");
  }

  /**
   * One flat record per (program, runtime, threads, size): the README documents the fields.
   * Ratios are paired per round, as in the tables.
   */
  public List<Map<String, Object>> records() {
    List<Map<String, Object>> out = new ArrayList<>();
    double ceil = ceilingMedian();
    for (Cell c : cells) {
      Cell seqCell = null, jdkCell = jdkTwin(c);
      for (Cell x : cells) {
        if (x.program == c.program && x.runtime == Runtime.SEQ) seqCell = x;
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("program", c.program.name());
      m.put("parameters", c.workload.parameters());
      m.put("runtime", c.runtime.id);
      m.put("threads", c.threads);
      m.put("size", o.size.id());
      m.put("runs", c.runs());
      m.put("median_ms", c.medianMillis());
      m.put("min_ms", c.minMillis());
      m.put("max_ms", c.maxMillis());
      m.put("verified", c.verified);
      double xSeq = seqCell == null ? Double.NaN : c.pairedRatio(seqCell);
      m.put("x_seq", finite(xSeq));
      m.put("speedup", finite(1 / xSeq));
      m.put("ceiling", finite(ceil));
      m.put("vs_jdk", c.runtime.isTine() && jdkCell != null ? finite(c.pairedRatio(jdkCell)) : null);
      int runs = Math.max(1, c.runs());
      if (c.runtime == Runtime.TINE || c.runtime == Runtime.TINE_EAGER) {
        m.put("forks", c.forks / runs);
        m.put("steals", c.steals / runs);
        m.put("local_pops", c.localPops / runs);
        m.put("joins", c.joins / runs);
        m.put("joins_helped", c.joinsHelped / runs);
        m.put("joins_blocked", c.joinsBlocked / runs);
        m.put("tasks_executed", c.executed / runs);
        m.put("parks", c.parks / runs);
      } else if (c.runtime == Runtime.JDK) {
        m.put("steals", c.jdkSteals / runs);
      }
      long tasks = c.workload.tasksPerRun();
      if (tasks > 0 && c.runtime != Runtime.SEQ) {
        m.put("task_rate_per_s", tasks / (c.medianMillis() / 1000.0));
      }
      m.put("minor_gc_count", (double) c.gc.minorCount() / runs);
      m.put("minor_gc_ms", (double) c.gc.minorMillis() / runs);
      m.put("full_gc_count", (double) c.gc.fullCount() / runs);
      m.put("full_gc_ms", (double) c.gc.fullMillis() / runs);
      if (!c.verified) m.put("failure", c.failure);
      out.add(m);
    }
    return out;
  }

  private static Double finite(double d) {
    return Double.isFinite(d) ? d : null;
  }

  public boolean allVerified() {
    return cells.stream().allMatch(Cell::verified);
  }

  private static String fmt(double x) {
    return Double.isNaN(x) ? "-" : String.format(Locale.ROOT, "%.2f", x);
  }

  private static String fmtList(List<Double> xs) {
    return Arrays.toString(xs.stream().map(BenchRunner::fmt).toArray());
  }

  /** A one-line progress display on stderr; only when it is a terminal or a run is long. */
  static final class Progress {
    private final PrintStream ps;
    private final int total;
    private final long start = System.nanoTime();
    private int done;
    private boolean shown;

    Progress(PrintStream ps, int total) {
      this.ps = isTerminal() ? ps : null; // a redirected stderr gets no carriage-return noise
      this.total = total;
    }

    static boolean isTerminal() {
      java.io.Console c = System.console();
      if (c == null) return false;
      try { // JDK 22+: a Console exists even when redirected; ask it
        return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(c);
      } catch (ReflectiveOperationException e) {
        return true; // JDK 21: a non-null console is a terminal
      }
    }

    void step(Cell c, String phase) {
      done++;
      if (ps == null) return;
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      if (elapsedMs < 3000 && !shown) return; // short runs print no progress
      shown = true;
      int width = 30, filled = (int) ((long) width * (done - 1) / Math.max(1, total));
      ps.printf(Locale.ROOT, "\r[%s%s] %3d%% %-14s %-10s %-16s %5ds",
          "#".repeat(filled), " ".repeat(width - filled), 100 * (done - 1) / Math.max(1, total),
          c.program.name(), c.label(), phase, elapsedMs / 1000);
      ps.flush();
    }

    void done() {
      if (ps != null && shown) {
        ps.print("\r" + " ".repeat(100) + "\r");
        ps.flush();
      }
    }
  }
}

package dev.tine.spark;

import dev.tine.spark.programs.Fib;
import dev.tine.spark.programs.Uts;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * The cluster experiment: UTS and fib on one JVM (a plain recursion on one thread, and Tine alone),
 * on Spark {@code local[2]} and on {@code local-cluster[2,1,1024]}; exact results, start-up cost,
 * efficiency. Run it with {@code scripts/spark-experiment.sh} (which sets the class path, the JVM
 * options and SPARK_HOME).
 *
 * <pre>
 * --fib N              fib size (default 47: 30-60 s on one JVM here)
 * --uts-depth D        UTS depth (default 14), --uts-b B (4), --uts-work W (8), --seed S (4)
 * --uts-probes P       random paths per part for the driver's size estimate (default 0: a
 *                      level-by-level cut; the balance runs compare 1024)
 * --masters A,B,...    where to run (default tine[2],local[2],local-cluster[2,1,1024])
 * --pieces-per-core K  pieces per cluster core (default 4)
 * --balance-depth D    also run UTS of depth D on the last master with 1, 4 and 16 pieces per core,
 *                      cut level by level and by estimated size (default 12; 0: not)
 * --no-sequential      skip the one-thread ground-truth runs (then results are checked against
 *                      each other and, for fib, the closed form)
 * </pre>
 */
public final class ClusterExperiment {
  private static final double NaN = Double.NaN;

  private ClusterExperiment() {}

  private record Row(
      String program,
      String where,
      long value,
      boolean exact,
      double wall,
      double startup,
      double firstJob,
      int pieces,
      double efficiency,
      double cpuSeconds,
      int cores) {}

  /**
   * Runs the experiment and prints each run's table and a summary.
   *
   * @param args the options listed above
   * @throws IllegalArgumentException for an unknown argument
   */
  public static void main(String[] args) {
    Map<String, String> o = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--no-sequential")) {
        o.put("no-sequential", "true");
      } else if (a.startsWith("--") && i + 1 < args.length) {
        o.put(a.substring(2), args[++i]);
      } else {
        throw new IllegalArgumentException("unknown argument " + a);
      }
    }
    int fibN = Integer.parseInt(o.getOrDefault("fib", "47"));
    Uts uts =
        new Uts(
            Double.parseDouble(o.getOrDefault("uts-b", "4")),
            Integer.parseInt(o.getOrDefault("uts-depth", "14")),
            Integer.parseInt(o.getOrDefault("uts-work", "8")));
    // a level-by-level cut unless told otherwise: weighing the parts by Knuth's estimator made
    // the pieces less even, not more (the balance runs and docs/design/distributed.md)
    uts = uts.withEstimates(Integer.parseInt(o.getOrDefault("uts-probes", "0")));
    Uts.Node root = Uts.root(Long.parseLong(o.getOrDefault("seed", "4")));
    List<String> masters =
        List.of(
            o.getOrDefault("masters", "tine[2],local[2],local-cluster[2,1,1024]")
                .split(",(?![^\\[]*])")); // commas outside brackets: local-cluster[2,1,1024]
    int perCore = Integer.parseInt(o.getOrDefault("pieces-per-core", "4"));
    int balanceDepth = Integer.parseInt(o.getOrDefault("balance-depth", "12"));
    boolean sequential = !o.containsKey("no-sequential");

    List<Row> rows = new ArrayList<>();
    long fibExact = Fib.exact(fibN);
    Long utsExact = null;
    if (sequential) {
      // CPU time too: on a loaded machine it is the steadier figure
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long c0 = threads.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      long f = sequentialFib(fibN);
      double tf = (System.nanoTime() - t0) / 1e9;
      double cf = (threads.getCurrentThreadCpuTime() - c0) / 1e9;
      rows.add(
          new Row("fib(" + fibN + ")", "sequential", f, f == fibExact, tf, 0, 0, 1, NaN, cf, 1));
      c0 = threads.getCurrentThreadCpuTime();
      t0 = System.nanoTime();
      utsExact = uts.countSequentially(root);
      double tu = (System.nanoTime() - t0) / 1e9;
      double cu = (threads.getCurrentThreadCpuTime() - c0) / 1e9;
      rows.add(new Row(uts.toString(), "sequential", utsExact, true, tu, 0, 0, 1, NaN, cu, 1));
      System.out.printf(
          "sequential: fib %.2f s (cpu %.2f s), uts %.2f s (cpu %.2f s, %d nodes)%n%n",
          tf, cf, tu, cu, utsExact);
    }
    for (String master : masters) {
      if (master.startsWith("tine")) {
        TreeResult<Long> f = TreeJob.of(new Fib(), fibN).run(master);
        System.out.print(f.table());
        rows.add(row("fib(" + fibN + ")", f, f.value() == fibExact, 0, 0));
        TreeResult<Long> u = TreeJob.of(uts, root).run(master);
        System.out.print(u.table());
        if (utsExact == null) utsExact = u.value();
        rows.add(row(uts.toString(), u, u.value().equals(utsExact), 0, 0));
        System.out.println();
        continue;
      }
      long t0 = System.nanoTime();
      JavaSparkContext sc = SparkContexts.start(master, Fib.class);
      double startup = (System.nanoTime() - t0) / 1e9;
      try {
        // a small first job: loads the classes and warms the executors; its wall is the per-job
        // fixed cost a cold cluster adds
        TreeResult<Long> warm = TreeJob.of(new Fib(), 20).piecesPerCore(perCore).run(sc);
        double firstJob = warm.wallNanos() / 1e9;
        TreeResult<Long> again = TreeJob.of(new Fib(), 20).piecesPerCore(perCore).run(sc);
        System.out.printf(
            "%s: context and executors %.2f s, first small job %.2f s, second %.3f s"
                + " (%d pieces on %d cores: %.4f s per piece and slot)%n",
            master,
            startup,
            firstJob,
            again.wallNanos() / 1e9,
            again.pieces(),
            again.totalCores(),
            again.wallNanos() / 1e9 * again.totalCores() / again.pieces());
        TreeResult<Long> f = TreeJob.of(new Fib(), fibN).piecesPerCore(perCore).run(sc);
        System.out.print(f.table());
        rows.add(row("fib(" + fibN + ")", f, f.value() == fibExact, startup, firstJob));
        TreeResult<Long> u = TreeJob.of(uts, root).piecesPerCore(perCore).run(sc);
        System.out.print(u.table());
        if (utsExact == null) utsExact = u.value();
        rows.add(row(uts.toString(), u, u.value().equals(utsExact), startup, firstJob));
        System.out.println();
        if (balanceDepth > 0 && master.equals(masters.get(masters.size() - 1))) {
          balance(sc, balanceDepth, o, root);
        }
      } finally {
        sc.stop();
        ExecutorPool.close();
      }
    }
    System.out.println(summary(rows));
  }

  private static long sequentialFib(int n) {
    return n < 2 ? n : sequentialFib(n - 1) + sequentialFib(n - 2);
  }

  private static Row row(
      String program, TreeResult<Long> r, boolean exact, double startup, double firstJob) {
    return new Row(
        program,
        r.where(),
        r.value(),
        exact,
        r.wallNanos() / 1e9,
        startup,
        firstJob,
        r.pieces(),
        r.efficiency(),
        r.reports().stream().mapToLong(PieceReport::busyNanos).sum() / 1e9,
        r.totalCores());
  }

  private static void balance(
      JavaSparkContext sc, int depth, Map<String, String> o, Uts.Node root) {
    Uts level =
        new Uts(
            Double.parseDouble(o.getOrDefault("uts-b", "4")),
            depth,
            Integer.parseInt(o.getOrDefault("uts-work", "8")));
    Uts estimated = level.withEstimates(1024);
    System.out.println("balance: " + level + ", pieces per core 1, 4, 16; heaviest first");
    System.out.printf(
        "  %-10s %8s %7s %9s %11s %9s %11s %9s%n",
        "cut", "per-core", "pieces", "wall(s)", "longest(s)", "mean(s)", "efficiency", "min busy");
    Function<TreeResult<Long>, Double> minBusy =
        r -> r.executors().stream().mapToDouble(TreeResult.ExecutorRow::busy).min().orElse(0);
    Long expect = null;
    for (int k : new int[] {1, 4, 16}) {
      for (Uts u : List.of(level, estimated)) {
        TreeResult<Long> r = TreeJob.of(u, root).piecesPerCore(k).run(sc);
        if (expect == null) expect = r.value();
        if (!r.value().equals(expect)) {
          throw new IllegalStateException("balance runs disagree: " + r.value() + " vs " + expect);
        }
        System.out.printf(
            "  %-10s %8d %7d %9.2f %11.2f %9.3f %10.0f%% %8.0f%%%n",
            u == level ? "level" : "estimated",
            k,
            r.pieces(),
            r.wallNanos() / 1e9,
            r.longestPieceNanos() / 1e9,
            r.pieceNanos() / 1e9 / r.reports().size(),
            100 * r.efficiency(),
            100 * minBusy.apply(r));
      }
    }
    System.out.println("  (" + expect + " nodes in every run)");
    System.out.println();
  }

  private static String summary(List<Row> rows) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            "%-34s %-24s %14s %5s %8s %9s %9s %6s %6s %8s %6s%n",
            "program",
            "where",
            "result",
            "exact",
            "wall(s)",
            "start(s)",
            "1st-job",
            "pieces",
            "eff",
            "cpu(s)",
            "cpu%"));
    for (Row r : rows) {
      b.append(
          String.format(
              "%-34s %-24s %14d %5s %8.2f %9.2f %9.2f %6d %6s %8.2f %5.0f%%%n",
              r.program(),
              r.where(),
              r.value(),
              r.exact() ? "yes" : "NO",
              r.wall(),
              r.startup(),
              r.firstJob(),
              r.pieces(),
              Double.isNaN(r.efficiency()) ? "-" : String.format("%.0f%%", 100 * r.efficiency()),
              r.cpuSeconds(),
              100 * r.cpuSeconds() / (r.cores() * r.wall())));
    }
    return b.toString();
  }
}

package dev.tine.spark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A job's result and what it cost: the wall time of the job, the driver's cut, the start-up of the
 * context (when {@link TreeJob#run(String)} started one), and every piece's {@link PieceReport}.
 *
 * <p><b>Efficiency</b> is the total piece time over (cluster cores × job wall time): the fraction
 * of the cluster's task slots that ran pieces. It leaves out retried pieces' lost runs (Spark drops
 * a failed task's accumulator updates) and counts a piece's time once, however many of the pool's
 * workers helped it.
 *
 * @param <R> the result's type
 */
public final class TreeResult<R> {
  private final R value;
  private final String where;
  private final long wallNanos;
  private final long cutNanos;
  private final int pieces;
  private final int cutDepth;
  private final int totalCores;
  private final int executorCores;
  private final List<PieceReport> reports;
  private final long startupNanos;

  TreeResult(
      R value,
      String where,
      long wallNanos,
      long cutNanos,
      int pieces,
      int cutDepth,
      int totalCores,
      int executorCores,
      List<PieceReport> reports) {
    this(
        value, where, wallNanos, cutNanos, pieces, cutDepth, totalCores, executorCores, reports, 0);
  }

  private TreeResult(
      R value,
      String where,
      long wallNanos,
      long cutNanos,
      int pieces,
      int cutDepth,
      int totalCores,
      int executorCores,
      List<PieceReport> reports,
      long startupNanos) {
    this.value = value;
    this.where = where;
    this.wallNanos = wallNanos;
    this.cutNanos = cutNanos;
    this.pieces = pieces;
    this.cutDepth = cutDepth;
    this.totalCores = totalCores;
    this.executorCores = executorCores;
    this.reports = reports;
    this.startupNanos = startupNanos;
  }

  TreeResult<R> withStartup(long nanos) {
    return new TreeResult<>(
        value,
        where,
        wallNanos,
        cutNanos,
        pieces,
        cutDepth,
        totalCores,
        executorCores,
        reports,
        nanos);
  }

  /**
   * {@return the problem's result: on Spark, the pieces' results combined up the cut tree in split
   * order}
   */
  public R value() {
    return value;
  }

  /** {@return the master it ran on ({@code tine[N]}: one JVM, no Spark)} */
  public String where() {
    return where;
  }

  /**
   * {@return the job's wall time in nanoseconds, from submitting the job to the last result back on
   * the driver}
   */
  public long wallNanos() {
    return wallNanos;
  }

  /**
   * {@return the time in nanoseconds of the driver's cut and serialization checks, before the job}
   */
  public long cutNanos() {
    return cutNanos;
  }

  /**
   * {@return the time in nanoseconds of starting the Spark context and its executors (0 when the
   * context was given, or no Spark was used)}
   */
  public long startupNanos() {
    return startupNanos;
  }

  /** {@return the number of pieces shipped (1 for a one-JVM run)} */
  public int pieces() {
    return pieces;
  }

  /** {@return the depth of the driver's cut tree (0 for a one-JVM run)} */
  public int cutDepth() {
    return cutDepth;
  }

  /**
   * {@return the task slots of the whole cluster, the number the cut was sized by (the pool's
   * workers for a one-JVM run)}
   */
  public int totalCores() {
    return totalCores;
  }

  /** {@return every run of a piece that succeeded, in no particular order} */
  public List<PieceReport> reports() {
    return reports;
  }

  /** {@return the sum of the pieces' run times in nanoseconds, over every reported run} */
  public long pieceNanos() {
    return reports.stream().mapToLong(PieceReport::nanos).sum();
  }

  /** {@return the longest reported run of a piece in nanoseconds (0 when there is none)} */
  public long longestPieceNanos() {
    return reports.stream().mapToLong(PieceReport::nanos).max().orElse(0);
  }

  /**
   * {@return total piece time / (cluster cores × wall); NaN for a one-JVM run (one piece, no
   * slots)}
   */
  public double efficiency() {
    if (where.startsWith("tine")) {
      return Double.NaN;
    }
    return pieceNanos() / ((double) totalCores * wallNanos);
  }

  /** {@return the pools' CPU time / (cluster cores × wall)} */
  public double cpuBusy() {
    return reports.stream().mapToLong(PieceReport::busyNanos).sum()
        / ((double) totalCores * wallNanos);
  }

  /**
   * One executor's share of the job, a row of {@link #table()}: the sums of its pieces' reports.
   *
   * @param executor the executor's id and its JVM's process id
   * @param pieces the runs of pieces it reported
   * @param pieceNanos the sum of those runs' times in nanoseconds
   * @param busy piece time / (the executor's cores × the job's wall time)
   * @param tasks pool tasks executed
   * @param steals pool steals
   * @param promotions latent forks promoted to stealable tasks
   * @param cpuNanos the pool workers' CPU time in nanoseconds
   */
  public record ExecutorRow(
      String executor,
      int pieces,
      long pieceNanos,
      double busy,
      long tasks,
      long steals,
      long promotions,
      long cpuNanos) {}

  /** {@return one row per executor JVM, sorted by executor} */
  public List<ExecutorRow> executors() {
    Map<String, List<PieceReport>> by = new TreeMap<>();
    for (PieceReport r : reports) {
      by.computeIfAbsent(r.executor() + " (pid " + r.pid() + ")", k -> new ArrayList<>()).add(r);
    }
    List<ExecutorRow> rows = new ArrayList<>();
    for (Map.Entry<String, List<PieceReport>> e : by.entrySet()) {
      List<PieceReport> rs = e.getValue();
      long t = rs.stream().mapToLong(PieceReport::nanos).sum();
      rows.add(
          new ExecutorRow(
              e.getKey(),
              rs.size(),
              t,
              t / ((double) executorCores * wallNanos),
              rs.stream().mapToLong(PieceReport::tasks).sum(),
              rs.stream().mapToLong(PieceReport::steals).sum(),
              rs.stream().mapToLong(PieceReport::promotions).sum(),
              rs.stream().mapToLong(PieceReport::busyNanos).sum()));
    }
    rows.sort(Comparator.comparing(ExecutorRow::executor));
    return rows;
  }

  /** {@return the driver's table: one line per executor, then the job's totals} */
  public String table() {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            "%s: %d pieces (cut depth %d) on %d cores; wall %.2f s, cut %.3f s, start-up %.2f s%n",
            where,
            pieces,
            cutDepth,
            totalCores,
            wallNanos / 1e9,
            cutNanos / 1e9,
            startupNanos / 1e9));
    b.append(
        String.format(
            "  %-22s %6s %10s %6s %14s %10s %11s %9s%n",
            "executor", "pieces", "time(s)", "busy", "tasks", "steals", "promotions", "cpu(s)"));
    for (ExecutorRow r : executors()) {
      b.append(
          String.format(
              "  %-22s %6d %10.2f %6s %14d %10d %11d %9.2f%n",
              r.executor(),
              r.pieces(),
              r.pieceNanos() / 1e9,
              // one JVM: the one piece holds every core; busy is not defined (see cpu)
              where.startsWith("tine") ? "-" : String.format("%.0f%%", 100 * r.busy()),
              r.tasks(),
              r.steals(),
              r.promotions(),
              r.cpuNanos() / 1e9));
    }
    long retries = reports.stream().filter(r -> r.attempt() > 0).count();
    b.append(
        String.format(
            "  piece time %.2f s, longest %.2f s, mean %.3f s; efficiency %s; retried pieces %d%n",
            pieceNanos() / 1e9,
            longestPieceNanos() / 1e9,
            reports.isEmpty() ? 0 : pieceNanos() / 1e9 / reports.size(),
            Double.isNaN(efficiency()) ? "-" : String.format("%.0f%%", 100 * efficiency()),
            retries));
    return b.toString();
  }

  @Override
  public String toString() {
    return where + ": " + value;
  }
}

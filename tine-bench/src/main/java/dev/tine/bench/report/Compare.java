package dev.tine.bench.report;

import dev.tine.bench.stats.Bootstrap;
import dev.tine.bench.stats.MannWhitney;
import dev.tine.bench.stats.Ratio;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Run-to-run comparison, as benchstat does it: for each cell found in both runs (same program,
 * parameters, runtime, threads and size), the change of its median time with a 95% interval from
 * resampling each run's rounds on their own, and a Mann-Whitney rank test of the two runs' times. A
 * cell is flagged SLOWER or FASTER only when the rank test rejects "no change" after Holm's
 * correction over all the cells compared (so two runs of the same build flag nothing, except with
 * probability at most {@link #FAMILY_ALPHA}) and the change is at least {@code minChange}.
 *
 * <p>On a shared box the whole machine runs faster or slower from one round to the next and from
 * one run to the next, which would flag every cell. So when both runs have at least {@link
 * #MIN_SEQ_CELLS} sequential cells, each round's times are first divided by that round's speed
 * index (the geometric mean of the round's sequential times; sequential code does not depend on
 * Tine's build), and the flag reads the change of these box-relative times. The raw time change and
 * the index's own change are printed beside it. A smaller run (such as {@code tine bench fib sort})
 * divides each cell by its own program's sequential cell in the same round instead, so that a box
 * that slowed down does not flag every cell, the sequential ones included; those then are the
 * index, and are not flagged.
 */
public final class Compare {
  private Compare() {}

  public enum Verdict {
    SLOWER,
    FASTER,
    SAME
  }

  /** Sequential cells needed in each run for a per-round speed index. */
  static final int MIN_SEQ_CELLS = 3;

  /** The chance that a comparison of two runs of the same build flags any cell at all. */
  public static final double FAMILY_ALPHA = 0.05;

  /** What each cell's times were divided by, round by round, before the flag read them. */
  public enum Index {
    /** The geometric mean of the round's sequential times, over all programs. */
    RUN,
    /** The round's time of the cell's own program's sequential cell. */
    PROGRAM,
    /** Nothing: raw times. */
    NONE
  }

  /**
   * One matched cell; {@code p} is the Mann-Whitney p of the (index-relative) times and {@code
   * holmP} that p adjusted by Holm over all the cells compared: the one the flag reads.
   */
  public record Row(
      String program,
      String runtime,
      int threads,
      double baseMs,
      double newMs,
      Ratio timeChange,
      Ratio change,
      double p,
      double holmP,
      Verdict verdict) {
    public String label() {
      return "seq".equals(runtime) ? "seq" : runtime + " p=" + threads;
    }
  }

  /**
   * The comparison of {@code now} against {@code base}: matched rows, cells found in one run only,
   * the change of the run-wide speed index (NONE without one), and which index the flags read.
   */
  public record Result(List<Row> rows, int onlyInBase, int onlyNow, Ratio boxChange, Index index) {
    /** True if the flags read times relative to an index (run-wide or per program). */
    public boolean boxRelative() {
      return index != Index.NONE;
    }

    public List<Row> flagged() {
      return rows.stream().filter(r -> r.verdict() != Verdict.SAME).toList();
    }
  }

  static String key(Map<String, Object> m) {
    return m.get("program")
        + "|"
        + m.get("parameters")
        + "|"
        + m.get("runtime")
        + "|"
        + num(m.get("threads"))
        + "|"
        + m.get("size");
  }

  static double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  /** The record's per-round times; a record without them (an older file) gives its median alone. */
  static double[] times(Map<String, Object> m) {
    if (m.get("times_ms") instanceof List<?> l && !l.isEmpty()) {
      return l.stream()
          .mapToDouble(x -> x instanceof Number n ? n.doubleValue() : Double.NaN)
          .toArray();
    }
    return new double[] {num(m.get("median_ms"))};
  }

  /**
   * Per round, the geometric mean of the run's sequential times; null with too few sequential
   * cells.
   */
  static double[] speedIndex(List<Map<String, Object>> run) {
    List<double[]> seqs = new ArrayList<>();
    for (Map<String, Object> m : run) {
      if ("seq".equals(m.get("runtime")) && m.get("times_ms") instanceof List<?>)
        seqs.add(times(m));
    }
    if (seqs.size() < MIN_SEQ_CELLS) return null;
    int rounds = seqs.stream().mapToInt(a -> a.length).max().orElse(0);
    double[] index = new double[rounds];
    for (int i = 0; i < rounds; i++) {
      double logSum = 0;
      int n = 0;
      for (double[] t : seqs) {
        if (i < t.length && t[i] > 0 && Double.isFinite(t[i])) {
          logSum += Math.log(t[i]);
          n++;
        }
      }
      index[i] = n == 0 ? Double.NaN : Math.exp(logSum / n);
    }
    return index;
  }

  public static Result compare(
      List<Map<String, Object>> base, List<Map<String, Object>> now, double minChange) {
    Map<String, Map<String, Object>> baseByKey = new LinkedHashMap<>();
    for (Map<String, Object> m : base) baseByKey.put(key(m), m);
    double[] ib = speedIndex(base), in = speedIndex(now);
    boolean runIndex = ib != null && in != null;
    boolean programIndex = false;
    record Pending(
        Map<String, Object> now, Map<String, Object> base, Ratio time, Ratio change, double p) {}
    List<Pending> pending = new ArrayList<>();
    for (Map<String, Object> n : now) {
      Map<String, Object> b = baseByKey.get(key(n));
      if (b == null) continue;
      double[] tn = times(n), tb = times(b);
      double[] jn = in, jb = ib;
      if (!runIndex) { // a small run: the program's own sequential cell, round by round
        Map<String, Object> sn = seqOf(now, n), sb = seqOf(base, b);
        jn = sn == null ? null : times(sn);
        jb = sb == null ? null : times(sb);
      }
      boolean relative =
          jn != null
              && jb != null
              && tn.length > 1
              && tb.length > 1
              && tn.length == jn.length
              && tb.length == jb.length;
      if (relative && !runIndex) programIndex = true;
      double[] xn = relative ? divide(tn, jn) : tn, xb = relative ? divide(tb, jb) : tb;
      pending.add(
          new Pending(
              n,
              b,
              Bootstrap.unpairedRatio(tn, tb),
              Bootstrap.unpairedRatio(xn, xb),
              MannWhitney.twoSidedP(xn, xb)));
    }
    double[] holmP = MannWhitney.holmAdjusted(pending.stream().mapToDouble(Pending::p).toArray());
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < pending.size(); i++) {
      Pending q = pending.get(i);
      // the program's own sequential cell is the index when it divided the others: its ratio to
      // itself is 1 in every round, so it says nothing to flag
      boolean isIndex = !runIndex && "seq".equals(q.now().get("runtime"));
      rows.add(
          new Row(
              (String) q.now().get("program"),
              (String) q.now().get("runtime"),
              (int) num(q.now().get("threads")),
              num(q.base().get("median_ms")),
              num(q.now().get("median_ms")),
              q.time(),
              q.change(),
              isIndex && programIndex ? Double.NaN : q.p(),
              isIndex && programIndex ? Double.NaN : holmP[i],
              isIndex && programIndex
                  ? Verdict.SAME
                  : verdict(holmP[i] <= FAMILY_ALPHA, q.change(), minChange)));
    }
    int matched = rows.size();
    Ratio box = runIndex ? Bootstrap.unpairedRatio(in, ib) : Ratio.NONE;
    Index index = runIndex ? Index.RUN : programIndex ? Index.PROGRAM : Index.NONE;
    return new Result(rows, base.size() - matched, now.size() - matched, box, index);
  }

  /** The sequential cell of {@code m}'s program (same parameters and size) in {@code run}. */
  static Map<String, Object> seqOf(List<Map<String, Object>> run, Map<String, Object> m) {
    for (Map<String, Object> x : run) {
      if ("seq".equals(x.get("runtime"))
          && String.valueOf(x.get("program")).equals(String.valueOf(m.get("program")))
          && String.valueOf(x.get("parameters")).equals(String.valueOf(m.get("parameters")))
          && String.valueOf(x.get("size")).equals(String.valueOf(m.get("size")))
          && x.get("times_ms") instanceof List<?>) return x;
    }
    return null;
  }

  static double[] divide(double[] a, double[] b) {
    double[] r = new double[a.length];
    for (int i = 0; i < a.length; i++) r[i] = a[i] / b[i];
    return r;
  }

  static Verdict verdict(boolean rejected, Ratio change, double minChange) {
    if (!rejected) return Verdict.SAME;
    if (change.value() >= 1 + minChange) return Verdict.SLOWER;
    if (change.value() <= 1 / (1 + minChange)) return Verdict.FASTER;
    return Verdict.SAME;
  }

  static String pct(Ratio r) {
    if (!r.known()) return "";
    String v = String.format(Locale.ROOT, "%+.1f%%", 100 * (r.value() - 1));
    if (!Double.isFinite(r.low())) return v;
    return String.format(
        Locale.ROOT, "%s [%+.1f%%, %+.1f%%]", v, 100 * (r.low() - 1), 100 * (r.high() - 1));
  }

  public static void print(Result res, String baseName, double minChange, PrintStream out) {
    out.printf(
        Locale.ROOT,
        "comparison with %s: %d %s in both runs",
        baseName,
        res.rows().size(),
        res.rows().size() == 1 ? "cell" : "cells");
    if (res.onlyInBase() + res.onlyNow() > 0) {
      out.printf(
          Locale.ROOT,
          " (%d only in %s, %d only in this run)",
          res.onlyInBase(),
          baseName,
          res.onlyNow());
    }
    out.println();
    String changeColumn =
        switch (res.index()) {
          case RUN -> "change vs box [95% CI]";
          case PROGRAM -> "change vs own seq [95% CI]";
          case NONE -> "time change [95% CI]";
        };
    out.printf(
        Locale.ROOT,
        "  %-14s %-17s %9s %9s  %-30s %-7s %8s  %s%n",
        "program",
        "runtime",
        "base ms",
        "now ms",
        changeColumn,
        "flag",
        "Holm p",
        res.boxRelative() ? "time change" : "");
    for (Row r : res.rows()) {
      boolean isIndex = res.index() == Index.PROGRAM && "seq".equals(r.runtime());
      String v =
          isIndex
              ? "index"
              : switch (r.verdict()) {
                case SLOWER -> "SLOWER";
                case FASTER -> "FASTER";
                case SAME -> "~";
              };
      out.printf(
          Locale.ROOT,
          "  %-14s %-17s %9.1f %9.1f  %-30s %-7s %8s  %s%n",
          r.program(),
          r.label(),
          r.baseMs(),
          r.newMs(),
          isIndex ? "(the index)" : pct(r.change()),
          v,
          pValue(r.holmP()),
          res.boxRelative() ? pct(r.timeChange().value()) : "");
    }
    List<Row> f = res.flagged();
    long slower = f.stream().filter(r -> r.verdict() == Verdict.SLOWER).count();
    out.printf(
        Locale.ROOT,
        "%d slower, %d faster, %d without a clear change%n",
        slower,
        f.size() - slower,
        res.rows().size() - f.size());
    out.println("columns:");
    out.println("  base ms, now ms: the cell's median time in the base run and in this one;");
    switch (res.index()) {
      case RUN -> {
        out.println(
            "  change vs box: each round's times over that round's speed index (the geometric mean of"
                + " the round's");
        out.println(
            "    sequential times), median now / in the base run: this cancels the box's speed, which"
                + " moves between");
        out.printf(
            Locale.ROOT,
            "    rounds and runs on a shared machine (the index itself changed %s);%n",
            pct(res.boxChange()));
      }
      case PROGRAM -> {
        out.println(
            "  change vs own seq: each round's times over the same round's time of the program's"
                + " sequential cell");
        out.println(
            "    (too few programs for a run-wide index), median now / in the base run: this cancels"
                + " the box's speed;");
        out.println(
            "    the seq rows are that index, so they are not flagged (their time change shows the"
                + " box's);");
      }
      case NONE -> {
        out.println(
            "  time change: median time now / in the base run (no per-round index: no sequential"
                + " cells with times);");
      }
    }
    out.println("    [95% CI]: each run's rounds resampled on their own (seeded);");
    out.printf(
        Locale.ROOT,
        "  flag: SLOWER or FASTER when Holm p is at most %.2f and the change is at least %.0f%%; else ~%n",
        FAMILY_ALPHA,
        100 * minChange);
    out.printf(
        Locale.ROOT,
        "  Holm p: the Mann-Whitney p of the two runs' rounds, adjusted by Holm over these %d cells,"
            + " so that two runs of one build flag any cell at most %.0f%% of the time;%n",
        res.rows().size(),
        100 * FAMILY_ALPHA);
    if (res.boxRelative()) out.println("  time change: the raw median times' change.");
  }

  static String pValue(double p) {
    return Double.isNaN(p) ? "" : p < 1e-4 ? "<0.0001" : String.format(Locale.ROOT, "%.4f", p);
  }

  static String pct(double ratio) {
    return Double.isFinite(ratio) ? String.format(Locale.ROOT, "%+.1f%%", 100 * (ratio - 1)) : "";
  }
}

package dev.tine.bench.run;

import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.stats.Bootstrap;
import dev.tine.bench.stats.Ratio;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a bench run measured: its cells in suite order, per thread count n ≥ 2 the n-thread ceiling
 * measured once per round, and the machine it ran on.
 */
public record BenchResult(
    List<Cell> cells, Map<Integer, List<Double>> ceilingsByThreads, Size size, Machine machine) {
  /** The two-thread ceiling's measurements, one per round. */
  public List<Double> ceilings() {
    return ceilingsByThreads.getOrDefault(2, List.of());
  }

  /** The median two-thread ceiling. */
  public double ceilingMedian() {
    return ceilingMedian(2);
  }

  /** The median n-thread ceiling: 1.0 at one thread, NaN if not measured. */
  public double ceilingMedian(int threads) {
    if (threads == 1) return 1.0;
    double[] a =
        ceilingsByThreads.getOrDefault(threads, List.of()).stream()
            .mapToDouble(Double::doubleValue)
            .sorted()
            .toArray();
    if (a.length == 0) return Double.NaN;
    return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
  }

  public boolean allVerified() {
    return cells.stream().allMatch(Cell::verified);
  }

  /** The sequential cell of {@code c}'s program, or null. */
  public Cell seqTwin(Cell c) {
    return find(c.program, Engine.SEQ, 1);
  }

  /** The JDK cell of the same program at the same thread count, or null. */
  public Cell jdkTwin(Cell c) {
    return find(c.program, Engine.JDK, c.threads);
  }

  /** The jdk-builtin cell of the same program at the same thread count, or null. */
  public Cell builtinTwin(Cell c) {
    return find(c.program, Engine.JDK_BUILTIN, c.threads);
  }

  public Cell find(Program p, Engine e, int threads) {
    for (Cell x : cells) {
      if (x.program == p && x.engine == e && (e == Engine.SEQ || x.threads == threads)) return x;
    }
    return null;
  }

  /**
   * Time over the sequential time, paired per round, with its interval; NONE without a seq cell.
   */
  public Ratio xSeq(Cell c) {
    Cell s = seqTwin(c);
    return s == null ? Ratio.NONE : c.ratioTo(s);
  }

  /** For Tine engines and jdk-builtin: time over the JDK ForkJoinPool time; else NONE. */
  public Ratio vsJdk(Cell c) {
    Cell j = c.engine.isTine() || c.engine == Engine.JDK_BUILTIN ? jdkTwin(c) : null;
    return j == null ? Ratio.NONE : c.ratioTo(j);
  }

  /** For Tine engines: time over the jdk-builtin time; else NONE. */
  public Ratio vsBuiltin(Cell c) {
    Cell b = c.engine.isTine() ? builtinTwin(c) : null;
    return b == null ? Ratio.NONE : c.ratioTo(b);
  }

  /**
   * True if {@code c}'s program is written the same way on both runtimes; false for a rewrite with
   * a Tine-only API ({@link Program#rewriteOf()}), whose JDK twin is another program's JDK version.
   */
  public static boolean likeForLike(Cell c) {
    return c.program.rewriteOf() == null;
  }

  /**
   * Per (engine label, e.g. "tine p=2"): the geometric mean over the programs written the same way
   * on both runtimes ({@link #likeForLike}) of the cell's paired ratio to the JDK, rounds resampled
   * jointly. Only engines compared with the JDK appear. Rewrites are left out: each would divide by
   * a JDK program already counted under its own name.
   */
  public Map<String, GeoMean> geometricMeansVsJdk() {
    Map<String, List<Cell[]>> pairs = new TreeMap<>();
    for (Cell c : cells) {
      if (!likeForLike(c)) continue;
      Cell j = c.engine.isTine() || c.engine == Engine.JDK_BUILTIN ? jdkTwin(c) : null;
      if (j != null && c.runs() > 0 && j.runs() > 0)
        pairs.computeIfAbsent(c.label(), k -> new ArrayList<>()).add(new Cell[] {c, j});
    }
    Map<String, GeoMean> out = new LinkedHashMap<>();
    for (Map.Entry<String, List<Cell[]>> e : pairs.entrySet()) {
      List<double[]> as = new ArrayList<>(), bs = new ArrayList<>();
      for (Cell[] p : e.getValue()) {
        as.add(p[0].timesMs());
        bs.add(p[1].timesMs());
      }
      out.put(e.getKey(), new GeoMean(e.getValue().size(), Bootstrap.geometricMean(as, bs)));
    }
    return out;
  }

  /** A geometric mean of paired ratios over {@code programs} programs. */
  public record GeoMean(int programs, Ratio ratio) {}

  /** The cells grouped by program, in suite order. */
  public Map<Program, List<Cell>> byProgram() {
    Map<Program, List<Cell>> m = new LinkedHashMap<>();
    for (Cell c : cells) m.computeIfAbsent(c.program, k -> new ArrayList<>()).add(c);
    return m;
  }
}

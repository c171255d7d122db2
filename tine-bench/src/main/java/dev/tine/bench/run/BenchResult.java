package dev.tine.bench.run;

import dev.tine.bench.Program;
import dev.tine.bench.Size;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a bench run measured: its cells in suite order and the ceiling measured once per round. */
public record BenchResult(List<Cell> cells, List<Double> ceilings, Size size) {
  public double ceilingMedian() {
    double[] a = ceilings.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    if (a.length == 0) return Double.NaN;
    return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
  }

  public boolean allVerified() {
    return cells.stream().allMatch(Cell::verified);
  }

  /** The sequential cell of {@code c}'s program, or null. */
  public Cell seqTwin(Cell c) {
    for (Cell x : cells) {
      if (x.program == c.program && x.engine == Engine.SEQ) return x;
    }
    return null;
  }

  /** The JDK cell of the same program at the same thread count, or null. */
  public Cell jdkTwin(Cell c) {
    for (Cell x : cells) {
      if (x.program == c.program && x.engine == Engine.JDK && x.threads == c.threads) return x;
    }
    return null;
  }

  /** The cells grouped by program, in suite order. */
  public Map<Program, List<Cell>> byProgram() {
    Map<Program, List<Cell>> m = new LinkedHashMap<>();
    for (Cell c : cells) m.computeIfAbsent(c.program, k -> new ArrayList<>()).add(c);
    return m;
  }
}

package dev.tine.bench.programs;

import dev.tine.bench.Program;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The registry of benchmark programs, in suite order. Adding a program: write one class that
 * implements {@link Program} (see {@link dev.tine.bench.Workload} for what it must provide) and add
 * one line here.
 */
public final class Programs {
  private Programs() {}

  private static final List<Program> SUITE =
      List.of(
          new Fib.Lea(),
          new Fib.Every(),
          new Fib.Join(),
          new ScopeForms.FibScope(),
          new QuickSort(),
          new ScopeForms.QuickSortScope(),
          new Integrate(),
          new ScopeForms.IntegrateScope(),
          new MatrixMultiply(),
          new Jacobi(1),
          new Jacobi(10),
          new CilkSort(),
          new Lu(),
          new Micro(),
          Uts.geometric(),
          Uts.binomial());

  private static final Map<String, Program> ALL;

  static {
    Map<String, Program> m = new LinkedHashMap<>();
    for (Program p : SUITE) {
      if (m.put(p.name(), p) != null)
        throw new IllegalStateException("two programs named " + p.name());
    }
    ALL = Collections.unmodifiableMap(m);
  }

  /**
   * Programs run only when named (or with {@code all}): further forms of a suite program, kept out
   * of the default quick suite so that it stays near a minute.
   */
  private static final java.util.Set<String> NAMED_ONLY =
      java.util.Set.of("quicksort-scope", "integrate-scope");

  /** The default suite: every program but the extra forms in {@link #NAMED_ONLY}. */
  public static List<Program> suite() {
    return SUITE.stream().filter(p -> !NAMED_ONLY.contains(p.name())).toList();
  }

  /** Every program by name, in suite order. */
  public static Map<String, Program> all() {
    return ALL;
  }
}

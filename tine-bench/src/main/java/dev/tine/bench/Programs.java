package dev.tine.bench;

import dev.tine.bench.programs.Fib;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The registry of benchmark programs, in suite order. */
public final class Programs {
  private Programs() {}

  private static final Map<String, Program> ALL = new LinkedHashMap<>();

  static {
    for (Program p : List.<Program>of(new Fib.Lea(), new Fib.Every(), new Fib.Join(), new dev.tine.bench.programs.QuickSort(),
        new dev.tine.bench.programs.Integrate(), new dev.tine.bench.programs.MatrixMultiply(),
        new dev.tine.bench.programs.Jacobi(1), new dev.tine.bench.programs.Jacobi(10),
        new dev.tine.bench.programs.CilkSort(), new dev.tine.bench.programs.Lu(),
        new dev.tine.bench.programs.Micro())) {
      ALL.put(p.name(), p);
    }
  }

  public static Map<String, Program> all() {
    return ALL;
  }
}

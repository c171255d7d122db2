package dev.tine.bench.run;

import java.util.ArrayList;
import java.util.List;

/** The thread counts a bench runs by default. */
public final class Threads {
  private Threads() {}

  /**
   * 1 and 2 on a machine with up to 2 cores (the box's ceiling is the two-thread one); on a larger
   * machine 1, 2, 4, ... up to the core count, and the core count itself.
   */
  public static List<Integer> defaults(int cores) {
    List<Integer> ts = new ArrayList<>(List.of(1, 2));
    for (int t = 4; t <= cores; t *= 2) ts.add(t);
    if (cores > 2 && ts.get(ts.size() - 1) != cores) ts.add(cores);
    return List.copyOf(ts);
  }
}

package dev.tine.bench.programs;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.stream.IntStream;

/**
 * Lea's Jacobi (Lea's paper §4, §4.4): relax an n×n interior (fixed boundary: top edge 1, others 0)
 * by 4-neighbour averaging for a number of steps, double-buffered. The grid splits recursively
 * (larger side first) into tiles of at most {@link #LEAF}²; each pass returns the largest change.
 *
 * <ul>
 *   <li>{@code jacobi}: one parallel pass per step, a barrier (the join of the pass) between steps.
 *   <li>{@code jacobi-sync10}: Lea's variant that synchronizes every 10 steps: each tile copies its
 *       halo at the sync, runs 10 steps privately, and writes its interior back.
 * </ul>
 *
 * Both are deterministic, so every runtime's final grid equals the sequential one bit for bit.
 * {@code jacobi} also has a JDK built-in form: per step, a parallel IntStream over the rows (the
 * same per-cell arithmetic, so the same grid). {@code jacobi-sync10} has none: a stream has no
 * natural way to keep tiles private for 10 steps.
 */
public final class Jacobi implements Program {
  static final int LEAF = 128;
  private final int stepsPerSync;

  public Jacobi(int stepsPerSync) {
    this.stepsPerSync = stepsPerSync;
  }

  @Override
  public String name() {
    return stepsPerSync == 1 ? "jacobi" : "jacobi-sync" + stepsPerSync;
  }

  @Override
  public String description() {
    return stepsPerSync == 1
        ? "Jacobi relaxation, one barrier per step (Lea's paper)"
        : "Jacobi relaxation, a barrier every " + stepsPerSync + " steps (Lea's paper §4.4)";
  }

  /** The two buffers; interior cells are 1..n in each dimension of an (n+2)² array. */
  static final class Grid {
    final int n, w;
    double[] a, b;

    Grid(int n) {
      this.n = n;
      this.w = n + 2;
      a = new double[w * w];
      b = new double[w * w];
      reset();
    }

    void reset() {
      Arrays.fill(a, 0);
      Arrays.fill(b, 0);
      for (int j = 0; j < w; j++) {
        a[j] = 1.0;
        b[j] = 1.0;
      }
    }

    void swap() {
      double[] t = a;
      a = b;
      b = t;
    }
  }

  /** One step on rows [r0, r1) × cols [c0, c1) from g.a into g.b; returns the largest change. */
  static double stepTile(Grid g, int r0, int r1, int c0, int c1) {
    double[] a = g.a, b = g.b;
    int w = g.w;
    double md = 0;
    for (int i = r0; i < r1; i++) {
      int row = i * w;
      for (int j = c0; j < c1; j++) {
        int k = row + j;
        double v = 0.25 * (a[k - w] + a[k + w] + a[k - 1] + a[k + 1]);
        md = Math.max(md, Math.abs(v - a[k]));
        b[k] = v;
      }
    }
    return md;
  }

  /** {@code steps} private steps of a tile: halo copied from g.a at the sync, result into g.b. */
  static double localTile(Grid g, int r0, int r1, int c0, int c1, int steps) {
    int th = r1 - r0 + 2, tw = c1 - c0 + 2, w = g.w;
    double[] x = new double[th * tw], y = new double[th * tw];
    for (int i = 0; i < th; i++) {
      System.arraycopy(g.a, (r0 - 1 + i) * w + c0 - 1, x, i * tw, tw);
    }
    System.arraycopy(x, 0, y, 0, x.length); // the halo stays fixed in both private buffers
    double md = 0;
    for (int s = 0; s < steps; s++) {
      md = 0;
      for (int i = 1; i < th - 1; i++) {
        for (int j = 1; j < tw - 1; j++) {
          int k = i * tw + j;
          double v = 0.25 * (x[k - tw] + x[k + tw] + x[k - 1] + x[k + 1]);
          md = Math.max(md, Math.abs(v - x[k]));
          y[k] = v;
        }
      }
      double[] t = x;
      x = y;
      y = t;
    }
    for (int i = 1; i < th - 1; i++) {
      System.arraycopy(x, i * tw + 1, g.b, (r0 - 1 + i) * w + c0, tw - 2);
    }
    return md;
  }

  static double leaf(Grid g, int r0, int r1, int c0, int c1, int steps) {
    return steps == 1 ? stepTile(g, r0, r1, c0, c1) : localTile(g, r0, r1, c0, c1, steps);
  }

  static double seqPass(Grid g, int r0, int r1, int c0, int c1, int steps) {
    if (r1 - r0 <= LEAF && c1 - c0 <= LEAF) return leaf(g, r0, r1, c0, c1, steps);
    if (r1 - r0 >= c1 - c0) {
      int m = (r0 + r1) >>> 1;
      return Math.max(seqPass(g, r0, m, c0, c1, steps), seqPass(g, m, r1, c0, c1, steps));
    }
    int m = (c0 + c1) >>> 1;
    return Math.max(seqPass(g, r0, r1, c0, m, steps), seqPass(g, r0, r1, m, c1, steps));
  }

  static final class TinePass extends Task<Double> {
    final Grid g;
    final int r0, r1, c0, c1, steps;

    TinePass(Grid g, int r0, int r1, int c0, int c1, int steps) {
      this.g = g;
      this.r0 = r0;
      this.r1 = r1;
      this.c0 = c0;
      this.c1 = c1;
      this.steps = steps;
    }

    @Override
    protected Double compute() {
      if (r1 - r0 <= LEAF && c1 - c0 <= LEAF) return leaf(g, r0, r1, c0, c1, steps);
      TinePass x, y;
      if (r1 - r0 >= c1 - c0) {
        int m = (r0 + r1) >>> 1;
        x = new TinePass(g, r0, m, c0, c1, steps);
        y = new TinePass(g, m, r1, c0, c1, steps);
      } else {
        int m = (c0 + c1) >>> 1;
        x = new TinePass(g, r0, r1, c0, m, steps);
        y = new TinePass(g, r0, r1, m, c1, steps);
      }
      invokeAll(x, y);
      return Math.max(x.join(), y.join());
    }
  }

  static final class JdkPass extends RecursiveTask<Double> {
    final Grid g;
    final int r0, r1, c0, c1, steps;

    JdkPass(Grid g, int r0, int r1, int c0, int c1, int steps) {
      this.g = g;
      this.r0 = r0;
      this.r1 = r1;
      this.c0 = c0;
      this.c1 = c1;
      this.steps = steps;
    }

    @Override
    protected Double compute() {
      if (r1 - r0 <= LEAF && c1 - c0 <= LEAF) return leaf(g, r0, r1, c0, c1, steps);
      JdkPass x, y;
      if (r1 - r0 >= c1 - c0) {
        int m = (r0 + r1) >>> 1;
        x = new JdkPass(g, r0, m, c0, c1, steps);
        y = new JdkPass(g, m, r1, c0, c1, steps);
      } else {
        int m = (c0 + c1) >>> 1;
        x = new JdkPass(g, r0, r1, c0, m, steps);
        y = new JdkPass(g, r0, r1, m, c1, steps);
      }
      invokeAll(x, y);
      return Math.max(x.join(), y.join());
    }
  }

  @Override
  public Workload workload(Size size, Map<String, String> o) {
    int n = Program.intParam(o, "n", size == Size.PAPER ? 4096 : 1024);
    int steps = Program.intParam(o, "steps", size == Size.PAPER ? 100 : 40);
    if (n < 2 || steps < 1) throw new IllegalArgumentException("need n >= 2 and steps >= 1");
    int syncs = (steps + stepsPerSync - 1) / stepsPerSync;
    Grid ref = new Grid(n);
    for (int s = 0; s < syncs; s++) {
      seqPass(ref, 1, n + 1, 1, n + 1, Math.min(stepsPerSync, steps - s * stepsPerSync));
      ref.swap();
    }
    double[] expect = ref.a.clone();
    Grid g = new Grid(n);
    return new Workload() {
      @Override
      public String parameters() {
        return n + "x" + n + ", " + steps + " steps, " + syncs + " barriers, leaf " + LEAF + "²";
      }

      @Override
      public void prepare() {
        g.reset();
      }

      private int stepsAt(int s) {
        return Math.min(stepsPerSync, steps - s * stepsPerSync);
      }

      @Override
      public Object sequential() {
        for (int s = 0; s < syncs; s++) {
          seqPass(g, 1, n + 1, 1, n + 1, stepsAt(s));
          g.swap();
        }
        return g.a;
      }

      @Override
      public Object tine(WorkStealingPool pool) {
        return pool.invoke(
            Task.of(() -> {
              for (int s = 0; s < syncs; s++) {
                new TinePass(g, 1, n + 1, 1, n + 1, stepsAt(s))
                    .invoke(); // the barrier: the pass's join
                g.swap();
              }
              return g.a;
            }));
      }

      @Override
      public Object jdk(ForkJoinPool pool) {
        return pool.invoke(
            new RecursiveTask<double[]>() {
              @Override
              protected double[] compute() {
                for (int s = 0; s < syncs; s++) {
                  new JdkPass(g, 1, n + 1, 1, n + 1, stepsAt(s)).invoke();
                  g.swap();
                }
                return g.a;
              }
            });
      }

      double
          lastChange; // the built-in form's largest change in its last step, as a user would check

      // it

      @Override
      public String jdkBuiltinForm() {
        return stepsPerSync == 1
            ? "IntStream.rangeClosed(1, n).parallel() over rows, per step"
            : null;
      }

      @Override
      public Object jdkBuiltin() {
        for (int s = 0; s < steps; s++) { // one parallel pass over the rows per step
          lastChange =
              IntStream.rangeClosed(1, n)
                  .parallel()
                  .mapToDouble(i -> stepTile(g, i, i + 1, 1, n + 1))
                  .max()
                  .orElse(0);
          g.swap();
        }
        return g.a;
      }

      @Override
      public boolean verify(Object r) {
        return Arrays.equals((double[]) r, expect);
      }
    };
  }
}

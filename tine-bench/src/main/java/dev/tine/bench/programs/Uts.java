package dev.tine.bench.programs;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;

/**
 * Unbalanced tree search, in the style of UTS (Olivier et al., "UTS: an unbalanced tree search
 * benchmark", LCPC 2006): count the nodes of an implicit random tree, one task per node, each node
 * forking all of its children and then joining all of them. The shape is known only by exploring
 * it, so no static split works; it tests many-children fork-all/join-all, not binary divide and
 * conquer.
 *
 * <ul>
 *   <li>{@code uts-geo}: geometric tree: a node at depth d below {@code depth} has a number of
 *       children drawn from a geometric distribution with mean {@code b} (UTS's T1 family).
 *   <li>{@code uts-bin}: binomial tree: the root has {@code b0} children; every other node has
 *       {@code m} children with probability {@code q}, else none (UTS's T3 family; q·m just under 1
 *       gives deep, very unbalanced subtrees).
 * </ul>
 *
 * A node's identity is a 64-bit hash of its parent's and its index (UTS uses SHA-1; here a few
 * rounds of a 64-bit mixer, {@code work} rounds per node, stand in for it). Every version computes
 * the same tree, so the count is exact; the sequential count checks the parallel ones.
 */
public final class Uts implements Program {
  private final boolean binomial;

  private Uts(boolean binomial) {
    this.binomial = binomial;
  }

  public static Uts geometric() {
    return new Uts(false);
  }

  public static Uts binomial() {
    return new Uts(true);
  }

  @Override
  public String name() {
    return binomial ? "uts-bin" : "uts-geo";
  }

  @Override
  public String description() {
    return binomial
        ? "unbalanced tree search, binomial tree, one task per node, fork all children then join all"
        : "unbalanced tree search, geometric tree, one task per node, fork all children then join all";
  }

  /** The tree: parameters and the child rule, shared by every version. */
  record Shape(boolean binomial, double b, int depth, int b0, int m, double q, int work) {
    long child(long id, int i) {
      long x = id + 0x9E3779B97F4A7C15L * (i + 1);
      for (int r = 0; r < work; r++) {
        x = mix(x);
      }
      return x;
    }

    static long mix(long z) {
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }

    /** Uniform in [0, 1) from a node id. */
    static double uniform(long id) {
      return (mix(id ^ 0x5DEECE66DL) >>> 11) * 0x1.0p-53;
    }

    int children(long id, int level) {
      if (binomial) {
        if (level == 0) return b0;
        return uniform(id) < q ? m : 0;
      }
      if (level >= depth) return 0;
      // Geometric with mean b: floor(log(u) / log(1 - p)) with p = 1 / (1 + b).
      double p = 1.0 / (1.0 + b);
      double u = uniform(id);
      return (int) Math.floor(Math.log(1.0 - u) / Math.log(1.0 - p));
    }

    long countSeq(long id, int level) {
      int n = children(id, level);
      long c = 1;
      for (int i = 0; i < n; i++) {
        c += countSeq(child(id, i), level + 1);
      }
      return c;
    }
  }

  static final class TineNode extends Task<Long> {
    final Shape s;
    final long id;
    final int level;

    TineNode(Shape s, long id, int level) {
      this.s = s;
      this.id = id;
      this.level = level;
    }

    @Override
    protected Long compute() {
      int n = s.children(id, level);
      if (n == 0) return 1L;
      TineNode[] kids = new TineNode[n];
      for (int i = 0; i < n; i++) {
        kids[i] = new TineNode(s, s.child(id, i), level + 1);
        kids[i].fork();
      }
      long c = 1;
      for (int i = n - 1; i >= 0; i--) { // newest first: the latent ones run as direct calls
        c += kids[i].join();
      }
      return c;
    }
  }

  static final class JdkNode extends RecursiveTask<Long> {
    final Shape s;
    final long id;
    final int level;

    JdkNode(Shape s, long id, int level) {
      this.s = s;
      this.id = id;
      this.level = level;
    }

    @Override
    protected Long compute() {
      int n = s.children(id, level);
      if (n == 0) return 1L;
      JdkNode[] kids = new JdkNode[n];
      for (int i = 0; i < n; i++) {
        kids[i] = new JdkNode(s, s.child(id, i), level + 1);
        kids[i].fork();
      }
      long c = 1;
      for (int i = n - 1; i >= 0; i--) { // newest first, as the JDK's docs advise
        c += kids[i].join();
      }
      return c;
    }
  }

  @Override
  public Workload workload(Size size, Map<String, String> o) {
    boolean paper = size == Size.PAPER;
    int work = Program.intParam(o, "work", 8);
    Shape shape =
        binomial
            ? new Shape(
                true,
                0,
                0,
                Program.intParam(o, "b0", paper ? 20000 : 2000),
                Program.intParam(o, "m", 8),
                Double.parseDouble(o.getOrDefault("q", "0.1245")),
                work)
            : new Shape(
                false,
                Double.parseDouble(o.getOrDefault("b", "4")),
                Program.intParam(o, "depth", paper ? 12 : 9),
                0,
                0,
                0,
                work);
    if (work < 1 || (shape.binomial() ? shape.q() * shape.m() >= 1 : shape.b() <= 0)) {
      throw new IllegalArgumentException(
          "need work >= 1, and q*m < 1 (binomial) or b > 0 (geometric): the tree must be finite");
    }
    long root = 19;
    long expect = shape.countSeq(root, 0);
    return new Workload() {
      @Override
      public String parameters() {
        return shape.binomial()
            ? "binomial b0="
                + shape.b0()
                + " m="
                + shape.m()
                + " q="
                + shape.q()
                + ", "
                + expect
                + " nodes"
            : "geometric b=" + shape.b() + " depth=" + shape.depth() + ", " + expect + " nodes";
      }

      @Override
      public Object sequential() {
        return shape.countSeq(root, 0);
      }

      @Override
      public Object tine(WorkStealingPool pool) {
        return pool.invoke(new TineNode(shape, root, 0));
      }

      @Override
      public Object jdk(ForkJoinPool pool) {
        return pool.invoke(new JdkNode(shape, root, 0));
      }

      @Override
      public boolean verify(Object r) {
        return r instanceof Long l && l == expect;
      }

      @Override
      public long tasksPerRun() {
        return expect;
      }
    };
  }
}

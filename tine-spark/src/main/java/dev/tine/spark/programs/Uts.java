package dev.tine.spark.programs;

import dev.tine.Scope;
import dev.tine.spark.Divisible;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Unbalanced tree search, geometric tree (UTS's T1 family, after Olivier et al.): count the nodes
 * of an implicit random tree in which a node above {@code depth} has a number of children drawn
 * from a geometric distribution of mean {@code b}. A node's identity is a 64-bit hash of its
 * parent's and its index ({@code work} rounds of a 64-bit mixer stand in for UTS's SHA-1), so the
 * tree, and its count, are the same on every JVM. The shape is known only by exploring it: the cut
 * cannot weigh the parts, so it is level by level, and subtrees differ by orders of magnitude.
 *
 * <p>The same tree as tine-bench's {@code uts-geo} program with the same parameters.
 */
public final class Uts implements Divisible<Uts.Node, Long> {
  private static final long serialVersionUID = 1L;

  /**
   * A node of the tree.
   *
   * @param id its identity, the hash its children's ids and its number of children derive from
   * @param level its depth, 0 at the root
   */
  public record Node(long id, int level) implements Serializable {}

  /** The mean number of children of a node above {@link #depth}. */
  private final double b;

  /** The tree's depth: nodes at this level or deeper have no children. */
  private final int depth;

  /** Rounds of the 64-bit mixer per child id (the work per node). */
  private final int work;

  /** Random paths the size estimator follows per part (0: parts weighed the same). */
  private final int probes;

  /**
   * The tree with these parameters, its parts weighed the same (see {@link #withEstimates}).
   *
   * @param b the mean number of children of a node above {@code depth}
   * @param depth the tree's depth: nodes at this level or deeper have no children
   * @param work rounds of the 64-bit mixer per child id (the work per node)
   */
  public Uts(double b, int depth, int work) {
    this(b, depth, work, 0);
  }

  private Uts(double b, int depth, int work, int probes) {
    this.b = b;
    this.depth = depth;
    this.work = work;
    this.probes = probes;
  }

  /**
   * The same tree, whose parts the driver weighs by Knuth's estimator of a backtrack tree's size
   * (Knuth 1975): {@code probes} random paths from the node down to a leaf, each estimating the
   * subtree's size as 1 + d1 + d1·d2 + ... from the branching factors d met on the way. The paths
   * are seeded by the node's id, so the weight is a pure function of the node. Without it ({@code
   * probes} 0) every part weighs the same and the cut is level by level.
   *
   * @param probes random paths per weighed part; 0 for no estimate
   * @return a problem for the same tree, weighing its parts by the estimate
   */
  public Uts withEstimates(int probes) {
    return new Uts(b, depth, work, probes);
  }

  @Override
  public double weight(Node n) {
    if (probes == 0) {
      return 1;
    }
    SplittableRandom random = new SplittableRandom(mix(n.id ^ 0x2545F4914F6CDD1DL));
    double sum = 0;
    for (int p = 0; p < probes; p++) {
      long id = n.id;
      int level = n.level;
      double width = 1, size = 1;
      for (int k = children(id, level); k > 0; k = children(id, level)) {
        width *= k;
        size += width;
        id = child(id, random.nextInt(k));
        level++;
      }
      sum += size;
    }
    return sum / probes;
  }

  /**
   * The root of the tree grown from {@code seed}.
   *
   * @param seed the tree's seed, the root's id
   * @return the root, at level 0
   */
  public static Node root(long seed) {
    return new Node(seed, 0);
  }

  @Override
  public List<Node> split(Node n) {
    int k = children(n.id, n.level);
    List<Node> out = new ArrayList<>(k);
    for (int i = 0; i < k; i++) {
      out.add(new Node(child(n.id, i), n.level + 1));
    }
    return out;
  }

  @Override
  public Long solve(Scope scope, Node n) {
    return count(scope, n.id, n.level);
  }

  @Override
  public Long combine(Node n, List<Long> parts) {
    long c = 1; // the node itself
    for (long p : parts) c += p;
    return c;
  }

  /**
   * The local program: each node forks its children, halving their index range.
   *
   * @param s the scope of the worker that runs this call
   * @param id the node's id
   * @param level the node's depth
   * @return the number of nodes in the node's subtree, the node included
   */
  public long count(Scope s, long id, int level) {
    int k = children(id, level);
    return k == 0 ? 1 : 1 + range(s, id, level, 0, k);
  }

  private long range(Scope s, long id, int level, int lo, int hi) {
    if (hi - lo == 1) {
      return count(s, child(id, lo), level + 1);
    }
    int mid = (lo + hi) >>> 1;
    return s.joinLong(
        x -> range(x, id, level, lo, mid), x -> range(x, id, level, mid, hi), Long::sum);
  }

  /**
   * The count by plain recursion on one thread: the ground truth.
   *
   * @param n the subtree's root
   * @return the number of nodes in {@code n}'s subtree, {@code n} included
   */
  public long countSequentially(Node n) {
    return countSeq(n.id, n.level);
  }

  private long countSeq(long id, int level) {
    int k = children(id, level);
    long c = 1;
    for (int i = 0; i < k; i++) {
      c += countSeq(child(id, i), level + 1);
    }
    return c;
  }

  long child(long id, int i) {
    long x = id + 0x9E3779B97F4A7C15L * (i + 1);
    for (int r = 0; r < work; r++) {
      x = mix(x);
    }
    return x;
  }

  int children(long id, int level) {
    if (level >= depth) return 0;
    // geometric with mean b: floor(log(u) / log(1 - p)) with p = 1 / (1 + b)
    double p = 1.0 / (1.0 + b);
    double u = uniform(id);
    return (int) Math.floor(Math.log(1.0 - u) / Math.log(1.0 - p));
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static double uniform(long id) {
    return (mix(id ^ 0x5DEECE66DL) >>> 11) * 0x1.0p-53;
  }

  @Override
  public String toString() {
    return "uts-geo(b="
        + b
        + ", depth="
        + depth
        + ", work="
        + work
        + (probes > 0 ? ", " + probes + " probes" : "")
        + ")";
  }
}

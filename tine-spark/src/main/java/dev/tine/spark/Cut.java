package dev.tine.spark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The top of a problem's tree, expanded on the driver: its leaves are the pieces shipped to the
 * executors, its inner nodes are combined on the driver when the pieces' results come back.
 *
 * <p>The expansion splits the heaviest open node first (by {@link Divisible#weight}, ties in the
 * order nodes were made, so equal weights give a level-by-level cut) until there are {@code target}
 * pieces, no node can be split, or the depth limit is reached. Pieces are numbered in the order
 * they ship: heaviest first, so that Spark, which hands tasks out in partition order as slots free
 * up, starts the long ones early and fills the end of the job with the short ones.
 */
final class Cut<P> {

  static final class Node<P> {
    final P problem;
    final int depth;
    final double weight;
    final long seq;
    List<Node<P>> parts; // null: a piece
    int piece = -1;

    Node(P problem, int depth, double weight, long seq) {
      this.problem = problem;
      this.depth = depth;
      this.weight = weight;
      this.seq = seq;
    }
  }

  final Node<P> root;

  /** The pieces in shipping order; {@code pieces.get(i).piece == i}. */
  final List<Node<P>> pieces;

  /** Nodes split on the driver, and the deepest piece. */
  final int splits;

  final int depth;

  private Cut(Node<P> root, List<Node<P>> pieces, int splits, int depth) {
    this.root = root;
    this.pieces = pieces;
    this.splits = splits;
    this.depth = depth;
  }

  private static final Comparator<Node<?>> HEAVIEST_FIRST =
      Comparator.<Node<?>>comparingDouble(n -> -n.weight).thenComparingLong(n -> n.seq);

  private static final Comparator<Node<?>> TREE_ORDER = Comparator.comparingLong(n -> n.seq);

  static <P> Cut<P> expand(
      Divisible<P, ?> problem, P root, int target, int maxDepth, boolean heaviestFirst) {
    long seq = 0;
    Node<P> top = new Node<>(root, 0, problem.weight(root), seq++);
    PriorityQueue<Node<P>> open = new PriorityQueue<>(HEAVIEST_FIRST);
    open.add(top);
    int leaves = 1;
    int splits = 0;
    while (leaves < target && !open.isEmpty()) {
      Node<P> n = open.poll();
      if (n.depth >= maxDepth) {
        continue; // stays a piece
      }
      List<P> parts = problem.split(n.problem);
      if (parts.isEmpty()) {
        continue; // cannot be split: shipped whole
      }
      n.parts = new ArrayList<>(parts.size());
      for (P p : parts) {
        Node<P> child = new Node<>(p, n.depth + 1, problem.weight(p), seq++);
        n.parts.add(child);
        open.add(child);
      }
      leaves += parts.size() - 1;
      splits++;
    }
    List<Node<P>> pieces = new ArrayList<>(leaves);
    collect(top, pieces);
    pieces.sort(heaviestFirst ? HEAVIEST_FIRST : TREE_ORDER);
    int depth = 0;
    for (int i = 0; i < pieces.size(); i++) {
      pieces.get(i).piece = i;
      depth = Math.max(depth, pieces.get(i).depth);
    }
    return new Cut<>(top, pieces, splits, depth);
  }

  private static <P> void collect(Node<P> n, List<Node<P>> out) {
    // iterative: a chain of one-part splits may be deep
    ArrayList<Node<P>> stack = new ArrayList<>();
    stack.add(n);
    while (!stack.isEmpty()) {
      Node<P> x = stack.remove(stack.size() - 1);
      if (x.parts == null) {
        out.add(x);
      } else {
        for (int i = x.parts.size() - 1; i >= 0; i--) {
          stack.add(x.parts.get(i));
        }
      }
    }
  }

  /**
   * Combines the pieces' results ({@code results[i]} is piece i's) up the tree, each node's parts
   * in split order: the order the pieces ran in does not matter.
   */
  <R> R fold(Divisible<P, R> problem, List<R> results) {
    return fold(problem, root, results);
  }

  private static <P, R> R fold(Divisible<P, R> problem, Node<P> n, List<R> results) {
    if (n.parts == null) {
      return results.get(n.piece);
    }
    List<R> parts = new ArrayList<>(n.parts.size());
    for (Node<P> c : n.parts) {
      parts.add(fold(problem, c, results));
    }
    return problem.combine(n.problem, parts);
  }
}

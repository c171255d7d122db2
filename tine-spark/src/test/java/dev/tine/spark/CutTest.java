package dev.tine.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.WorkStealingPool;
import dev.tine.spark.programs.Fib;
import dev.tine.spark.programs.Uts;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The driver's cut and fold alone, without Spark: pieces solved here, in shipping order. */
class CutTest {

  @Test
  void fibCutSplitsTheHeaviestFirstAndFoldsToTheExactValue() {
    Fib fib = new Fib();
    Cut<Integer> cut = Cut.expand(fib, 30, 16, 64, true);
    assertTrue(cut.pieces.size() >= 16, "pieces: " + cut.pieces.size());
    for (int i = 1; i < cut.pieces.size(); i++) {
      assertTrue(cut.pieces.get(i - 1).weight >= cut.pieces.get(i).weight, "heaviest first");
    }
    // splitting the heaviest first: no piece is more than φ² times another that was split from
    int max = cut.pieces.stream().mapToInt(n -> n.problem).max().orElseThrow();
    int min = cut.pieces.stream().mapToInt(n -> n.problem).min().orElseThrow();
    assertTrue(max - min <= 2, "pieces fib(" + min + ") .. fib(" + max + ")");
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      List<Long> results = new ArrayList<>();
      for (Cut.Node<Integer> n : cut.pieces) {
        results.add(pool.invoke(s -> fib.solve(s, n.problem)));
      }
      assertEquals(Fib.exact(30), cut.fold(fib, results));
    }
  }

  @Test
  void utsCutIsLevelByLevelAndFoldsToTheSequentialCount() {
    Uts uts = new Uts(4, 8, 8);
    Uts.Node root = Uts.root(19);
    Cut<Uts.Node> cut = Cut.expand(uts, root, 20, 64, true);
    assertTrue(cut.pieces.size() >= 20);
    // equal weights: a breadth-first cut, so no piece is two levels below another open node
    int minDepth = cut.pieces.stream().mapToInt(n -> n.depth).min().orElseThrow();
    assertTrue(cut.depth - minDepth <= 1, "depths " + minDepth + ".." + cut.depth);
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      List<Long> results = new ArrayList<>();
      for (Cut.Node<Uts.Node> n : cut.pieces) {
        results.add(pool.invoke(s -> uts.solve(s, n.problem)));
      }
      assertEquals(uts.countSequentially(root), cut.fold(uts, results));
    }
  }

  @Test
  void utsEstimatedWeightsArePureAndTheirCutFoldsToTheSequentialCount() {
    Uts uts = new Uts(4, 8, 8).withEstimates(256);
    Uts.Node root = Uts.root(19);
    // A pure function of the node's value: an equal node (another object) weighed by another
    // instance of the problem gets the same weight, so does every JVM (executors weigh the pieces
    // the driver cut). Different nodes get different estimates (the weights are not a constant).
    double w = uts.weight(root);
    assertEquals(w, new Uts(4, 8, 8).withEstimates(256).weight(new Uts.Node(root.id(), 0)));
    assertTrue(w > 1, "weight " + w);
    List<Uts.Node> kids = uts.split(root);
    assertTrue(kids.size() > 1, "children " + kids);
    assertTrue(
        kids.stream().mapToDouble(uts::weight).distinct().count() > 1,
        "the children's weights all equal: " + kids);
    Cut<Uts.Node> cut = Cut.expand(uts, root, 30, 64, true);
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      List<Long> results = new ArrayList<>();
      for (Cut.Node<Uts.Node> n : cut.pieces) {
        results.add(pool.invoke(s -> uts.solve(s, n.problem)));
      }
      assertEquals(uts.countSequentially(root), cut.fold(uts, results));
    }
  }

  @Test
  void nonCommutativeCombineFoldsInSplitOrderNotShippingOrder() {
    MatrixChain chain = new MatrixChain();
    Cut<MatrixChain.Range> cut = Cut.expand(chain, new MatrixChain.Range(0, 5000), 12, 64, true);
    List<MatrixChain.Mat> results = new ArrayList<>();
    for (Cut.Node<MatrixChain.Range> n : cut.pieces) {
      results.add(MatrixChain.sequential(n.problem.lo(), n.problem.hi()));
    }
    // the shipping order is not the tree order (else this test would prove nothing)
    boolean reordered = false;
    for (int i = 1; i < cut.pieces.size(); i++) {
      reordered |= cut.pieces.get(i - 1).problem.lo() > cut.pieces.get(i).problem.lo();
    }
    assertTrue(reordered);
    assertEquals(MatrixChain.sequential(0, 5000), cut.fold(chain, results));
  }

  @Test
  void depthLimitAndUnsplittablePartsStayPieces() {
    Cut<Integer> shallow = Cut.expand(new Fib(), 30, 1000, 2, true);
    assertEquals(2, shallow.depth);
    assertEquals(4, shallow.pieces.size()); // 30 -> 29, 28 -> 28, 27, 27, 26
    Cut<Integer> tiny = Cut.expand(new Fib(), 3, 1000, 64, true);
    assertEquals(3, tiny.pieces.size()); // fib(3) -> fib(1) + fib(1) + fib(0)
    assertEquals(
        2L, tiny.fold(new Fib(), tiny.pieces.stream().map(n -> (long) n.problem).toList()));
  }
}

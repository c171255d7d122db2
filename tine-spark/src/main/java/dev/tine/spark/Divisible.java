package dev.tine.spark;

import dev.tine.Scope;
import java.io.Serializable;
import java.util.List;

/**
 * A divide-and-conquer problem whose top of the tree is cut into pieces: the driver {@link #split
 * splits} the root until there are enough pieces for the cluster, each executor {@link #solve
 * solves} its pieces on its Tine pool (the same {@code Scope} recursion the program runs on one
 * machine), and the driver {@link #combine combines} the results back up the cut tree.
 *
 * <p><b>Contract.</b> Every method must be a pure function of its arguments: no state kept between
 * calls, nothing read from the executor it runs on (a clock, a random source not seeded by the
 * problem, a static counter). Spark runs a piece again when its executor is lost, or twice when
 * speculation is on, and the result is exact only if every run of a piece gives the same value. The
 * problem object, its pieces and their results cross JVMs by Java serialization: they must be
 * {@link Serializable} (checked on the driver before the job starts; see {@link TreeJob}).
 *
 * <p>{@code combine} receives the results in the order {@code split} returned the parts, whatever
 * order the pieces ran in, so a combine that is not commutative (a product of matrices, a
 * concatenation) gives the sequential result.
 *
 * @param <P> a problem, or a piece of it
 * @param <R> a result
 */
public interface Divisible<P, R> extends Serializable {

  /**
   * The parts of {@code problem}, in order; empty when it cannot be split (the driver then ships it
   * whole as one piece). Called on the driver only, for the top of the tree.
   *
   * @param problem the problem or part to split
   * @return its parts, in order; empty if it is a leaf
   */
  List<P> split(P problem);

  /**
   * Solves a piece on an executor: {@code scope} belongs to a worker of the executor's shared
   * {@link dev.tine.WorkStealingPool}, so the piece forks with latent forks as it would locally.
   *
   * @param scope the scope of the pool worker that runs the piece
   * @param piece the piece to solve
   * @return the piece's result
   */
  R solve(Scope scope, P piece);

  /**
   * The result of {@code problem} from the results of its parts, in {@code split}'s order. Called
   * on the driver only.
   *
   * @param problem the problem whose parts were solved
   * @param parts the parts' results, in the order {@code split} returned the parts
   * @return the result of {@code problem}
   */
  R combine(P problem, List<R> parts);

  /**
   * An estimate of the work in {@code problem}, in any unit: the driver splits the heaviest part
   * first and ships the heaviest pieces first. The default (every part the same) cuts the tree
   * level by level, a static cut at a depth.
   *
   * @param problem the problem or part to weigh
   * @return its estimated work, in any unit consistent across parts (default 1)
   */
  default double weight(P problem) {
    return 1;
  }
}

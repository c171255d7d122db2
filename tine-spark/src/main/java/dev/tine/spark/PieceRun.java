package dev.tine.spark;

import dev.tine.WorkStealingPool;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.util.CollectionAccumulator;

/**
 * The function a Spark task runs: solves the pieces of its partition (one, as {@link TreeJob} ships
 * them) on the executor's shared Tine pool and reports each run to the driver.
 *
 * @param <P> the problem's type, and its pieces'
 * @param <R> the result's type
 */
final class PieceRun<P, R>
    implements FlatMapFunction<Iterator<PieceRun.Piece<P>>, PieceRun.Solved<R>> {
  private static final long serialVersionUID = 1L;

  record Piece<P>(int index, P problem) implements Serializable {}

  record Solved<R>(int index, R result) implements Serializable {}

  private final Divisible<P, R> problem;
  private final int cores;
  private final CollectionAccumulator<PieceReport> reports;

  PieceRun(Divisible<P, R> problem, int cores, CollectionAccumulator<PieceReport> reports) {
    this.problem = problem;
    this.cores = cores;
    this.reports = reports;
  }

  @Override
  public Iterator<Solved<R>> call(Iterator<Piece<P>> pieces) {
    WorkStealingPool pool = ExecutorPool.get(cores);
    TaskContext task = TaskContext.get();
    String executor = SparkEnv.get().executorId();
    long pid = ProcessHandle.current().pid();
    List<Solved<R>> out = new ArrayList<>();
    while (pieces.hasNext()) {
      Piece<P> piece = pieces.next();
      long startMillis = System.currentTimeMillis();
      long t0 = System.nanoTime();
      R r = pool.invoke(s -> problem.solve(s, piece.problem()));
      long nanos = System.nanoTime() - t0;
      Shipping.requireSerializable(r, "the result of piece " + piece.index());
      long[] d = ExecutorPool.takeDelta();
      reports.add(
          new PieceReport(
              piece.index(),
              task == null ? 0 : task.attemptNumber(),
              executor,
              pid,
              startMillis,
              nanos,
              d[0],
              d[1],
              d[2],
              d[3]));
      out.add(new Solved<>(piece.index(), r));
    }
    return out.iterator();
  }
}

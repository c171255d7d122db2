package dev.tine.spark;

import dev.tine.PoolStats;
import dev.tine.WorkStealingPool;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.util.CollectionAccumulator;

/**
 * Runs a {@link Divisible} problem on one JVM or on a Spark cluster: one switch, the master.
 *
 * <pre>{@code
 * TreeResult<Long> r = TreeJob.of(new Fib(), 45).run("local-cluster[2,1,1024]");
 * TreeResult<Long> same = TreeJob.of(new Fib(), 45).run("tine[2]"); // one JVM, Tine alone
 * }</pre>
 *
 * <p>On Spark, the driver cuts the top of the tree into {@link #piecesPerCore} times the cluster's
 * cores pieces (splitting the heaviest part first, see {@link Divisible#weight}), checks that the
 * problem and every piece can be serialized, and ships the pieces as one Spark job, one task per
 * piece, heaviest first. Each executor solves its pieces on one shared {@link WorkStealingPool}
 * sized to its cores; the driver combines the results in split order. A lost executor's pieces are
 * run again by Spark; because pieces are pure functions (the contract of {@link Divisible}) the
 * result is the same. Each run of a piece sends a {@link PieceReport} back through an accumulator.
 *
 * @param <P> the problem's type, and its pieces'
 * @param <R> the result's type
 */
public final class TreeJob<P, R> {
  private static final Pattern TINE = Pattern.compile("tine(?:\\[(\\d+)])?");

  private final Divisible<P, R> problem;
  private final P root;
  private int piecesPerCore = 4;
  private int pieces;
  private int maxCutDepth = 64;
  private boolean heaviestFirst = true;

  private TreeJob(Divisible<P, R> problem, P root) {
    this.problem = Objects.requireNonNull(problem, "problem");
    this.root = root;
  }

  /**
   * A job that solves {@code root} with {@code problem}'s split, solve and combine, with the
   * default settings (4 pieces per core, cut depth at most 64, heaviest pieces first).
   *
   * @param <P> the problem's type, and its pieces'
   * @param <R> the result's type
   * @param problem how to split, solve and combine; must not be null
   * @param root the whole problem, the root of the tree
   * @return a new job, to configure and {@link #run(String) run}
   */
  public static <P, R> TreeJob<P, R> of(Divisible<P, R> problem, P root) {
    return new TreeJob<>(problem, root);
  }

  /**
   * Pieces per core of the cluster (default 4): more pieces than task slots, so that Spark, which
   * hands a free slot the next piece, evens out pieces of unequal size.
   *
   * @param k pieces per core, at least 1
   * @return this job
   * @throws IllegalArgumentException if {@code k} is below 1
   */
  public TreeJob<P, R> piecesPerCore(int k) {
    if (k < 1) throw new IllegalArgumentException("piecesPerCore must be at least 1, was " + k);
    this.piecesPerCore = k;
    return this;
  }

  /**
   * The number of pieces to cut, whatever the cluster's size (0: piecesPerCore × cores).
   *
   * @param n the number of pieces, or 0 to size the cut by the cluster
   * @return this job
   * @throws IllegalArgumentException if {@code n} is negative
   */
  public TreeJob<P, R> pieces(int n) {
    if (n < 0) throw new IllegalArgumentException("pieces must be at least 0, was " + n);
    this.pieces = n;
    return this;
  }

  /**
   * The deepest the driver splits (default 64).
   *
   * @param depth the deepest level of the cut, at least 0
   * @return this job
   * @throws IllegalArgumentException if {@code depth} is negative
   */
  public TreeJob<P, R> maxCutDepth(int depth) {
    if (depth < 0) throw new IllegalArgumentException("maxCutDepth must be >= 0, was " + depth);
    this.maxCutDepth = depth;
    return this;
  }

  /**
   * Ship the heaviest pieces first (default), or in tree order (a plain static cut, to compare
   * with).
   *
   * @param on true for heaviest first, false for tree order
   * @return this job
   */
  public TreeJob<P, R> heaviestFirst(boolean on) {
    this.heaviestFirst = on;
    return this;
  }

  /**
   * The switch: {@code tine} or {@code tine[N]} solves the whole problem on this JVM's Tine pool of
   * N workers (all processors by default), without Spark; any other value is a Spark master URL
   * ({@code local[2]}, {@code local-cluster[2,1,1024]}, {@code spark://host:7077}, ...), for which
   * a context is started (its start-up time is reported), the job run, and the context stopped.
   *
   * @param master {@code tine}, {@code tine[N]} or a Spark master URL
   * @return the value and what the run cost
   */
  public TreeResult<R> run(String master) {
    Matcher t = TINE.matcher(master);
    if (t.matches()) {
      int n =
          t.group(1) == null
              ? Runtime.getRuntime().availableProcessors()
              : Integer.parseInt(t.group(1));
      return runHere(n);
    }
    long t0 = System.nanoTime();
    JavaSparkContext sc = SparkContexts.start(master, problem.getClass());
    long startup = System.nanoTime() - t0;
    try {
      return run(sc).withStartup(startup);
    } finally {
      sc.stop();
      if (master.startsWith("local[") || master.equals("local")) {
        ExecutorPool.close(); // the executor was this JVM
      }
    }
  }

  /**
   * Solves the whole problem on a new pool of {@code parallelism} workers in this JVM, without
   * Spark; the result holds one report, for the whole problem.
   *
   * @param parallelism the pool's number of workers
   * @return the value and what the run cost
   */
  public TreeResult<R> runHere(int parallelism) {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(parallelism).name("tine-here").build()) {
      long startMillis = System.currentTimeMillis();
      long t0 = System.nanoTime();
      R value = pool.invoke(s -> problem.solve(s, root));
      long wall = System.nanoTime() - t0;
      PoolStats s = pool.stats();
      PieceReport whole =
          new PieceReport(
              0,
              0,
              "this JVM",
              ProcessHandle.current().pid(),
              startMillis,
              wall,
              s.tasksExecuted(),
              s.steals(),
              s.promotions(),
              Math.max(0, s.cpuNanos()));
      return new TreeResult<>(
          value,
          "tine[" + parallelism + "]",
          wall,
          0,
          1,
          0,
          parallelism,
          parallelism,
          List.of(whole));
    }
  }

  /**
   * Runs the job on a started context (one made by spark-submit, say); does not stop it.
   *
   * @param sc the context to run on
   * @return the value and what the run cost (no start-up time)
   * @throws IllegalArgumentException if the problem, a piece or the declared result type cannot be
   *     serialized (checked on the driver, before the job)
   * @throws IllegalStateException if a piece came back twice or not at all
   */
  public TreeResult<R> run(JavaSparkContext sc) {
    String master = sc.master();
    int executorCores = SparkContexts.executorCores(sc.getConf(), master);
    int totalCores = SparkContexts.totalCores(sc);

    long t0 = System.nanoTime();
    Shipping.requireSerializable(problem, "the problem " + problem.getClass().getName());
    Shipping.requireSerializableResultType(problem);
    int target = pieces > 0 ? pieces : piecesPerCore * totalCores;
    Cut<P> cut = Cut.expand(problem, root, target, maxCutDepth, heaviestFirst);
    List<PieceRun.Piece<P>> shipped = new ArrayList<>(cut.pieces.size());
    for (Cut.Node<P> n : cut.pieces) {
      Shipping.requireSerializable(n.problem, "piece " + n.piece + " (" + n.problem + ")");
      shipped.add(new PieceRun.Piece<>(n.piece, n.problem));
    }
    long cutNanos = System.nanoTime() - t0;

    CollectionAccumulator<PieceReport> reports =
        sc.sc().collectionAccumulator("tine piece reports");
    sc.setJobDescription(
        "tine: " + problem.getClass().getSimpleName() + ", " + shipped.size() + " pieces");
    long t1 = System.nanoTime();
    List<PieceRun.Solved<R>> solved =
        sc.parallelize(shipped, shipped.size())
            .mapPartitions(new PieceRun<>(problem, executorCores, reports))
            .collect();
    long wall = System.nanoTime() - t1;

    Object[] results = new Object[shipped.size()];
    boolean[] seen = new boolean[shipped.size()];
    for (PieceRun.Solved<R> s : solved) {
      if (seen[s.index()]) {
        throw new IllegalStateException("piece " + s.index() + " came back twice");
      }
      seen[s.index()] = true;
      results[s.index()] = s.result();
    }
    for (int i = 0; i < seen.length; i++) {
      if (!seen[i]) throw new IllegalStateException("piece " + i + " did not come back");
    }
    @SuppressWarnings("unchecked")
    List<R> ordered = (List<R>) Arrays.asList(results);
    R value = cut.fold(problem, ordered);
    int cores = executorCores > 0 ? executorCores : Math.max(1, totalCores);
    return new TreeResult<>(
        value,
        master,
        wall,
        cutNanos,
        shipped.size(),
        cut.depth,
        totalCores,
        cores,
        List.copyOf(reports.value()));
  }
}

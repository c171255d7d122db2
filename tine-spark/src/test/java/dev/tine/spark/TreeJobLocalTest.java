package dev.tine.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.Scope;
import dev.tine.spark.programs.Fib;
import dev.tine.spark.programs.Uts;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real Spark in this JVM ({@code local[2]}): one context for the class, the pieces solved on the
 * JVM's shared Tine pool, results checked against sequential ground truth.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class TreeJobLocalTest {
  static JavaSparkContext sc;
  static final AtomicInteger jobsStarted = new AtomicInteger();

  @BeforeAll
  static void start() {
    sc = SparkContexts.start("local[2]");
    sc.sc()
        .addSparkListener(
            new SparkListener() {
              @Override
              public void onJobStart(SparkListenerJobStart e) {
                jobsStarted.incrementAndGet();
              }
            });
  }

  @AfterAll
  static void stop() {
    if (sc != null) sc.stop();
    ExecutorPool.close();
    // no Tine worker is left behind
    assertTrue(
        Thread.getAllStackTraces().keySet().stream()
            .noneMatch(t -> t.isAlive() && t.getName().startsWith("tine-spark-worker")),
        "a tine-spark worker outlived the pool");
  }

  /** {tasks, steals, promotions} of this JVM's executor pool, zeros before it exists. */
  static long[] poolCounters() {
    dev.tine.WorkStealingPool pool = ExecutorPool.current();
    if (pool == null) {
      return new long[3];
    }
    dev.tine.PoolStats s = pool.stats();
    return new long[] {s.tasksExecuted(), s.steals(), s.promotions()};
  }

  @Test
  void fibIsExactAndEveryPieceReportsOnce() {
    ExecutorPool.takeDelta(); // what ran on the pool before (other tests) is not this job's
    long[] before = poolCounters();
    TreeResult<Long> r = TreeJob.of(new Fib(), 30).run(sc);
    long[] after = poolCounters();
    assertEquals(Fib.exact(30), r.value());
    assertTrue(r.pieces() >= 4 * 2, "pieces " + r.pieces()); // 4 per core by default
    Set<Integer> seen = new TreeSet<>();
    for (PieceReport p : r.reports()) {
      assertTrue(seen.add(p.piece()), "piece " + p.piece() + " reported twice");
      assertEquals("driver", p.executor()); // local mode: the driver is the executor
    }
    assertEquals(r.pieces(), seen.size());
    // the executor's Tine pool did the work, and its figures came back through the accumulator
    // The reports carry the pool's own counters: their sums are what the pool counted during the
    // job (nothing else ran on it), and a fib(30) job at parallelism 2 promotes and executes.
    long tasks = r.reports().stream().mapToLong(PieceReport::tasks).sum();
    long steals = r.reports().stream().mapToLong(PieceReport::steals).sum();
    long promotions = r.reports().stream().mapToLong(PieceReport::promotions).sum();
    assertEquals(after[0] - before[0], tasks, "tasks");
    assertEquals(after[1] - before[1], steals, "steals");
    assertEquals(after[2] - before[2], promotions, "promotions");
    assertTrue(tasks >= r.pieces(), "tasks " + tasks);
    assertTrue(promotions > 0, "promotions " + promotions);
    String table = r.table();
    assertTrue(table.contains("driver") && table.contains("steals"), table);
  }

  @Test
  void utsIsExactAgainstTheSequentialCountAndTheOneJvmRun() {
    Uts uts = new Uts(4, 9, 8);
    Uts.Node root = Uts.root(19);
    long expect = uts.countSequentially(root);
    TreeResult<Long> spark = TreeJob.of(uts, root).piecesPerCore(8).run(sc);
    TreeResult<Long> here = TreeJob.of(uts, root).run("tine[2]"); // the switch: no Spark
    assertEquals(expect, spark.value());
    assertEquals(expect, here.value());
    assertTrue(spark.pieces() >= 16, "pieces " + spark.pieces()); // 8 per core
  }

  @Test
  void nonCommutativeCombineIsExactWhateverOrderThePiecesRanIn() {
    MatrixChain chain = new MatrixChain();
    for (boolean heaviestFirst : new boolean[] {true, false}) {
      TreeResult<MatrixChain.Mat> r =
          TreeJob.of(chain, new MatrixChain.Range(0, 20_000))
              .pieces(13)
              .heaviestFirst(heaviestFirst)
              .run(sc);
      assertEquals(MatrixChain.sequential(0, 20_000), r.value(), "heaviestFirst " + heaviestFirst);
    }
  }

  /** A problem that drags a field no JVM can receive. */
  static final class Unshippable extends Fib {
    final Thread owner = Thread.currentThread();
  }

  @Test
  void aProblemThatCannotBeSerializedFailsBeforeTheJobNamingTheClass() {
    int before = jobsStarted.get();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> TreeJob.of(new Unshippable(), 20).run(sc));
    assertTrue(e.getMessage().contains("java.lang.Thread"), e.getMessage());
    assertTrue(e.getMessage().contains(Unshippable.class.getName()), e.getMessage());
    sc.parallelize(List.of(1)).count(); // a job after it: the listener has seen every earlier one
    assertEquals(before + 1, jobsStarted.get(), "a job started for the unshippable problem");
  }

  /** A result that is not Serializable, declared as such. */
  static final class Tally {
    final long n;

    Tally(long n) {
      this.n = n;
    }
  }

  static final class TallyFib implements Divisible<Integer, Tally> {
    @Override
    public List<Integer> split(Integer n) {
      return n < 2 ? List.of() : List.of(n - 1, n - 2);
    }

    @Override
    public Tally solve(Scope s, Integer n) {
      return new Tally(Fib.fib(s, n));
    }

    @Override
    public Tally combine(Integer n, List<Tally> parts) {
      return new Tally(parts.get(0).n + parts.get(1).n);
    }
  }

  @Test
  void aResultTypeThatCannotBeSerializedFailsBeforeTheJobNamingTheClass() {
    int before = jobsStarted.get();
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> TreeJob.of(new TallyFib(), 20).run(sc));
    assertTrue(e.getMessage().contains(Tally.class.getName()), e.getMessage());
    sc.parallelize(List.of(1)).count();
    assertEquals(before + 1, jobsStarted.get(), "a job started for the unshippable result type");
    // the same program runs on one JVM, where nothing is shipped
    assertEquals(Fib.exact(20), TreeJob.of(new TallyFib(), 20).run("tine[2]").value().n);
  }

  /** The result type is an interface: checked on the executor, result by result. */
  static final class OpaqueFib implements Divisible<Integer, Object> {
    @Override
    public List<Integer> split(Integer n) {
      return n < 2 ? List.of() : List.of(n - 1, n - 2);
    }

    @Override
    public Object solve(Scope s, Integer n) {
      return new Tally(Fib.fib(s, n));
    }

    @Override
    public Object combine(Integer n, List<Object> parts) {
      return parts.get(0);
    }
  }

  @Test
  void aResultThatCannotBeSerializedFailsTheJobNamingTheClass() {
    SparkException e =
        assertThrows(SparkException.class, () -> TreeJob.of(new OpaqueFib(), 20).run(sc));
    assertTrue(e.getMessage().contains(Tally.class.getName()), e.getMessage());
    assertTrue(e.getMessage().contains("IllegalArgumentException"), e.getMessage());
  }

  static final class Failing extends Fib {
    @Override
    public Long solve(Scope s, Integer n) {
      if (n == 17) throw new ArithmeticException("piece fib(17) refuses");
      return super.solve(s, n);
    }
  }

  @Test
  void aPieceThatThrowsFailsTheJobWithItsException() {
    SparkException e =
        assertThrows(SparkException.class, () -> TreeJob.of(new Failing(), 22).pieces(8).run(sc));
    assertTrue(e.getMessage().contains("piece fib(17) refuses"), e.getMessage());
    Throwable root = e;
    while (root.getCause() != null) root = root.getCause();
    assertInstanceOf(Throwable.class, root);
    // the context survives a failed job
    assertEquals(Fib.exact(22), TreeJob.of(new Fib(), 22).run(sc).value());
  }
}

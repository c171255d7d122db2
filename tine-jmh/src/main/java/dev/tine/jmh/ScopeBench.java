package dev.tine.jmh;

import dev.tine.Task;
import dev.tine.Tine;
import dev.tine.WorkStealingPool;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one unpromoted join, per join, for the three join forms on the same recursion,
 * fib(25) forking at every call (121,392 joins), in a pool of {@code parallelism} workers: {@code
 * scope} ({@code dev.tine.Scope#joinLong}, the scope passed down as a parameter), {@code
 * threadLocal} ({@code Tine.joinLong}, which looks the worker up per join) and {@code seq} (plain
 * recursion). "Added per join" is {@code X - seq}. {@code -prof gc} gives bytes per join.
 *
 * <pre>
 * java -jar tine-jmh/target/benchmarks.jar ScopeBench -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xss16m"})
public class ScopeBench {
  static final int N = 25;
  static final int JOINS = 121_392;

  @Param({"1"})
  int parallelism;

  WorkStealingPool pool;

  @Setup(Level.Trial)
  public void setUp() {
    pool = WorkStealingPool.builder().parallelism(parallelism).recordStats(false).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    pool.close();
  }

  static long seq(int n) {
    return n < 2 ? n : seq(n - 1) + seq(n - 2);
  }

  static long scopeFib(dev.tine.Scope s, int n) {
    return n < 2
        ? n
        : s.joinLong(ScopeBench::scopeFib, n - 1, ScopeBench::scopeFib, n - 2, Long::sum);
  }

  static long tineFib(int n) {
    return n < 2
        ? n
        : Tine.joinLong(ScopeBench::tineFib, n - 1, ScopeBench::tineFib, n - 2, Long::sum);
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long seq() {
    return seq(N);
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long scope() {
    return pool.<Long>invoke(s -> scopeFib(s, N));
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long threadLocal() {
    return pool.invoke(Task.of(() -> tineFib(N)));
  }
}

package dev.tine.jmh;

import dev.tine.WorkStealingPool;
import java.util.concurrent.TimeUnit;
import java.util.function.LongBinaryOperator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How far the scope join is from the least a recorded join can cost on HotSpot: fib(25) forking at
 * every call (121,392 joins), per join, in four forms.
 *
 * <ul>
 *   <li>{@code seq}: plain recursion.
 *   <li>{@code scope}: {@code dev.tine.Scope#joinLong} in a one-worker pool.
 *   <li>{@code floorJoinMethod}: the same call shape as the scope join (a join method taking two
 *       functions, a combiner) over a stack that does only what every recorded join must: compare
 *       the slot's function, store the argument and the top index, and at the join compare and
 *       store the top index. None of the checks that keep the real stack correct under stealing and
 *       claims (empty and full stack, the claim word, the deque to stock), so it is a floor, not an
 *       alternative: it would lose forks in a pool.
 *   <li>{@code floorInline}: the same bookkeeping written into the recursion by hand, with no
 *       functional interfaces: what the bookkeeping costs with nothing else.
 * </ul>
 *
 * <pre>
 * java -jar tine-jmh/target/benchmarks.jar JoinFloorBench -f 2 -prof gc
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
public class JoinFloorBench {
  static final int N = 25;
  static final int JOINS = 121_392;

  WorkStealingPool pool;

  @Setup(Level.Trial)
  public void setUp() {
    pool = WorkStealingPool.builder().parallelism(1).recordStats(false).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    pool.close();
  }

  /** The floor's stack: one thread only, no checks (see the class comment). */
  static final class Floor {
    final Object[] items = new Object[1024];
    final long[] args = new long[1024];
    int top;

    interface IntToLong {
      long apply(Floor s, int x);
    }

    long joinLong(IntToLong f, int a, IntToLong g, int b, LongBinaryOperator combine) {
      int t = top;
      Object[] it = items;
      if (it[t] != g) {
        it[t] = g;
      }
      args[t] = b;
      top = t + 1;
      long ra = f.apply(this, a);
      if (top != t + 1) {
        throw new IllegalStateException("unbalanced");
      }
      top = t;
      return combine.applyAsLong(ra, g.apply(this, b));
    }

    static long fib(Floor s, int n) {
      return n < 2 ? n : s.joinLong(Floor::fib, n - 1, Floor::fib, n - 2, Long::sum);
    }

    static final Object FIB = new Object();

    static long fibInline(Floor s, int n) {
      if (n < 2) {
        return n;
      }
      int t = s.top;
      Object[] it = s.items;
      if (it[t] != FIB) {
        it[t] = FIB;
      }
      s.args[t] = n - 2;
      s.top = t + 1;
      long a = fibInline(s, n - 1);
      if (s.top != t + 1) {
        throw new IllegalStateException("unbalanced");
      }
      s.top = t;
      return a + fibInline(s, n - 2);
    }
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long seq() {
    return ScopeBench.seq(N); // the same recursions as ScopeBench's
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long scope() {
    return pool.<Long>invoke(s -> ScopeBench.scopeFib(s, N));
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long floorJoinMethod() {
    return Floor.fib(new Floor(), N);
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long floorInline() {
    return Floor.fibInline(new Floor(), N);
  }
}

package dev.tine.jmh;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.programs.Fib;
import java.util.concurrent.ForkJoinPool;
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
 * The cost of one fork+join, per join: each benchmark computes fib(25) forking at every call (seed
 * 000's programs 1 and 2 and the {@code Tine.joinLong} fib, from the bench's {@code Fib}) (121,392
 * joins) inside a pool of {@code parallelism} workers, and JMH divides by the number of joins
 * ({@link OperationsPerInvocation}). {@code seq} is the same recursion without forks, so "added per
 * join" is {@code X - seq}. With {@code -prof gc}, {@code gc.alloc.rate.norm} is bytes per join:
 * the one Task that pool.invoke needs per tree is 1/121,392 of it.
 *
 * <pre>
 * java -jar tine-jmh/target/benchmarks.jar JoinBench -prof gc
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
public class JoinBench {
  static final int N = 25;
  static final int JOINS = 121_392; // fib(26) - 1 internal nodes of fib(25)

  @Param({"1"})
  int parallelism;

  WorkStealingPool latent, eager, latentNoStats;
  ForkJoinPool jdk;

  @Setup(Level.Trial)
  public void setUp() {
    latent = WorkStealingPool.builder().parallelism(parallelism).build();
    latentNoStats = WorkStealingPool.builder().parallelism(parallelism).recordStats(false).build();
    eager = WorkStealingPool.builder().parallelism(parallelism).eagerForks(true).build();
    jdk = new ForkJoinPool(parallelism);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    latent.close();
    latentNoStats.close();
    eager.close();
    jdk.shutdownNow();
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long seq() {
    return Fib.seqFib(N);
  }

  /** Tine.joinLong, unpromoted at parallelism 1: the "added per unpromoted join" figure. */
  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long primitiveJoinLatent() {
    return latent.invoke(Task.of(() -> Fib.joinFib(N)));
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long primitiveJoinLatentNoStats() {
    return latentNoStats.invoke(Task.of(() -> Fib.joinFib(N)));
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long taskForkJoinLatent() {
    return latent.invoke(new Fib.TineEvery(N));
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long taskForkJoinLatentNoStats() {
    return latentNoStats.invoke(new Fib.TineEvery(N));
  }

  /**
   * The fork/join tuning study's program 2 with {@code fork()} and {@code join()} replaced by a
   * direct call of the forked task's computation, the task still allocated and published (a plain
   * static store, so that escape analysis cannot remove it, as the latent stack's store cannot be
   * removed): what the task objects, the boxed result and the calls cost with no scheduling at all.
   * {@code taskForkJoinLatent} minus this is what the runtime adds per fork and join.
   */
  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long taskObjectsNoScheduling() {
    sink = new Object[1]; // young for the whole tree, like the latent stack's rotated arrays
    return new ObjectsOnly(N).run();
  }

  static Object[] sink;

  /** The task shape of {@code Fib.TineEvery}, never forked. */
  static final class ObjectsOnly extends Task<Long> {
    final int n;

    ObjectsOnly(int n) {
      this.n = n;
    }

    @Override
    protected Long compute() {
      return run(n);
    }

    long run() {
      return run(n);
    }

    static long run(int n) {
      if (n <= 1) return n;
      ObjectsOnly f1 = new ObjectsOnly(n - 2);
      sink[0] = f1; // escapes, as a fork's store into the latent stack makes it
      return run(n - 1) + f1.compute();
    }
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long taskForkJoinEager() {
    return eager.invoke(new Fib.TineEvery(N));
  }

  @Benchmark
  @OperationsPerInvocation(JOINS)
  public long taskForkJoinJdk() {
    return jdk.invoke(new Fib.JdkEvery(N));
  }
}

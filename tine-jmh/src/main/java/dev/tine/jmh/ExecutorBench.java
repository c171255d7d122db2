package dev.tine.jmh;

import dev.tine.executor.MeasuredExecutor;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * What measuring costs: throughput of short tasks through a plain ThreadPoolExecutor and through a
 * MeasuredExecutor on the same pool size and queue. Each invocation submits 1000 tasks of about
 * {@code work} Blackhole tokens (about 1 µs at 500, 10 µs at 5000) and waits for all of them.
 *
 * <pre>
 * java -jar tine-jmh/target/benchmarks.jar ExecutorBench
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ExecutorBench {
  static final int BATCH = 1000;

  @Param({"500", "5000"})
  int work;

  @Param({"2"})
  int threads;

  ExecutorService plain, measured, sampled;

  @Setup(Level.Trial)
  public void setUp() {
    plain =
        new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
    measured =
        MeasuredExecutor.builder().name("jmh").poolSize(threads).registerMXBean(false).build();
    sampled =
        MeasuredExecutor.builder()
            .name("jmh-sampled")
            .poolSize(threads)
            .sampling(16)
            .registerMXBean(false)
            .build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    plain.shutdownNow();
    measured.shutdownNow();
    sampled.shutdownNow();
  }

  private void batch(ExecutorService ex) throws InterruptedException {
    CountDownLatch done = new CountDownLatch(BATCH);
    int w = work;
    for (int i = 0; i < BATCH; i++) {
      ex.execute(() -> {
        Blackhole.consumeCPU(w);
        done.countDown();
      });
    }
    done.await();
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void threadPoolExecutor() throws InterruptedException {
    batch(plain);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void measuredExecutor() throws InterruptedException {
    batch(measured);
  }

  /** Timing one task in 16; counts exact. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void measuredExecutorSampled() throws InterruptedException {
    batch(sampled);
  }
}

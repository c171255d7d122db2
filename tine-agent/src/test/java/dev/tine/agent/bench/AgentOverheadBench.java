package dev.tine.agent.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * ThreadPoolExecutor throughput, to run with and without the agent ({@link AgentOverhead} does
 * both, interleaved): one pool thread runs batches of tasks that each spin for {@code taskMicros};
 * the score is the time per task, so the agent's cost per task is the difference of two scores. The
 * pool thread is the bottleneck (the submitter runs on the other core), so this is the cost on the
 * task path: the agent's work in {@code getTask} and, when the submitter cannot keep ahead, in
 * {@code execute}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class AgentOverheadBench {
  static final int BATCH = 2000;

  @Param({"1", "10"})
  public int taskMicros;

  private ThreadPoolExecutor pool;

  @Setup(Level.Trial)
  public void setUp() {
    pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
    pool.prestartAllCoreThreads();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    pool.shutdown();
    pool.awaitTermination(10, TimeUnit.SECONDS);
  }

  /** A task: spins for its time, the last one of a batch opens the latch. */
  static final class Spin implements Runnable {
    final long nanos;
    final AtomicInteger left;
    final CountDownLatch done;

    Spin(long nanos, AtomicInteger left, CountDownLatch done) {
      this.nanos = nanos;
      this.left = left;
      this.done = done;
    }

    @Override
    public void run() {
      long end = System.nanoTime() + nanos;
      while (System.nanoTime() < end) Thread.onSpinWait();
      if (left.decrementAndGet() == 0) done.countDown();
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void tasks() throws InterruptedException {
    AtomicInteger left = new AtomicInteger(BATCH);
    CountDownLatch done = new CountDownLatch(1);
    long nanos = taskMicros * 1000L;
    for (int i = 0; i < BATCH; i++) pool.execute(new Spin(nanos, left, done));
    done.await();
  }
}

package dev.tine.agent.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.executor.PoolSizeAdvisor;
import org.junit.jupiter.api.Test;

/** Each kind of advice from the figures that call for it, told apart by type, not by text. */
class SizeAdviceTest {
  /** A window's figures: λ (per second), S and C (ms), arrivals and completions in it. */
  private static PoolFigures window(double lambda, double serviceMs, double cpuMs, long tasks) {
    PoolFigures f = new PoolFigures();
    f.arrivalRate = lambda;
    f.serviceMs = serviceMs;
    f.cpuPerTaskMs = cpuMs;
    f.windowArrivals = tasks;
    f.windowCompleted = tasks;
    return f;
  }

  /** A server family that names its setting and always shows one more figure. */
  private static final ServerFamily SERVER =
      new ServerFamily() {
        @Override
        public String label() {
          return "Server";
        }

        @Override
        public boolean readSizes(Object pool, PoolFigures f) {
          return false;
        }

        @Override
        public String advice(int threads, PoolFigures f) {
          return "maxThreads=" + threads;
        }

        @Override
        public String extras() {
          return "busy 3 of 4";
        }
      };

  @Test
  void idleAndTooFewTimed() {
    PoolFigures idle = window(0, Double.NaN, Double.NaN, 0);
    SizeAdvice.advise(idle, 4, null);
    assertEquals(SizeAdvice.Kind.IDLE, idle.advice);
    assertEquals("idle", idle.recommendation);

    PoolFigures early = window(50, Double.NaN, Double.NaN, 0);
    early.windowArrivals = 25; // arrived, none timed done yet
    SizeAdvice.advise(early, 4, null);
    assertEquals(SizeAdvice.Kind.TOO_FEW_TIMED, early.advice);
    assertEquals(-1, early.recommendedSize);
  }

  /**
   * No arrival and no end in the window, with L set to the tasks running all through it (a Netty
   * group's run loops as tasks of a JDK pool): busy, not idle, and no size.
   */
  @Test
  void tasksRunningThroughTheWindowAreNotIdle() {
    PoolFigures f = window(0, Double.NaN, Double.NaN, 0);
    f.littlesL = 4;
    SizeAdvice.advise(f, 2, null);
    assertEquals(SizeAdvice.Kind.RUNNING_THROUGH, f.advice, f.recommendation);
    assertEquals(
        "no arrival; 4 tasks ran through the window, none ended: nothing to size from",
        f.recommendation);
    assertEquals(-1, f.recommendedSize);
  }

  @Test
  void sizedInTheServersTerms() {
    // 100/s of 10 ms: one thread busy on average; the advisor's own answer for the same inputs
    PoolFigures f = window(100, 10, Double.NaN, 500);
    SizeAdvice.advise(f, 4, SERVER);
    int size =
        PoolSizeAdvisor.advise(
                new PoolSizeAdvisor.Inputs(100, 10, Double.NaN, 4, 0.8, 90, 10, 4096))
            .poolSize();
    assertEquals(SizeAdvice.Kind.SIZED, f.advice, f.recommendation);
    assertEquals(size, f.recommendedSize);
    assertTrue(f.recommendation.endsWith("; maxThreads=" + size), f.recommendation);
  }

  @Test
  void cpuBoundWhenTheCoresCannotKeepUp() {
    // 800/s × 5 ms of CPU = 4 cores of CPU, on 2
    PoolFigures f = window(800, 10, 5, 8000);
    SizeAdvice.advise(f, 2, SERVER);
    assertEquals(SizeAdvice.Kind.CPU_BOUND, f.advice, f.recommendation);
    assertEquals(
        "CPU-bound: needs 4.00 cores of 2; more threads will not help; busy 3 of 4",
        f.recommendation);
    assertEquals(-1, f.recommendedSize);
  }

  @Test
  void noSizeUpToTheMaximum() {
    // 10^6/s of 10 ms: 10,000 threads busy, more than the 4,096 considered
    PoolFigures f = window(1_000_000, 10, Double.NaN, 1_000_000);
    SizeAdvice.advise(f, 4, null);
    assertEquals(SizeAdvice.Kind.NO_SIZE, f.advice, f.recommendation);
    assertTrue(f.recommendation.startsWith("no pool size up to 4096"), f.recommendation);
  }
}

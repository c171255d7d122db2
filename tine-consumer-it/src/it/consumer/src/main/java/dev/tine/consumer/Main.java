package dev.tine.consumer;

import dev.tine.Task;
import dev.tine.Tine;
import dev.tine.WorkStealingPool;
import dev.tine.executor.ExecutorSnapshot;
import dev.tine.executor.MeasuredExecutor;
import dev.tine.micrometer.ExecutorSnapshotMetrics;
import dev.tine.micrometer.WorkStealingPoolMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;

/**
 * Uses each library module's API; {@code args[0]}: "module" or "class", where it should be running.
 */
public final class Main {
  static final class Fib extends Task<Long> {
    final int n;

    Fib(int n) {
      this.n = n;
    }

    @Override
    protected Long compute() {
      if (n < 2) return (long) n;
      Fib f1 = new Fib(n - 2);
      f1.fork();
      return new Fib(n - 1).compute() + f1.join();
    }
  }

  public static void main(String[] args) throws Exception {
    boolean modular = args[0].equals("module");
    check(Main.class.getModule().isNamed() == modular, "Main on the " + args[0] + " path");
    check(
        WorkStealingPool.class.getModule().isNamed() == modular,
        "tine-core named iff on the module path");
    if (modular) {
      check(WorkStealingPool.class.getModule().getName().equals("dev.tine"), "module dev.tine");
      check(
          MeasuredExecutor.class.getModule().getName().equals("dev.tine.executor"),
          "module dev.tine.executor");
      check(
          WorkStealingPoolMetrics.class.getModule().getName().equals("dev.tine.micrometer"),
          "module dev.tine.micrometer");
    }

    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (WorkStealingPool pool =
            WorkStealingPool.builder().name("consumer-fj").parallelism(2).build();
        MeasuredExecutor io = MeasuredExecutor.builder().name("consumer-io").poolSize(2).build()) {
      new WorkStealingPoolMetrics(pool).bindTo(registry);
      ExecutorSnapshotMetrics.of(io).bindTo(registry);

      long fib = pool.invoke(new Fib(20));
      long sum = pool.invoke(Task.of(() -> Tine.reduceLong(0, 1_000_000, 0L, i -> i, Long::sum)));
      check(sum == 499_999_500_000L, "reduceLong sum " + sum);
      for (int i = 0; i < 5; i++) {
        io.submit(() -> fib).get(60, TimeUnit.SECONDS);
      }
      // A task is done just before its thread counts it: wait (10 s at most) until the counts
      // settle, the work-stealing pool's workers asleep and the executor's 5 tasks counted.
      ExecutorSnapshot s = io.snapshot();
      for (long end = System.nanoTime() + 10_000_000_000L;
          (s.completed() < 5 || pool.sleepingWorkers() < pool.poolSize())
              && System.nanoTime() < end; ) {
        Thread.sleep(5);
        s = io.snapshot();
      }
      double fjCompleted =
          registry.get("executor.completed").tag("name", "consumer-fj").functionCounter().count();
      double ioCompleted =
          registry.get("executor.completed").tag("name", "consumer-io").functionCounter().count();
      check(fib == 6765, "fib(20) = 6765, was " + fib);
      check(
          fjCompleted == pool.stats().tasksExecuted() && fjCompleted > 1,
          "work-stealing completed " + fjCompleted);
      check(ioCompleted == 5 && s.completed() == 5, "measured completed " + ioCompleted);
      check(pool.mxBeanName() != null && io.mxBeanName() != null, "MXBeans registered");
      System.out.printf(
          "consumer on the %s path: fib(20) = %d; executor.completed %s=%.0f, %s=%.0f; %d meters%n",
          args[0],
          fib,
          "consumer-fj",
          fjCompleted,
          "consumer-io",
          ioCompleted,
          registry.getMeters().size());
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) throw new AssertionError("consumer check failed: " + what);
  }
}

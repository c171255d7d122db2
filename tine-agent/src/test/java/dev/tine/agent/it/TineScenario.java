package dev.tine.agent.it;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** Tine's own pool under the agent: external submissions counted exactly, the rest from its public stats. */
public final class TineScenario {
  static final class Fib extends Task<Long> {
    final int n;

    Fib(int n) {
      this.n = n;
    }

    @Override
    protected Long compute() {
      if (n < 2) return (long) n;
      Fib f = new Fib(n - 2);
      f.fork();
      return new Fib(n - 1).compute() + f.join();
    }
  }

  public static void main(String[] args) throws Exception {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).name("tine-scenario").build()) {
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < 100; i++) fs.add(pool.submit(() -> Thread.onSpinWait()));
      for (int i = 0; i < 50; i++) pool.execute(() -> {});
      List<Callable<Integer>> cs = new ArrayList<>();
      for (int i = 0; i < 10; i++) cs.add(() -> 1);
      pool.invokeAll(cs);
      System.out.println("fib " + pool.invoke(new Fib(20)));
      for (Future<?> f : fs) f.get();
      MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
      ObjectName agent = new ObjectName("dev.tine.agent:type=Agent");
      long t0 = (long) mbs.getAttribute(agent, "Ticks");
      long deadline = System.nanoTime() + 20_000_000_000L;
      while ((long) mbs.getAttribute(agent, "Ticks") < t0 + 2 && System.nanoTime() < deadline) Thread.sleep(100);
      for (ObjectName on : mbs.queryNames(new ObjectName("dev.tine.agent:type=Pool,*"), null)) {
        if (!"WorkStealingPool".equals(mbs.getAttribute(on, "Kind"))) continue;
        System.out.println("A " + mbs.getAttribute(on, "Name") + " arrivals=" + mbs.getAttribute(on, "Arrivals")
            + " parallelism=" + mbs.getAttribute(on, "Parallelism") + " executedAtLeast="
            + ((long) mbs.getAttribute(on, "Completed") >= 161) + " steals=" + ((long) mbs.getAttribute(on, "StealCount") >= 0));
      }
      System.out.println("A failures=" + mbs.getAttribute(agent, "Failures") + " " + mbs.getAttribute(agent, "LastFailure"));
    }
    System.out.println("DONE");
    System.exit(0);
  }
}

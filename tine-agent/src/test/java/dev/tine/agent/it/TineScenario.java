package dev.tine.agent.it;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Tine's own pool under the agent: external submissions counted exactly, the rest from its public
 * stats. Built by reflection and used through {@code ExecutorService}, so this module needs no
 * compile-time dependency on tine-core (which would put tine-core's long test suite into every
 * {@code -pl tine-agent -am} build); TineIT puts tine-core's classes on the class path.
 */
public final class TineScenario {
  public static void main(String[] args) throws Exception {
    Class<?> wsp = Class.forName("dev.tine.WorkStealingPool");
    Object b = wsp.getMethod("builder").invoke(null);
    b.getClass().getMethod("parallelism", int.class).invoke(b, 2);
    b.getClass().getMethod("name", String.class).invoke(b, "tine-scenario");
    ExecutorService pool = (ExecutorService) b.getClass().getMethod("build").invoke(b);
    List<Future<?>> fs = new ArrayList<>();
    for (int i = 0; i < 100; i++) fs.add(pool.submit(() -> Thread.onSpinWait()));
    for (int i = 0; i < 50; i++) pool.execute(() -> {});
    List<Callable<Integer>> cs = new ArrayList<>();
    for (int i = 0; i < 10; i++) cs.add(() -> 1);
    int sum = 0;
    for (Future<Integer> f : pool.invokeAll(cs)) sum += f.get();
    System.out.println("invokeAll " + sum);
    for (Future<?> f : fs) f.get();
    MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
    ObjectName agent = new ObjectName("dev.tine.agent:type=Agent");
    long t0 = (long) mbs.getAttribute(agent, "Ticks");
    long deadline = System.nanoTime() + 20_000_000_000L;
    while ((long) mbs.getAttribute(agent, "Ticks") < t0 + 2 && System.nanoTime() < deadline)
      Thread.sleep(100);
    for (ObjectName on : mbs.queryNames(new ObjectName("dev.tine.agent:type=Pool,*"), null)) {
      if (!"WorkStealingPool".equals(mbs.getAttribute(on, "Kind"))) continue;
      System.out.println(
          "A "
              + mbs.getAttribute(on, "Name")
              + " arrivals="
              + mbs.getAttribute(on, "Arrivals")
              + " parallelism="
              + mbs.getAttribute(on, "Parallelism")
              + " executedAtLeast="
              + ((long) mbs.getAttribute(on, "Completed") >= 160)
              + " steals="
              + ((long) mbs.getAttribute(on, "StealCount") >= 0));
    }
    System.out.println(
        "A failures="
            + mbs.getAttribute(agent, "Failures")
            + " "
            + mbs.getAttribute(agent, "LastFailure"));
    pool.shutdown();
    System.out.println("DONE");
    System.exit(0);
  }
}

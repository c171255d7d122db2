package dev.tine.agent.it;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.IntToLongFunction;
import java.util.function.LongBinaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Tine's own pool under the agent: external submissions counted exactly, the rest from its public
 * stats; prints the agent's figures beside the pool's own counts (what it submitted, its {@code
 * stats()}). Built by reflection and used through {@code ExecutorService}, so this module needs no
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
    long submitted = 160; // 100 submit + 50 execute + 10 invokeAll, each one external push

    // Fork/join work inside the pool (a range reduce, from a submitted task) until the pool's own
    // stats count steals: the agent's steal count is then compared with a number that is not 0.
    Method reduce =
        Class.forName("dev.tine.Tine")
            .getMethod(
                "reduceLong",
                int.class,
                int.class,
                long.class,
                IntToLongFunction.class,
                LongBinaryOperator.class);
    IntToLongFunction slowIdentity =
        i -> {
          long end = System.nanoTime() + 20_000;
          while (System.nanoTime() < end) Thread.onSpinWait();
          return i;
        };
    LongBinaryOperator plus = Long::sum;
    for (long end = System.nanoTime() + 30_000_000_000L;
        own(pool, "steals") == 0 && System.nanoTime() < end; ) {
      submitted++;
      long r = (long) pool.submit(() -> reduce.invoke(null, 0, 2000, 0L, slowIdentity, plus)).get();
      if (r != 1999L * 2000 / 2) throw new AssertionError("reduce gave " + r);
    }
    System.out.println("submitted " + submitted);

    MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
    ObjectName agent = new ObjectName("dev.tine.agent:type=Agent");
    ObjectName on = null;
    // The agent reads the pool's stats at its ticks: read both until a tick has seen the pool's
    // final counts (the pool is quiet now) or 30 s pass.
    long deadline = System.nanoTime() + 30_000_000_000L;
    String line;
    do {
      long t0 = (long) mbs.getAttribute(agent, "Ticks");
      while ((long) mbs.getAttribute(agent, "Ticks") < t0 + 2 && System.nanoTime() < deadline)
        Thread.sleep(100);
      on = null;
      for (ObjectName n : mbs.queryNames(new ObjectName("dev.tine.agent:type=Pool,*"), null)) {
        if ("WorkStealingPool".equals(mbs.getAttribute(n, "Kind"))) on = n;
      }
      long executed = own(pool, "tasksExecuted"), steals = own(pool, "steals");
      line =
          on == null
              ? "A no pool"
              : "A "
                  + mbs.getAttribute(on, "Name")
                  + " arrivals="
                  + mbs.getAttribute(on, "Arrivals")
                  + " parallelism="
                  + mbs.getAttribute(on, "Parallelism")
                  + " completed="
                  + mbs.getAttribute(on, "Completed")
                  + " steals="
                  + mbs.getAttribute(on, "StealCount")
                  + " | pool's own: submitted="
                  + submitted
                  + " executed="
                  + executed
                  + " steals="
                  + steals;
    } while (!agrees(line) && System.nanoTime() < deadline);
    System.out.println(line);
    System.out.println(
        "A failures="
            + mbs.getAttribute(agent, "Failures")
            + " "
            + mbs.getAttribute(agent, "LastFailure"));
    pool.shutdown();
    System.out.println("DONE");
    System.exit(0);
  }

  /** {@code pool.stats().<counter>()}: the pool's own count. */
  private static long own(Object pool, String counter) throws ReflectiveOperationException {
    Object stats = pool.getClass().getMethod("stats").invoke(pool);
    return (long) stats.getClass().getMethod(counter).invoke(stats);
  }

  /** Whether the agent's figures in {@code line} are the pool's own. */
  static boolean agrees(String line) {
    Matcher m = LINE.matcher(line);
    return m.matches()
        && m.group(1).equals(m.group(5))
        && m.group(3).equals(m.group(6))
        && m.group(4).equals(m.group(7));
  }

  /** arrivals, parallelism, completed, steals; then submitted, executed, steals (pool's own). */
  static final Pattern LINE =
      Pattern.compile(
          "A tine-scenario arrivals=(\\d+) parallelism=(\\d+) completed=(\\d+) steals=(\\d+)"
              + " \\| pool's own: submitted=(\\d+) executed=(\\d+) steals=(\\d+)");
}

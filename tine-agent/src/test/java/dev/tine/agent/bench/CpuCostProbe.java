package dev.tine.agent.bench;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * CPU time per task of a ThreadPoolExecutor running empty tasks: the pool thread's and the
 * submitter's, from {@code ThreadMXBean}. Run with and without the agent (see {@link
 * AgentOverhead}); the difference is what the agent adds to each task, in CPU nanoseconds. Unlike
 * wall time it does not move when other processes take the CPUs, so it can be measured on a shared
 * box.
 *
 * <p>Prints {@code PROBE tasks worker_ns_per_task submitter_ns_per_task}.
 */
public final class CpuCostProbe {
  public static void main(String[] args) throws Exception {
    double warmupS = args.length > 0 ? Double.parseDouble(args[0]) : 2,
        measureS = args.length > 1 ? Double.parseDouble(args[1]) : 3;
    var tmx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
    long worker = pool.submit(() -> Thread.currentThread().threadId()).get();
    long me = Thread.currentThread().threadId();
    run(pool, (long) (warmupS * 1e9));
    long w0 = tmx.getThreadCpuTime(worker), s0 = tmx.getThreadCpuTime(me);
    long n = run(pool, (long) (measureS * 1e9));
    long w1 = tmx.getThreadCpuTime(worker), s1 = tmx.getThreadCpuTime(me);
    System.out.printf(
        java.util.Locale.ROOT,
        "PROBE %d %.1f %.1f%n",
        n,
        (w1 - w0) / (double) n,
        (s1 - s0) / (double) n);
    pool.shutdown();
    System.exit(0);
  }

  /** Batches of 2000 empty tasks for about {@code nanos}; returns how many ran. */
  private static long run(ThreadPoolExecutor pool, long nanos) throws InterruptedException {
    long end = System.nanoTime() + nanos, n = 0;
    while (System.nanoTime() < end) {
      AtomicInteger left = new AtomicInteger(2000);
      CountDownLatch done = new CountDownLatch(1);
      for (int i = 0; i < 2000; i++) {
        pool.execute(() -> {
          if (left.decrementAndGet() == 0) done.countDown();
        });
      }
      done.await();
      n += 2000;
    }
    return n;
  }
}

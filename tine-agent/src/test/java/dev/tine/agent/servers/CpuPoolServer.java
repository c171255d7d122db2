package dev.tine.agent.servers;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An oversized pool of CPU-bound tasks: a {@code ThreadPoolExecutor} of {@code threads} threads
 * (core = maximum, an unbounded queue) through which {@code tasks} tasks circulate, each a few
 * hundred microseconds of hashing that, when done, submits its successor (a closed loop: as many
 * tasks in the pool at every moment). Its own log of each task (arrival at {@code execute}, start
 * and end at the pool's extension points) is the truth; {@code cpu} answers the process's CPU time
 * (ms), so throughput can be read per second of CPU the process got on a shared machine. Args:
 * {@code threads tasks rounds}.
 */
public final class CpuPoolServer {
  static final Truth TRUTH = new Truth();

  static final class LoggedPool extends ThreadPoolExecutor {
    private final Map<Runnable, Long> arrivals = new ConcurrentHashMap<>();
    private final ThreadLocal<long[]> running = new ThreadLocal<>();

    LoggedPool(int threads) {
      super(
          threads,
          threads,
          60,
          TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(),
          r -> {
            Thread t = new Thread(r, "cpu-pool-" + SEQ.incrementAndGet());
            t.setDaemon(true);
            return t;
          });
    }

    @Override
    public void execute(Runnable task) {
      arrivals.put(task, System.nanoTime());
      super.execute(task);
    }

    @Override
    protected void beforeExecute(Thread t, Runnable task) {
      Long a = arrivals.remove(task);
      running.set(new long[] {a == null ? 0 : a, System.nanoTime()});
    }

    @Override
    protected void afterExecute(Runnable task, Throwable thrown) {
      long end = System.nanoTime();
      long[] r = running.get();
      if (r != null && r[0] != 0) {
        TRUTH.task(r[0], r[1], end);
        TRUTH.timedRequest(r[0], r[1], end); // each task is the scenario's request
      }
      TRUTH.request();
    }
  }

  static final AtomicInteger SEQ = new AtomicInteger();

  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]), tasks = Integer.parseInt(args[1]);
    int rounds = Integer.parseInt(args[2]);
    LoggedPool pool = new LoggedPool(threads);
    System.out.println("SERVER CpuPool " + threads + " threads, " + tasks + " tasks");
    for (int i = 0; i < tasks; i++) pool.execute(new Circulating(pool, rounds));
    TRUTH.serve(0, pool::shutdownNow);
  }

  /** Hashes, then puts a task like itself into the pool. */
  record Circulating(ThreadPoolExecutor pool, int rounds) implements Runnable {
    @Override
    public void run() {
      Truth.work(0, rounds);
      if (!pool.isShutdown()) pool.execute(new Circulating(pool, rounds));
    }
  }
}

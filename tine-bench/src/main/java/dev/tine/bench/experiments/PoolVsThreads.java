package dev.tine.bench.experiments;

import dev.tine.executor.MeasuredExecutor;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The thread-pool blog post: a server sends 1000 random ints 1..10; the client runs each as a sleep
 * of that many milliseconds, by several strategies. The blog post timed only the client's loop —
 * for a pool that is the time to <em>submit</em> 1000 tasks, not to run them — so both are
 * reported.
 */
public final class PoolVsThreads {
  public record Result(
      String strategy, double submitMs, double elapsedMs, int maxThreads, String note) {
    public Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("strategy", strategy);
      m.put("submit_ms", submitMs);
      m.put("elapsed_ms", elapsedMs);
      m.put("max_threads", maxThreads);
      m.put("note", note);
      return m;
    }
  }

  private final int tasks;

  public PoolVsThreads(int tasks) {
    this.tasks = tasks;
  }

  static void sleepMs(int ms) {
    try {
      TimeUnit.MILLISECONDS.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One strategy: how to run a task, how to finish, and how many threads it used. */
  private record Strategy(String name, String note, Supplier<Runner> make) {}

  private interface Runner extends Consumer<Runnable> {
    default int threads() {
      return -1;
    }

    default void finish() {}
  }

  private static Runner pool(ExecutorService ex, Supplier<Integer> threads) {
    return new Runner() {
      @Override
      public void accept(Runnable r) {
        ex.execute(r);
      }

      @Override
      public int threads() {
        return threads.get();
      }

      @Override
      public void finish() {
        ex.shutdown();
      }
    };
  }

  private List<Strategy> strategies() {
    List<Strategy> s = new ArrayList<>();
    s.add(
        new Strategy(
            "sequential",
            "each sleep on the reading thread",
            () ->
                new Runner() {
                  @Override
                  public void accept(Runnable r) {
                    r.run();
                  }

                  @Override
                  public int threads() {
                    return 1;
                  }
                }));
    s.add(
        new Strategy(
            "thread-per-task",
            "a new platform thread per task",
            () -> {
              List<Thread> started = new ArrayList<>();
              return new Runner() {
                @Override
                public void accept(Runnable r) {
                  Thread t = new Thread(r);
                  t.start();
                  started.add(t);
                }

                @Override
                public int threads() {
                  return started.size();
                }
              };
            }));
    s.add(
        new Strategy(
            "blog-tpe(1,100,LBQ)",
            "core 1, max 100, unbounded queue: extra threads start only when the queue refuses a task, and an unbounded queue never refuses, so it stays at 1 thread",
            () -> {
              ThreadPoolExecutor tpe =
                  new ThreadPoolExecutor(1, 100, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
              return pool(tpe, tpe::getLargestPoolSize);
            }));
    s.add(
        new Strategy(
            "fixed(10)",
            "Executors.newFixedThreadPool(10): 5.5 s of sleeps over 10 threads takes at least 550 ms",
            () -> {
              ThreadPoolExecutor tpe = (ThreadPoolExecutor) Executors.newFixedThreadPool(10);
              return pool(tpe, tpe::getLargestPoolSize);
            }));
    s.add(
        new Strategy(
            "fixed(100)",
            "Executors.newFixedThreadPool(100)",
            () -> {
              ThreadPoolExecutor tpe = (ThreadPoolExecutor) Executors.newFixedThreadPool(100);
              return pool(tpe, tpe::getLargestPoolSize);
            }));
    s.add(
        new Strategy(
            "cached",
            "Executors.newCachedThreadPool(): a thread per task unless one is idle",
            () -> {
              ThreadPoolExecutor tpe = (ThreadPoolExecutor) Executors.newCachedThreadPool();
              return pool(tpe, tpe::getLargestPoolSize);
            }));
    s.add(
        new Strategy(
            "virtual",
            "Executors.newVirtualThreadPerTaskExecutor(): M:N, sleeps park the virtual thread",
            () -> pool(Executors.newVirtualThreadPerTaskExecutor(), () -> -1)));
    s.add(
        new Strategy(
            "measured(10)",
            "Tine's MeasuredExecutor, 10 threads (its figures below)",
            () -> {
              MeasuredExecutor me =
                  MeasuredExecutor.builder()
                      .name("pool-vs-threads")
                      .poolSize(10)
                      .registerMXBean(false)
                      .build();
              lastMeasured = me;
              return pool(me, me::largestPoolSize);
            }));
    return s;
  }

  private MeasuredExecutor lastMeasured;

  public List<Result> run(PrintStream progress) throws IOException, InterruptedException {
    List<Result> results = new ArrayList<>();
    try (IntStreamServer server = new IntStreamServer(tasks, 20110621L)) {
      runOnce(server, strategies().get(3)); // warm-up: class loading, JIT of the client loop
      for (Strategy s : strategies()) {
        if (progress != null) progress.println("  running " + s.name + " ...");
        results.add(runOnce(server, s));
      }
    }
    return results;
  }

  public String measuredSummary() {
    return lastMeasured == null ? "" : lastMeasured.snapshot().toString();
  }

  private Result runOnce(IntStreamServer server, Strategy s)
      throws IOException, InterruptedException {
    Runner runner = s.make.get();
    CountDownLatch done = new CountDownLatch(tasks);
    long start, submitted;
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port());
        DataInputStream in =
            new DataInputStream(new BufferedInputStream(socket.getInputStream()))) {
      start = System.nanoTime();
      for (int i = 0; i < tasks; i++) {
        int ms = in.readInt();
        runner.accept(() -> {
          sleepMs(ms);
          done.countDown();
        });
      }
      submitted = System.nanoTime();
    }
    if (!done.await(10, TimeUnit.MINUTES))
      throw new IllegalStateException(s.name + " did not finish");
    long end = System.nanoTime();
    runner.finish();
    return new Result(
        s.name, (submitted - start) / 1e6, (end - start) / 1e6, runner.threads(), s.note);
  }

  public static void print(List<Result> rs, PrintStream out) {
    out.printf(
        Locale.ROOT, "%-22s %12s %12s %10s%n", "strategy", "submit ms", "elapsed ms", "threads");
    for (Result r : rs) {
      out.printf(
          Locale.ROOT,
          "%-22s %12.1f %12.1f %10s%n",
          r.strategy,
          r.submitMs,
          r.elapsedMs,
          r.maxThreads < 0 ? "-" : Integer.toString(r.maxThreads));
    }
  }
}

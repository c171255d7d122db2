package dev.tine.agent.it;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An application that knows nothing of Tine, with pools to resize: {@code fixed} and {@code other}
 * ({@code newFixedThreadPool(2)}), {@code single} ({@code newSingleThreadExecutor}), {@code
 * handoff} (core 1, maximum 2, a SynchronousQueue) and {@code fj} (a ForkJoinPool of 2). It reads
 * its own pools' sizes through their own getters. Commands on standard input: {@code sizes} (prints
 * {@code SIZES name=core/max ...}), {@code block POOL N} (N tasks that hold their thread), {@code
 * running POOL} (prints {@code RUNNING POOL n}, the tasks running at once), {@code release POOL},
 * {@code external POOL N} (sets the pool's maximum itself, as another tool would), {@code quit}.
 * With the argument {@code jfr}, a JFR stream prints each {@code dev.tine.agent.PoolResized} event
 * as {@code EVENT pool=.. from=.. to=.. why=.. requestedBy=..}.
 */
public final class ResizeScenario {
  private ResizeScenario() {}

  static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("jfr")) {
      var rs = new jdk.jfr.consumer.RecordingStream();
      rs.enable("dev.tine.agent.PoolResized");
      rs.onEvent(
          "dev.tine.agent.PoolResized",
          e ->
              System.out.println(
                  "EVENT pool="
                      + e.getString("pool")
                      + " from="
                      + e.getInt("from")
                      + " to="
                      + e.getInt("to")
                      + " original="
                      + e.getInt("original")
                      + " why="
                      + e.getString("why")
                      + " requestedBy="
                      + e.getString("requestedBy")));
      rs.setMaxAge(Duration.ofSeconds(30));
      rs.startAsync();
    }
    Map<String, ExecutorService> pools = new LinkedHashMap<>();
    pools.put("fixed", Executors.newFixedThreadPool(2, named("fixed")));
    pools.put("other", Executors.newFixedThreadPool(2, named("other")));
    pools.put("single", Executors.newSingleThreadExecutor(named("single")));
    pools.put(
        "handoff",
        new ThreadPoolExecutor(
            1, 2, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), named("handoff")));
    AtomicInteger fjn = new AtomicInteger();
    pools.put(
        "fj",
        new ForkJoinPool(
            2,
            p -> {
              ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
              t.setName("fj-" + fjn.incrementAndGet());
              return t;
            },
            null,
            false));
    // a fixed pool whose core setter refuses above 3: the agent's change fails halfway (after the
    // maximum was raised) and must leave it as it was
    ThreadPoolExecutor brittle =
        new ThreadPoolExecutor(
            2,
            2,
            60,
            TimeUnit.SECONDS,
            new java.util.concurrent.LinkedBlockingQueue<>(),
            named("brittle")) {
          @Override
          public void setCorePoolSize(int n) {
            if (n > 3) throw new IllegalStateException("planted: no core above 3");
            super.setCorePoolSize(n);
          }
        };
    brittle.submit(() -> {}).get();
    // a task on each, so that each has a thread whose name names it
    for (ExecutorService p : pools.values()) p.submit(() -> {}).get();
    Map<String, CountDownLatch> gates = new LinkedHashMap<>();
    Map<String, AtomicInteger> running = new LinkedHashMap<>();
    for (String n : pools.keySet()) {
      gates.put(n, new CountDownLatch(1));
      running.put(n, new AtomicInteger());
    }
    System.out.println("READY " + ProcessHandle.current().pid());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      String[] w = line.trim().split("\\s+");
      switch (w[0]) {
        case "sizes" -> {
          StringBuilder sb = new StringBuilder("SIZES");
          for (var e : pools.entrySet()) {
            if (e.getValue() instanceof ThreadPoolExecutor p)
              sb.append(' ')
                  .append(e.getKey())
                  .append('=')
                  .append(p.getCorePoolSize())
                  .append('/')
                  .append(p.getMaximumPoolSize());
            else if (e.getValue() instanceof ForkJoinPool p)
              sb.append(' ').append(e.getKey()).append('=').append(p.getParallelism());
          }
          System.out.println(sb);
        }
        case "block" -> {
          ExecutorService p = pools.get(w[1]);
          CountDownLatch gate = gates.get(w[1]);
          AtomicInteger r = running.get(w[1]);
          for (int i = 0; i < Integer.parseInt(w[2]); i++)
            p.execute(() -> {
              r.incrementAndGet();
              try {
                gate.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                r.decrementAndGet();
              }
            });
          System.out.println("BLOCKED " + w[1]);
        }
        case "brittle" ->
            System.out.println(
                "BRITTLE " + brittle.getCorePoolSize() + "/" + brittle.getMaximumPoolSize());
        case "running" -> System.out.println("RUNNING " + w[1] + " " + running.get(w[1]).get());
        case "release" -> {
          gates.get(w[1]).countDown();
          gates.put(w[1], new CountDownLatch(1));
          System.out.println("RELEASED " + w[1]);
        }
        case "external" -> {
          ((ThreadPoolExecutor) pools.get(w[1])).setMaximumPoolSize(Integer.parseInt(w[2]));
          System.out.println("EXTERNAL " + w[1]);
        }
        case "quit" -> {
          for (ExecutorService p : pools.values()) p.shutdownNow();
          System.exit(0); // the JFR stream's thread would keep the JVM
        }
        default -> System.out.println("UNKNOWN " + line);
      }
    }
  }
}

package dev.tine.agent.it;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small service for the heap checks: {@code LIVE_MB} of live data held for good, and pools of
 * {@code THREADS} threads each, added on command ({@code pools N}), every one of which keeps
 * running small tasks (each pool gets one every 20 ms), so an agent measures all of them. {@code
 * gc} collects fully (three times) and prints {@code HEAP used=BYTES}.
 */
public final class HeapScenario {
  private HeapScenario() {}

  static final List<byte[]> live = new ArrayList<>();
  static final List<ExecutorService> pools = new ArrayList<>();

  /** Set while the heap is read: the feeder submits nothing, so the queues drain. */
  static volatile boolean paused;

  public static void main(String[] args) throws Exception {
    int liveMb = Integer.parseInt(args[0]), threads = Integer.parseInt(args[1]);
    // in 64 KB pieces: a 1 MB array is a humongous object in G1 and would take twice its size
    for (int i = 0; i < liveMb * 16; i++) live.add(new byte[(1 << 16) - 16]);
    Thread feeder =
        new Thread(
            () -> {
              AtomicInteger sink = new AtomicInteger();
              while (true) {
                List<ExecutorService> ps;
                synchronized (pools) {
                  ps = new ArrayList<>(pools);
                }
                if (!paused) {
                  for (ExecutorService p : ps) {
                    for (int k = 0; k < threads; k++) p.execute(sink::incrementAndGet);
                  }
                }
                try {
                  Thread.sleep(20);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "feeder");
    feeder.setDaemon(true);
    feeder.start();
    System.out.println("READY " + ProcessHandle.current().pid());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.startsWith("pools ")) {
        int n = Integer.parseInt(line.substring(6).trim());
        synchronized (pools) {
          for (int i = 0; i < n; i++) {
            int id = pools.size();
            AtomicInteger t = new AtomicInteger();
            ThreadFactory tf =
                r -> {
                  Thread th = new Thread(r, "p" + id + "-worker-" + t.incrementAndGet());
                  th.setDaemon(true);
                  return th;
                };
            pools.add(Executors.newFixedThreadPool(threads, tf));
          }
        }
        System.out.println("OK pools " + pools.size());
      } else if (line.equals("gc")) {
        // Read with the pools drained: on a loaded machine they fall behind the feeder, and the
        // backlog (a queue node and a task per submission, MBs of it) varied from one reading to
        // the next by more than the agent holds (the same 8 pools of 64 threads without an agent
        // read 123 KB less per pool than 1 of them).
        paused = true;
        awaitDrained();
        long min = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
          System.gc();
          Thread.sleep(100);
          min = Math.min(min, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        paused = false;
        System.out.println("HEAP used=" + min);
      } else if (line.equals("quit")) {
        break;
      }
    }
    System.out.println("BYE live=" + live.size());
  }

  /** Until every pool's queue is empty and no task runs (at most 60 s). */
  static void awaitDrained() throws InterruptedException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    List<ExecutorService> ps;
    synchronized (pools) {
      ps = new ArrayList<>(pools);
    }
    for (ExecutorService p : ps) {
      ThreadPoolExecutor t = (ThreadPoolExecutor) p;
      while ((!t.getQueue().isEmpty() || t.getActiveCount() > 0)
          && System.nanoTime() - deadline < 0) {
        Thread.sleep(10);
      }
    }
  }
}

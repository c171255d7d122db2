package dev.tine.agent.it;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * An application whose pools' queues hold thousands of tasks at once, in bursts, and whose tasks
 * log their own submit, start and end ({@code System.nanoTime()}), to check the agent's Wq and L
 * against in deep queues. Pools {@code five} and {@code fifty}: 4 threads each, an unbounded {@code
 * LinkedBlockingQueue}, tasks that park 200 µs. Commands on standard input:
 *
 * <ul>
 *   <li>{@code run POOL DEPTH PERIOD_MS SECONDS}: every PERIOD_MS, DEPTH tasks submitted at once.
 *   <li>{@code truth FROM_MS TO_MS}: {@code TRUTH tasks=.. wait_ms=.. service_ms=.. rate=.. l=..}
 *       over the tasks that ended in that wall-clock interval (as {@link TruthScenario}).
 *   <li>{@code hold POOL N}: N tasks queued behind the pool's threads, which wait on a gate; {@code
 *       heap} prints {@code HEAP bytes}, {@code idle POOL} waits for an empty queue and idle
 *       threads (used after three full GCs); {@code release} opens the gate.
 * </ul>
 */
public final class DeepQueueScenario {
  private DeepQueueScenario() {}

  static final int MAX = 1 << 21;
  static final long[] submitted = new long[MAX], started = new long[MAX], ended = new long[MAX];
  static final AtomicInteger next = new AtomicInteger();
  static final long OFFSET = System.currentTimeMillis() * 1_000_000L - System.nanoTime();

  /** The longest queue seen right after a burst was submitted. */
  static final AtomicInteger peak = new AtomicInteger();

  static volatile CountDownLatch gate = new CountDownLatch(0);

  public static void main(String[] args) throws Exception {
    ThreadPoolExecutor five = TruthScenario.pool("five", 4), fifty = TruthScenario.pool("fifty", 4);
    TruthScenario.awaitParkedInGetTask(8, "five-", "fifty-");
    System.out.println("READY " + ProcessHandle.current().pid());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      String[] w = line.split(" ");
      switch (w[0]) {
        case "quit" -> {
          return;
        }
        case "truth" -> truth(Long.parseLong(w[1]), Long.parseLong(w[2]));
        case "heap" -> {
          for (int i = 0; i < 3; i++) System.gc();
          Runtime rt = Runtime.getRuntime();
          System.out.println("HEAP " + (rt.totalMemory() - rt.freeMemory()));
        }
        case "idle" -> {
          ThreadPoolExecutor p = w[1].equals("five") ? five : fifty;
          while (p.getQueue().size() > 0 || p.getActiveCount() > 0) Thread.sleep(5);
          System.out.println("IDLE");
        }
        case "hold" -> {
          ThreadPoolExecutor p = w[1].equals("five") ? five : fifty;
          // the pool idle first: only the held tasks in its queue
          while (p.getQueue().size() > 0 || p.getActiveCount() > 0) Thread.sleep(5);
          CountDownLatch g = new CountDownLatch(1);
          gate = g;
          int n = Integer.parseInt(w[2]);
          for (int i = 0; i < n; i++) {
            p.execute(() -> {
              try {
                g.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
          }
          while (p.getQueue().size() < n - p.getMaximumPoolSize()) Thread.sleep(5);
          System.out.println("HELD " + p.getQueue().size());
        }
        case "release" -> {
          gate.countDown();
          ThreadPoolExecutor p = w[1].equals("five") ? five : fifty;
          while (p.getQueue().size() > 0 || p.getActiveCount() > 0) Thread.sleep(5);
          System.out.println("RELEASED");
        }
        case "run" -> {
          ThreadPoolExecutor p = w[1].equals("five") ? five : fifty;
          int depth = Integer.parseInt(w[2]);
          long period = Long.parseLong(w[3]) * 1_000_000L;
          long until = System.nanoTime() + (long) (Double.parseDouble(w[4]) * 1e9);
          String name = w[1];
          Thread driver =
              new Thread(
                  () -> {
                    for (long burst = System.nanoTime(); burst < until; burst += period) {
                      LockSupport.parkNanos(burst - System.nanoTime());
                      for (int k = 0; k < depth; k++) {
                        int i = next.getAndIncrement();
                        submitted[i] = System.nanoTime();
                        p.execute(() -> {
                          started[i] = System.nanoTime();
                          LockSupport.parkNanos(200_000);
                          ended[i] = System.nanoTime();
                        });
                      }
                      peak.accumulateAndGet(p.getQueue().size(), Math::max);
                    }
                    System.out.println("DONE " + name);
                  },
                  "driver-" + name);
          driver.start();
        }
        default -> throw new IllegalArgumentException(line);
      }
    }
  }

  /** As {@link TruthScenario#truth}, and the deepest queue seen by a task: its place at submit. */
  static void truth(long fromMillis, long toMillis) {
    long from = fromMillis * 1_000_000L - OFFSET, to = toMillis * 1_000_000L - OFFSET;
    long tasks = 0, arrived = 0, waitSum = 0, serviceSum = 0, inPool = 0, maxWait = 0;
    int last = next.get();
    for (int i = 0; i < last; i++) {
      long sub = submitted[i], e = ended[i];
      if (sub == 0 || sub > to) continue;
      if (sub >= from) arrived++;
      long leave = e == 0 || e > to ? to : e;
      if (leave > from) inPool += leave - Math.max(sub, from);
      if (e == 0 || e < from || e > to) continue;
      tasks++;
      waitSum += started[i] - sub;
      serviceSum += e - started[i];
      maxWait = Math.max(maxWait, started[i] - sub);
    }
    double secs = (to - from) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "TRUTH tasks=%d wait_ms=%.5f service_ms=%.5f rate=%.3f completions=%.3f l=%.5f"
            + " max_wait_ms=%.3f peak_queue=%d%n",
        tasks,
        waitSum / 1e6 / Math.max(1, tasks),
        serviceSum / 1e6 / Math.max(1, tasks),
        arrived / secs,
        tasks / secs,
        inPool / 1e9 / secs,
        maxWait / 1e6,
        peak.getAndSet(0));
  }
}

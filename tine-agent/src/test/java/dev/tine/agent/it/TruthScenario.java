package dev.tine.agent.it;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * An application that times its own tasks, to check the agent's figures against: three pools made
 * (and their threads started, then idle) before any agent arrives, each fed by a driver thread on
 * command {@code run MODE SECONDS}. {@code truth FROM_MS TO_MS} prints {@code TRUTH tasks=..
 * wait_ms=.. service_ms=.. rate=.. l=..} over the tasks that ended in that wall-clock interval (the
 * agent's window), as the application itself timed them.
 *
 * <ul>
 *   <li>{@code reuse}: 2 threads; one task object resubmitted every 10 ms (a server reusing its
 *       request objects), 2 ms each. Wait is submit → start of {@code run}.
 *   <li>{@code throwing}: 2 threads; a new task every 10 ms that works 2 ms and throws.
 *   <li>{@code micro}: 1 thread; a task every ~50 µs that spins 1 µs.
 * </ul>
 */
public final class TruthScenario {
  private TruthScenario() {}

  static final int MAX = 1 << 21;

  /** Per task: submitted, started, ended (System.nanoTime()); filled by submitter and pool. */
  static final long[] submitted = new long[MAX], started = new long[MAX], ended = new long[MAX];

  static final AtomicInteger next = new AtomicInteger();

  static ThreadPoolExecutor pool(String name, int threads) {
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor p =
        new ThreadPoolExecutor(
            threads,
            threads,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, name + "-" + n.incrementAndGet());
              t.setDaemon(true);
              t.setUncaughtExceptionHandler((th, e) -> {});
              return t;
            });
    p.prestartAllCoreThreads(); // idle in getTask when an agent arrives
    return p;
  }

  /** Waits until {@code threads} threads with one of these name prefixes wait inside getTask. */
  static void awaitParkedInGetTask(int threads, String... prefixes) throws InterruptedException {
    while (true) {
      int parked = 0;
      for (var e : Thread.getAllStackTraces().entrySet()) {
        Thread t = e.getKey();
        boolean ours = false;
        for (String prefix : prefixes) ours |= t.getName().startsWith(prefix);
        if (!ours || t.getState() != Thread.State.WAITING) continue;
        for (StackTraceElement f : e.getValue()) {
          if (f.getMethodName().equals("getTask")) {
            parked++;
            break;
          }
        }
      }
      if (parked == threads) return;
      Thread.sleep(5);
    }
  }

  static void spin(long nanos) {
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() < end) Thread.onSpinWait();
  }

  /**
   * The reused task. Which submission a run serves comes from a FIFO of submission ids: under a
   * loaded machine a run can start after the next submission (its thread was descheduled), and a
   * field set at submit would then give two runs the same id. Two runs taking each other's ids swap
   * their waits, which leaves the sum, and the mean, exact.
   */
  static final class Reused implements Runnable {
    final java.util.concurrent.ConcurrentLinkedQueue<Integer> ids =
        new java.util.concurrent.ConcurrentLinkedQueue<>();

    @Override
    public void run() {
      int i = ids.remove();
      started[i] = System.nanoTime();
      LockSupport.parkNanos(2_000_000);
      ended[i] = System.nanoTime();
    }
  }

  /** Wall-clock nanoseconds minus System.nanoTime(), to answer for wall-clock intervals. */
  static final long OFFSET = System.currentTimeMillis() * 1_000_000L - System.nanoTime();

  public static void main(String[] args) throws Exception {
    ThreadPoolExecutor reuse = pool("reuse", 2),
        throwing = pool("throwing", 2),
        micro = pool("micro", 1);
    Reused reused = new Reused();
    // READY only once every pool thread is parked in getTask: the agent is to arrive into idle
    // pools, and a fixed pause before attaching does not ensure it on a loaded box
    awaitParkedInGetTask(5, "reuse-", "throwing-", "micro-");
    System.out.println("READY " + ProcessHandle.current().pid());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      String[] w = line.split(" ");
      if (w[0].equals("quit")) break;
      if (w[0].equals("truth")) {
        truth(Long.parseLong(w[1]), Long.parseLong(w[2]));
        continue;
      }
      if (!w[0].equals("run")) continue;
      String mode = w[1];
      long until = System.nanoTime() + (long) (Double.parseDouble(w[2]) * 1e9);
      Thread driver =
          new Thread(
              () -> {
                while (System.nanoTime() < until) {
                  int i = next.getAndIncrement();
                  switch (mode) {
                    case "reuse" -> {
                      reused.ids.add(i);
                      submitted[i] = System.nanoTime();
                      reuse.execute(reused);
                      LockSupport.parkNanos(10_000_000);
                    }
                    case "throwing" -> {
                      submitted[i] = System.nanoTime();
                      throwing.execute(() -> {
                        started[i] = System.nanoTime();
                        spin(2_000_000);
                        ended[i] = System.nanoTime();
                        throw new IllegalStateException("planted");
                      });
                      LockSupport.parkNanos(10_000_000);
                    }
                    case "micro" -> {
                      submitted[i] = System.nanoTime();
                      micro.execute(() -> {
                        started[i] = System.nanoTime();
                        spin(1_000);
                        ended[i] = System.nanoTime();
                      });
                      LockSupport.parkNanos(50_000);
                    }
                    default -> throw new IllegalArgumentException(mode);
                  }
                }
                System.out.println("DONE " + mode);
              },
              "driver");
      driver.start();
    }
  }

  /**
   * Prints the truth over a wall-clock interval (ms): the mean wait and service of the tasks that
   * ended in it, the rate of the tasks submitted in it (λ) and of those that ended in it, and
   * Little's L as the time average of the tasks in the pool over it (each task's stay from submit
   * to end, or to the interval's end if it has not ended, clipped to the interval).
   */
  static void truth(long fromMillis, long toMillis) {
    long from = fromMillis * 1_000_000L - OFFSET, to = toMillis * 1_000_000L - OFFSET;
    long tasks = 0, arrived = 0, waitSum = 0, serviceSum = 0, inPool = 0;
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
    }
    double secs = (to - from) / 1e9;
    System.out.printf(
        java.util.Locale.ROOT,
        "TRUTH tasks=%d wait_ms=%.5f service_ms=%.5f rate=%.3f completions=%.3f l=%.5f%n",
        tasks,
        waitSum / 1e6 / Math.max(1, tasks),
        serviceSum / 1e6 / Math.max(1, tasks),
        arrived / secs,
        tasks / secs,
        inPool / 1e9 / secs);
  }
}

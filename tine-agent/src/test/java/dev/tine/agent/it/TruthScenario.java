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
 * command {@code run MODE SECONDS}. {@code truth MODE SECONDS} prints {@code TRUTH tasks=..
 * wait_ms=.. service_ms=.. rate=.. ...} over every task of that mode, as the application itself
 * timed them.
 *
 * <p>Besides each task's own start and end, the pools (a subclass) read the clock just before and
 * after their {@code super.beforeExecute} and {@code super.afterExecute} calls, where the agent
 * reads it, and the driver right after {@code execute} returns. The agent's service time of a task
 * then lies between {@code afterExecute}'s first reading less {@code beforeExecute}'s second, and
 * the opposite pair; its wait between the second reading of {@code beforeExecute} less the submit,
 * and the first less {@code execute}'s return: bounds that hold on a machine however loaded,
 * because they come from the same clock at the same points ({@code s_lo}, {@code s_hi}, {@code
 * w_lo}, {@code w_hi}). Every task is in them, the first one each pool thread runs after the attach
 * too: that thread was parked inside the pool's {@code getTask} as it was before the agent, whose
 * return the agent cannot see, so the agent starts that task at its {@code beforeExecute}, where it
 * reads the clock for every task.
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

  static final int MAX = 1 << 19;

  /** Per task: submitted, started, ended (System.nanoTime()); filled by submitter and pool. */
  static final long[] submitted = new long[MAX], started = new long[MAX], ended = new long[MAX];

  /**
   * Per task: {@code execute} returned; around {@code super.beforeExecute}; around {@code
   * super.afterExecute} (see the class comment).
   */
  static final long[] returned = new long[MAX],
      before0 = new long[MAX],
      before1 = new long[MAX],
      after0 = new long[MAX],
      after1 = new long[MAX];

  /** Per task: its mode (1 reuse, 2 throwing, 3 micro). */
  static final byte[] modeOf = new byte[MAX];

  /** Per pool thread: the readings around beforeExecute, and the task it runs. */
  static final class Stamps {
    long before0, before1;
    int task = -1;
  }

  static final ThreadLocal<Stamps> stamps = ThreadLocal.withInitial(Stamps::new);

  /** A task starts: its index noted for afterExecute, the readings around beforeExecute kept. */
  static void begin(int i) {
    long now = System.nanoTime();
    started[i] = now;
    Stamps st = stamps.get();
    st.task = i;
    before0[i] = st.before0;
    before1[i] = st.before1;
  }

  /** A pool that reads the clock around the points where the agent reads it. */
  static final class Stamped extends ThreadPoolExecutor {
    Stamped(int threads, java.util.concurrent.ThreadFactory f) {
      super(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), f);
    }

    @Override
    protected void beforeExecute(Thread t, Runnable r) {
      Stamps st = stamps.get();
      st.before0 = System.nanoTime();
      super.beforeExecute(t, r);
      st.before1 = System.nanoTime();
    }

    @Override
    protected void afterExecute(Runnable r, Throwable t) {
      long a0 = System.nanoTime();
      super.afterExecute(r, t);
      long a1 = System.nanoTime();
      Stamps st = stamps.get();
      if (st.task >= 0) {
        after0[st.task] = a0;
        after1[st.task] = a1;
        st.task = -1;
      }
    }
  }

  static final AtomicInteger next = new AtomicInteger();

  static ThreadPoolExecutor pool(String name, int threads) {
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor p =
        new Stamped(
            threads,
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
      begin(i);
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
        truth(w[1], Double.parseDouble(w[2]));
        continue;
      }
      if (w[0].equals("pending")) {
        // tasks of the mode submitted but not yet ended and recorded: on a loaded machine the
        // queue drains seconds after the last submission
        int m = mode(w[1]), pending = 0, last = next.get();
        for (int i = 0; i < last; i++) if (modeOf[i] == m && after1[i] == 0) pending++;
        System.out.println("PENDING " + pending);
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
                  modeOf[i] = (byte) mode(mode);
                  switch (mode) {
                    case "reuse" -> {
                      reused.ids.add(i);
                      submitted[i] = System.nanoTime();
                      reuse.execute(reused);
                      returned[i] = System.nanoTime();
                      LockSupport.parkNanos(10_000_000);
                    }
                    case "throwing" -> {
                      submitted[i] = System.nanoTime();
                      throwing.execute(() -> {
                        begin(i);
                        spin(2_000_000);
                        ended[i] = System.nanoTime();
                        throw new IllegalStateException("planted");
                      });
                      returned[i] = System.nanoTime();
                      LockSupport.parkNanos(10_000_000);
                    }
                    case "micro" -> {
                      submitted[i] = System.nanoTime();
                      micro.execute(() -> {
                        begin(i);
                        spin(1_000);
                        ended[i] = System.nanoTime();
                      });
                      returned[i] = System.nanoTime();
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

  static int mode(String mode) {
    return switch (mode) {
      case "reuse" -> 1;
      case "throwing" -> 2;
      case "micro" -> 3;
      default -> throw new IllegalArgumentException(mode);
    };
  }

  /**
   * Prints the truth over every task of {@code mode} (the test reads it once the agent's window
   * holds the whole run, so the two count the same tasks): λ as the tasks over {@code secs} (the
   * agent's window), the mean wait and service as the application timed them, and the bounds on the
   * agent's (see the class comment) over the tasks it can see.
   */
  static void truth(String mode, double secs) {
    int m = mode(mode);
    long tasks = 0, waitSum = 0, serviceSum = 0;
    long sLo = 0, sHi = 0, wLo = 0, wHi = 0, gapMax = 0, previous = 0;
    int last = next.get();
    for (int i = 0; i < last; i++) {
      if (modeOf[i] != m || ended[i] == 0 || after1[i] == 0) continue;
      if (previous != 0) gapMax = Math.max(gapMax, submitted[i] - previous);
      previous = submitted[i];
      tasks++;
      waitSum += started[i] - submitted[i];
      serviceSum += ended[i] - started[i];
      sLo += after0[i] - before1[i];
      sHi += after1[i] - before0[i];
      wLo += before0[i] - returned[i];
      wHi += before1[i] - submitted[i];
    }
    long n = Math.max(1, tasks);
    System.out.printf(
        java.util.Locale.ROOT,
        "TRUTH tasks=%d wait_ms=%.6f service_ms=%.6f rate=%.4f"
            + " s_lo=%.6f s_hi=%.6f w_lo=%.6f w_hi=%.6f gap_max_ms=%.6f%n",
        tasks,
        waitSum / 1e6 / Math.max(1, tasks),
        serviceSum / 1e6 / Math.max(1, tasks),
        tasks / secs,
        sLo / 1e6 / n,
        sHi / 1e6 / n,
        wLo / 1e6 / n,
        wHi / 1e6 / n,
        gapMax / 1e6);
  }
}

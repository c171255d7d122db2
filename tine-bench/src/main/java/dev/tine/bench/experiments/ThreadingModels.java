package dev.tine.bench.experiments;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * The Solaris threading document's experiment on today's JVM: platform threads (1:1, one kernel
 * thread each) against virtual threads (M:N, mounted on a carrier pool of about one thread per
 * core). N threads each repeat equal units of work for a fixed time; we report throughput (units/s)
 * and the fairness spread — (most − least) / most units done in the middle half of the window, as
 * the Solaris threading document measured starvation (29% → 8% there). Work is either CPU (a ~2 µs
 * computation) or blocking (a 1 ms sleep). Also measured: what N parked threads cost in virtual and
 * resident memory (the default stack size).
 */
public final class ThreadingModels {
  public record Result(
      String model,
      String work,
      int threads,
      double seconds,
      double unitsPerSec,
      double spread,
      long minUnits,
      long maxUnits) {
    public Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("model", model);
      m.put("work", work);
      m.put("threads", threads);
      m.put("seconds", seconds);
      m.put("units_per_s", unitsPerSec);
      m.put("fairness_spread", spread);
      m.put("min_units_mid_window", minUnits);
      m.put("max_units_mid_window", maxUnits);
      return m;
    }
  }

  private static volatile long sink;
  private volatile boolean started;
  private volatile long stopAt, quarterAt, threeQuartersAt;

  static void cpuUnit() {
    long x = 0;
    for (int i = 0; i < 2000; i++) x += (x ^ i) * 31;
    sink = x;
  }

  /**
   * Compiles the work loop before any measured run. Without this the first run measured the
   * interpreter: with hundreds of runnable threads on two cores the JIT's compiler threads get a
   * 1/N share of the CPU, so the loop stayed interpreted for most of the window (platform, 400
   * threads, first run: 46K units/s; the same run after a warm-up: ~850K).
   */
  public void warmUp() throws InterruptedException {
    for (int i = 0; i < 20_000; i++) cpuUnit();
    for (boolean virtual : new boolean[] {false, true}) {
      for (boolean blocking : new boolean[] {false, true}) {
        run(virtual, blocking, 2, 0.2);
      }
    }
  }

  public Result run(boolean virtual, boolean blocking, int n, double seconds)
      throws InterruptedException {
    started = false;
    // Each thread counts its own units and notes its count when it first sees the clock pass a
    // quarter and three quarters of the window, so the reading does not depend on when the main
    // thread gets a CPU: with 2000 runnable threads on two cores it woke from its sleep seconds
    // late, after the window had closed, and the run read as ~1,000 units/s.
    long[] atQ1 = new long[n], atQ3 = new long[n]; // each written once, by its thread, at its end
    CountDownLatch ready = new CountDownLatch(n);
    stopAt = Long.MAX_VALUE;
    quarterAt = Long.MAX_VALUE;
    threeQuartersAt = Long.MAX_VALUE;
    List<Thread> ts = new ArrayList<>(n);
    Thread.Builder b = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon();
    for (int i = 0; i < n; i++) {
      int k = i;
      ts.add(
          b.start(() -> {
            ready.countDown();
            // Park until started; main unparks every thread itself. (A latch wakes its waiters one
            // after another, and with hundreds of runnable threads that chain takes seconds;
            // spinning
            // on yield starves virtual threads that have not started yet.)
            while (!started) {
              LockSupport.park(this);
            }
            long done = 0, atQuarter = -1, atThreeQuarters = -1;
            for (long now; (now = System.nanoTime()) < stopAt; done++) {
              if (atQuarter < 0 && now >= quarterAt) atQuarter = done;
              if (atThreeQuarters < 0 && now >= threeQuartersAt) atThreeQuarters = done;
              if (blocking) {
                LockSupport.parkNanos(1_000_000);
              } else {
                cpuUnit();
              }
            }
            // A thread that never ran inside a boundary counts as having done nothing there.
            if (atQuarter < 0) atQuarter = done;
            if (atThreeQuarters < 0) atThreeQuarters = done;
            atQ1[k] = atQuarter;
            atQ3[k] = atThreeQuarters;
          }));
    }
    ready.await();
    started = true;
    for (Thread t : ts) {
      LockSupport.unpark(t);
    }
    // The window opens once every thread has been released (unparking thousands takes a while).
    long start = System.nanoTime();
    long window = (long) (seconds * 1e9);
    quarterAt = start + window / 4;
    threeQuartersAt = start + window * 3 / 4;
    stopAt = start + window; // written last: a thread that sees it sees the boundaries
    for (Thread t : ts) t.join(); // join's happens-before publishes the threads' counts
    double secs = (System.nanoTime() - start) / 1e9;
    // Fairness and throughput in steady state: units done between 1/4 and 3/4 of the window.
    long min = Long.MAX_VALUE, max = 0, mid = 0;
    for (int i = 0; i < n; i++) {
      long u = atQ3[i] - atQ1[i];
      mid += u;
      min = Math.min(min, u);
      max = Math.max(max, u);
    }
    double midSecs = (threeQuartersAt - quarterAt) / 1e9;
    return new Result(
        virtual ? "virtual (M:N)" : "platform (1:1)",
        blocking ? "blocking" : "cpu",
        n,
        secs,
        mid / midSecs,
        max == 0 ? 0 : (double) (max - min) / max,
        min,
        max);
  }

  /** Memory in kB: address space (VmSize) and resident (VmRSS); -1 where unknown. */
  public record MemoryKb(long addressSpaceKb, long residentKb) {}

  /** kB of VmSize and VmRSS of this process (Linux), or -1 each. */
  static MemoryKb memoryKb() {
    long vm = -1, rss = -1;
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmSize:")) vm = Long.parseLong(line.replaceAll("\\D", ""));
        if (line.startsWith("VmRSS:")) rss = Long.parseLong(line.replaceAll("\\D", ""));
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return new MemoryKb(vm, rss);
  }

  /** Virtual and resident memory added by n parked threads of the given kind, in kB. */
  public MemoryKb parkedCost(boolean virtual, int n) throws InterruptedException {
    MemoryKb before = memoryKb(); // no System.gc(): a shrinking heap would hide the threads' cost
    CountDownLatch parked = new CountDownLatch(n), release = new CountDownLatch(1);
    List<Thread> ts = new ArrayList<>();
    Thread.Builder b = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon();
    for (int i = 0; i < n; i++) {
      ts.add(
          b.start(() -> {
            parked.countDown();
            try {
              release.await();
            } catch (InterruptedException ignored) {
              // done
            }
          }));
    }
    parked.await();
    MemoryKb after = memoryKb();
    release.countDown();
    for (Thread t : ts) t.join();
    return new MemoryKb(
        after.addressSpaceKb() - before.addressSpaceKb(), after.residentKb() - before.residentKb());
  }

  public static void print(List<Result> rs, PrintStream out) {
    out.printf(
        Locale.ROOT,
        "%-16s %-9s %8s %14s %16s %12s%n",
        "model",
        "work",
        "threads",
        "units/s",
        "fairness spread",
        "min..max mid");
    for (Result r : rs) {
      out.printf(
          Locale.ROOT,
          "%-16s %-9s %8d %14.0f %15.0f%% %12s%n",
          r.model,
          r.work,
          r.threads,
          r.unitsPerSec,
          100 * r.spread,
          r.minUnits + ".." + r.maxUnits);
    }
  }
}

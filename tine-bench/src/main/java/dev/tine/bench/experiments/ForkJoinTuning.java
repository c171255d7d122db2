package dev.tine.bench.experiments;

import dev.tine.PoolStats;
import dev.tine.WorkStealingPool;
import dev.tine.bench.programs.Fib;
import dev.tine.bench.programs.QuickSort;
import dev.tine.bench.programs.Throttle;
import dev.tine.bench.run.GcSnapshot;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.function.Supplier;

/**
 * the fork/join tuning study as one experiment: fib(40) and quicksort of 2M ints, programs 1
 * (sequential), 2 (fork at every step) and 3 (fork throttled by a racy atomic counter), at
 * multiplicity 1, 2, 4 and 8, with Tine rows beside the JDK's: the same program 2 and 3 code on
 * Tine (latent forks), whose counters come from {@code pool.stats()}. The programs live in {@link
 * Fib} and {@link QuickSort}; {@link ForkJoinTuningTables} prints the runs in the layout of the
 * study's tables.
 */
public final class ForkJoinTuning {
  /** Per-worker averages from ThreadMXBean (or Tine's stats): CPU and BLOCKED/WAITING figures. */
  public record WorkerFigures(
      double cpuMs, double blockedCount, double blockedMs, double waitedCount, double waitedMs) {
    public static final WorkerFigures NONE =
        new WorkerFigures(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
  }

  /**
   * What one run of a program returned: its check, and its fork/join/steal counts (-1: not known).
   */
  record Outcome(boolean verified, long forks, long joins, long steals) {}

  /** One measured run. */
  public record Run(
      String table,
      String program,
      String runtime,
      int multiplicity,
      double ms,
      long forks,
      long joins,
      long steals,
      GcSnapshot gc,
      WorkerFigures workers,
      boolean verified) {
    public Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("experiment", table);
      m.put("program", program);
      m.put("runtime", runtime);
      m.put("threads", multiplicity);
      m.put("elapsed_ms", ms);
      m.put("forks", forks);
      m.put("joins", joins);
      m.put("steals", steals);
      m.put("minor_gc_count", gc.minorCount());
      m.put("minor_gc_ms", gc.minorMillis());
      m.put("full_gc_count", gc.fullCount());
      m.put("full_gc_ms", gc.fullMillis());
      m.put("worker_cpu_ms_avg", workers.cpuMs());
      m.put("blocked_count_avg", workers.blockedCount());
      m.put("blocked_ms_avg", workers.blockedMs());
      m.put("waited_count_avg", workers.waitedCount());
      m.put("waited_ms_avg", workers.waitedMs());
      m.put("verified", verified);
      return m;
    }
  }

  private final int fibN, sortN;
  private final ThreadMXBean tmx = ManagementFactory.getThreadMXBean();

  public ForkJoinTuning(int fibN, int sortN) {
    this.fibN = fibN;
    this.sortN = sortN;
    if (tmx.isThreadContentionMonitoringSupported()) tmx.setThreadContentionMonitoringEnabled(true);
  }

  /** A JDK pool whose worker threads we can find for ThreadMXBean. */
  static final class JdkPool {
    final ConcurrentLinkedQueue<Thread> threads = new ConcurrentLinkedQueue<>();
    final ForkJoinPool pool;

    JdkPool(int p) {
      pool =
          new ForkJoinPool(
              p,
              fjp -> {
                ForkJoinWorkerThread t =
                    ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(fjp);
                threads.add(t);
                return t;
              },
              null,
              false);
    }
  }

  private WorkerFigures threadFigures(Iterable<Thread> ts) {
    double cpu = 0, bn = 0, bt = 0, wn = 0, wt = 0;
    int n = 0;
    for (Thread t : ts) {
      ThreadInfo info = tmx.getThreadInfo(t.threadId());
      if (info == null) continue;
      n++;
      cpu += Math.max(0, tmx.getThreadCpuTime(t.threadId())) / 1e6;
      bn += info.getBlockedCount();
      bt += Math.max(0, info.getBlockedTime());
      wn += info.getWaitedCount();
      wt += Math.max(0, info.getWaitedTime());
    }
    n = Math.max(1, n);
    return new WorkerFigures(cpu / n, bn / n, bt / n, wn / n, wt / n);
  }

  private static WorkerFigures tineFigures(WorkStealingPool tp) {
    PoolStats s = tp.stats();
    double cpu = 0, bn = 0, bt = 0, wn = 0, wt = 0;
    int n = 0;
    for (PoolStats.WorkerStats w : s.workers()) {
      if (w.threadName() == null) continue;
      n++;
      cpu += Math.max(0, w.cpuNanos()) / 1e6;
      bn += Math.max(0, w.blockedCount());
      bt += Math.max(0, w.blockedMillis());
      wn += Math.max(0, w.waitedCount());
      wt += Math.max(0, w.waitedMillis());
    }
    n = Math.max(1, n);
    return new WorkerFigures(cpu / n, bn / n, bt / n, wn / n, wt / n);
  }

  private static Run measure(
      String table,
      String program,
      String runtime,
      int m,
      Supplier<Outcome> body,
      Supplier<WorkerFigures> workers) {
    GcSnapshot g0 = GcSnapshot.now();
    long t0 = System.nanoTime();
    Outcome r = body.get();
    double ms = (System.nanoTime() - t0) / 1e6;
    GcSnapshot g = GcSnapshot.now().minus(g0);
    return new Run(
        table,
        program,
        runtime,
        m,
        ms,
        r.forks(),
        r.joins(),
        r.steals(),
        g,
        workers.get(),
        r.verified());
  }

  private static Outcome tineOutcome(boolean ok, WorkStealingPool tp) {
    PoolStats s = tp.stats();
    return new Outcome(ok, s.forks(), s.joins(), s.steals());
  }

  public List<Run> run(int[] multiplicities, PrintStream progress) {
    List<Run> out = new ArrayList<>();
    runFib(multiplicities, progress, out);
    runQuickSort(multiplicities, progress, out);
    return out;
  }

  private void runFib(int[] multiplicities, PrintStream progress, List<Run> out) {
    long expect = Fib.expected(fibN);
    long p2Forks = Fib.expected(fibN + 1) - 1; // program 2 forks fib(n+1) - 1 times
    // warm-up: JIT every program once at a small size
    Fib.seqFib(30);
    try (var tp = WorkStealingPool.builder().parallelism(2).build()) {
      tp.invoke(new Fib.TineEvery(25));
    }
    ForkJoinPool warm = new ForkJoinPool(2);
    warm.invoke(new Fib.JdkEvery(25));
    warm.shutdownNow();

    out.add(
        measure(
            "fib",
            "1",
            "seq",
            1,
            () -> new Outcome(Fib.seqFib(fibN) == expect, 0, 0, 0),
            () -> WorkerFigures.NONE));
    for (int m : multiplicities) {
      if (progress != null) progress.println("  fib, multiplicity " + m + " ...");
      JdkPool jp = new JdkPool(m);
      out.add(
          measure(
              "fib",
              "2",
              "jdk",
              m,
              () -> {
                long s0 = jp.pool.getStealCount();
                long r = jp.pool.invoke(new Fib.JdkEvery(fibN));
                return new Outcome(r == expect, p2Forks, p2Forks, jp.pool.getStealCount() - s0);
              },
              () -> threadFigures(jp.threads)));
      Throttle th = new Throttle(m);
      out.add(
          measure(
              "fib",
              "3",
              "jdk",
              m,
              () -> {
                long s0 = jp.pool.getStealCount();
                long r = jp.pool.invoke(new Fib.JdkThrottled(fibN, th));
                return new Outcome(
                    r == expect, th.forks(), th.forks(), jp.pool.getStealCount() - s0);
              },
              () -> WorkerFigures.NONE));
      jp.pool.shutdownNow();
      try (var tp =
          WorkStealingPool.builder().parallelism(m).threadContentionMonitoring(true).build()) {
        out.add(
            measure(
                "fib",
                "2",
                "tine",
                m,
                () -> {
                  tp.resetStats();
                  return tineOutcome(tp.invoke(new Fib.TineEvery(fibN)) == expect, tp);
                },
                () -> tineFigures(tp)));
        Throttle t3 = new Throttle(m);
        out.add(
            measure(
                "fib",
                "3",
                "tine",
                m,
                () -> {
                  tp.resetStats();
                  return tineOutcome(tp.invoke(new Fib.TineThrottled(fibN, t3)) == expect, tp);
                },
                () -> WorkerFigures.NONE));
      }
    }
  }

  private void runQuickSort(int[] multiplicities, PrintStream progress, List<Run> out) {
    int[] input = new SplittableRandom(20121203).ints(sortN).toArray();
    int[] work = new int[sortN];
    int[] sorted = input.clone();
    Arrays.sort(sorted);
    out.add(
        measure(
            "quicksort",
            "1",
            "seq",
            1,
            () -> {
              System.arraycopy(input, 0, work, 0, sortN);
              QuickSort.sequential(work, 0, sortN);
              return new Outcome(Arrays.equals(work, sorted), 0, 0, 0);
            },
            () -> WorkerFigures.NONE));
    for (int m : multiplicities) {
      if (progress != null) progress.println("  quicksort, multiplicity " + m + " ...");
      for (int prog = 2; prog <= 3; prog++) {
        JdkPool jp = new JdkPool(m);
        boolean throttled = prog == 3;
        Throttle th = new Throttle(m);
        out.add(
            measure(
                "quicksort",
                Integer.toString(prog),
                "jdk",
                m,
                () -> {
                  System.arraycopy(input, 0, work, 0, sortN);
                  long s0 = jp.pool.getStealCount();
                  QuickSort.jdkSort(jp.pool, work, throttled ? th : null);
                  return new Outcome(
                      Arrays.equals(work, sorted),
                      throttled ? th.forks() : -1,
                      0,
                      jp.pool.getStealCount() - s0);
                },
                () -> threadFigures(jp.threads)));
        jp.pool.shutdownNow();
      }
      try (var tp =
          WorkStealingPool.builder().parallelism(m).threadContentionMonitoring(true).build()) {
        out.add(
            measure(
                "quicksort",
                "2",
                "tine",
                m,
                () -> {
                  System.arraycopy(input, 0, work, 0, sortN);
                  tp.resetStats();
                  // Program 2 never joins its forks: the root ends with Task.helpQuiesce(), as
                  // the JDK's with ForkJoinTask.helpQuiesce().
                  QuickSort.tineSort(tp, work);
                  return tineOutcome(Arrays.equals(work, sorted), tp);
                },
                () -> tineFigures(tp)));
      }
    }
  }

  /** The run of (table, program, runtime, multiplicity), or null. */
  public static Run find(List<Run> runs, String table, String program, String runtime, int m) {
    for (Run r : runs) {
      if (r.table().equals(table)
          && r.program().equals(program)
          && r.runtime().equals(runtime)
          && r.multiplicity() == m) {
        return r;
      }
    }
    return null;
  }
}

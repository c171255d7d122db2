package dev.tine.bench.experiments;

import dev.tine.PoolStats;
import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.run.GcSnapshot;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Seed 000 as one experiment: fib(40) and quicksort of 2M ints, programs 1 (sequential), 2 (fork
 * at every step) and 3 (fork throttled by a racy atomic counter), at multiplicity 1, 2, 4 and 8,
 * printed in the layout of tables 2-1..2-3 and 3-1..3-4, with Tine rows beside the JDK's: the same
 * program 2 and 3 code on Tine (latent forks), whose counters come from {@code pool.stats()}.
 */
public final class ForkJoinTuning {
  /** One measured run. */
  public record Run(String table, String program, String runtime, int multiplicity, double ms, long forks, long joins,
      long steals, GcSnapshot gc, double workerCpuMs, double blockedN, double blockedMs, double waitedN,
      double waitedMs, boolean verified) {
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
      m.put("worker_cpu_ms_avg", workerCpuMs);
      m.put("blocked_count_avg", blockedN);
      m.put("blocked_ms_avg", blockedMs);
      m.put("waited_count_avg", waitedN);
      m.put("waited_ms_avg", waitedMs);
      m.put("verified", verified);
      return m;
    }
  }

  // ------------------------------------------------------------------ fib, programs 1-3

  static int fib1(int n) {
    return n <= 1 ? n : fib1(n - 2) + fib1(n - 1);
  }

  static final class JdkFib2 extends RecursiveTask<Integer> {
    final int n;
    JdkFib2(int n) { this.n = n; }
    @Override protected Integer compute() { return compute(n); }
    int compute(int n) {
      if (n <= 1) return n;
      ForkJoinTask<Integer> f1 = new JdkFib2(n - 2).fork();
      return compute(n - 1) + f1.join();
    }
  }

  static final class TineFib2 extends Task<Integer> {
    final int n;
    TineFib2(int n) { this.n = n; }
    @Override protected Integer compute() { return compute(n); }
    int compute(int n) {
      if (n <= 1) return n;
      Task<Integer> f1 = new TineFib2(n - 2).fork();
      return compute(n - 1) + f1.join();
    }
  }

  /** Program 3's throttle: the seed's racy check-then-increment, kept as written. */
  static final class Throttle {
    final AtomicInteger counter = new AtomicInteger(1);
    final int multiplicity;
    final AtomicLong forks = new AtomicLong();
    Throttle(int m) { multiplicity = m; }
  }

  static final class JdkFib3 extends RecursiveTask<Integer> {
    final int n;
    final Throttle th;
    JdkFib3(int n, Throttle th) { this.n = n; this.th = th; }
    @Override protected Integer compute() {
      int r = compute(n);
      th.counter.decrementAndGet();
      return r;
    }
    int compute(int n) {
      if (n <= 1) return n;
      if (th.counter.get() < th.multiplicity) {
        th.counter.incrementAndGet();
        th.forks.incrementAndGet();
        ForkJoinTask<Integer> f1 = new JdkFib3(n - 2, th).fork();
        return compute(n - 1) + f1.join();
      }
      return compute(n - 2) + compute(n - 1);
    }
  }

  static final class TineFib3 extends Task<Integer> {
    final int n;
    final Throttle th;
    TineFib3(int n, Throttle th) { this.n = n; this.th = th; }
    @Override protected Integer compute() {
      int r = compute(n);
      th.counter.decrementAndGet();
      return r;
    }
    int compute(int n) {
      if (n <= 1) return n;
      if (th.counter.get() < th.multiplicity) {
        th.counter.incrementAndGet();
        th.forks.incrementAndGet();
        Task<Integer> f1 = new TineFib3(n - 2, th).fork();
        return compute(n - 1) + f1.join();
      }
      return compute(n - 2) + compute(n - 1);
    }
  }

  // ------------------------------------------------------------------ quicksort, programs 1-3

  static final class JdkSort2 extends RecursiveAction {
    final int[] a; final int lo, hi;
    JdkSort2(int[] a, int lo, int hi) { this.a = a; this.lo = lo; this.hi = hi; }
    @Override protected void compute() {
      int pos = dev.tine.bench.programs.QuickSortAccess.partition(a, lo, hi);
      if (pos > 0) {
        new JdkSort2(a, lo, pos).fork();
        new JdkSort2(a, pos, hi).compute();
      }
    }
  }

  static final class JdkSort3 extends RecursiveAction {
    final int[] a; final int lo, hi; final Throttle th;
    JdkSort3(int[] a, int lo, int hi, Throttle th) { this.a = a; this.lo = lo; this.hi = hi; this.th = th; }
    @Override protected void compute() {
      sort(lo, hi);
      th.counter.decrementAndGet();
    }
    void sort(int l, int h) {
      int pos = dev.tine.bench.programs.QuickSortAccess.partition(a, l, h);
      if (pos <= 0) return;
      if (th.counter.get() < th.multiplicity) {
        th.counter.incrementAndGet();
        th.forks.incrementAndGet();
        new JdkSort3(a, l, pos, th).fork();
      } else {
        sort(l, pos);
      }
      sort(pos, h);
    }
  }

  static final class TineSort2 extends Task<Void> {
    final int[] a; final int lo, hi;
    TineSort2(int[] a, int lo, int hi) { this.a = a; this.lo = lo; this.hi = hi; }
    @Override protected Void compute() {
      int pos = dev.tine.bench.programs.QuickSortAccess.partition(a, lo, hi);
      if (pos > 0) {
        new TineSort2(a, lo, pos).fork(); // never joined, as in the seed
        new TineSort2(a, pos, hi).compute();
      }
      return null;
    }
  }

  // ------------------------------------------------------------------ measurement

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
      pool = new ForkJoinPool(p, fjp -> {
        ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(fjp);
        threads.add(t);
        return t;
      }, null, false);
    }
  }

  private double[] threadFigures(Iterable<Thread> ts) {
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
    return new double[] {cpu / n, bn / n, bt / n, wn / n, wt / n};
  }

  private static final double[] NO_THREADS = {Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN};

  private Run measure(String table, String program, String runtime, int m, java.util.function.Supplier<long[]> body,
      java.util.function.Supplier<double[]> threadFigs) {
    GcSnapshot g0 = GcSnapshot.now();
    long t0 = System.nanoTime();
    long[] r = body.get(); // {ok(1/0), forks, joins, steals}
    double ms = (System.nanoTime() - t0) / 1e6;
    GcSnapshot g = GcSnapshot.now().minus(g0);
    double[] tf = threadFigs.get();
    return new Run(table, program, runtime, m, ms, r[1], r[2], r[3], g, tf[0], tf[1], tf[2], tf[3], tf[4], r[0] == 1);
  }

  public List<Run> run(int[] multiplicities, PrintStream progress) {
    List<Run> out = new ArrayList<>();
    int fibExpect = fib1(fibN);
    long fibForks = 0;
    for (int i = 0, a = 0, b = 1; i < fibN + 1; i++) { // program 2 forks fib(n+1) - 1 times
      int t = a + b; a = b; b = t;
      if (i == fibN) fibForks = a - 1;
    }
    final long p2Forks = fibForks;
    // warm-up: JIT every program once at a small size
    fib1(30);
    try (var tp = WorkStealingPool.builder().parallelism(2).build()) { tp.invoke(new TineFib2(25)); }
    new ForkJoinPool(2).invoke(new JdkFib2(25));

    out.add(measure("fib", "1", "seq", 1, () -> new long[] {fib1(fibN) == fibExpect ? 1 : 0, 0, 0, 0}, () -> NO_THREADS));
    for (int m : multiplicities) {
      if (progress != null) progress.println("  fib, multiplicity " + m + " ...");
      JdkPool jp = new JdkPool(m);
      out.add(measure("fib", "2", "jdk", m, () -> {
        long s0 = jp.pool.getStealCount();
        int r = jp.pool.invoke(new JdkFib2(fibN));
        return new long[] {r == fibExpect ? 1 : 0, p2Forks, p2Forks, jp.pool.getStealCount() - s0};
      }, () -> threadFigures(jp.threads)));
      Throttle th = new Throttle(m);
      out.add(measure("fib", "3", "jdk", m, () -> {
        long s0 = jp.pool.getStealCount();
        int r = jp.pool.invoke(new JdkFib3(fibN, th));
        long f = th.forks.get();
        return new long[] {r == fibExpect ? 1 : 0, f, f, jp.pool.getStealCount() - s0};
      }, () -> NO_THREADS));
      jp.pool.shutdownNow();
      try (var tp = WorkStealingPool.builder().parallelism(m).threadContentionMonitoring(true).build()) {
        out.add(measure("fib", "2", "tine", m, () -> {
          tp.resetStats();
          int r = tp.invoke(new TineFib2(fibN));
          PoolStats s = tp.stats();
          return new long[] {r == fibExpect ? 1 : 0, s.forks(), s.joins(), s.steals()};
        }, () -> tineFigures(tp)));
        Throttle t3 = new Throttle(m);
        out.add(measure("fib", "3", "tine", m, () -> {
          tp.resetStats();
          int r = tp.invoke(new TineFib3(fibN, t3));
          PoolStats s = tp.stats();
          return new long[] {r == fibExpect ? 1 : 0, s.forks(), s.joins(), s.steals()};
        }, () -> NO_THREADS));
      }
    }
    int[] input = new SplittableRandom(20121203).ints(sortN).toArray();
    int[] work = new int[sortN];
    int[] sorted = input.clone();
    java.util.Arrays.sort(sorted);
    out.add(measure("quicksort", "1", "seq", 1, () -> {
      System.arraycopy(input, 0, work, 0, sortN);
      dev.tine.bench.programs.QuickSortAccess.sequential(work, 0, sortN);
      return new long[] {java.util.Arrays.equals(work, sorted) ? 1 : 0, 0, 0, 0};
    }, () -> NO_THREADS));
    for (int m : multiplicities) {
      if (progress != null) progress.println("  quicksort, multiplicity " + m + " ...");
      for (int prog = 2; prog <= 3; prog++) {
        JdkPool jp = new JdkPool(m);
        int pr = prog;
        Throttle th = new Throttle(m);
        out.add(measure("quicksort", Integer.toString(prog), "jdk", m, () -> {
          System.arraycopy(input, 0, work, 0, sortN);
          long s0 = jp.pool.getStealCount();
          jp.pool.invoke(new RecursiveAction() {
            @Override
            protected void compute() {
              if (pr == 2) new JdkSort2(work, 0, sortN).compute();
              else new JdkSort3(work, 0, sortN, th).compute();
              ForkJoinTask.helpQuiesce(); // programs 2 and 3 never join their forks
            }
          });
          long forks = pr == 2 ? -1 : th.forks.get();
          return new long[] {java.util.Arrays.equals(work, sorted) ? 1 : 0, forks, 0, jp.pool.getStealCount() - s0};
        }, () -> threadFigures(jp.threads)));
        jp.pool.shutdownNow();
      }
      try (var tp = WorkStealingPool.builder().parallelism(m).threadContentionMonitoring(true).build()) {
        out.add(measure("quicksort", "2", "tine", m, () -> {
          System.arraycopy(input, 0, work, 0, sortN);
          tp.resetStats();
          tp.invoke(new TineSort2(work, 0, sortN));
          // Program 2 never joins its forks. A Tine worker falls asleep only after it found no
          // work anywhere and its own latent stack is empty, so "every live worker asleep" means
          // every fork has run. (The wait adds each worker's spin phase, ~0.1 ms.)
          while (tp.sleepingWorkers() < tp.poolSize()) {
            Thread.onSpinWait();
          }
          PoolStats s = tp.stats();
          return new long[] {java.util.Arrays.equals(work, sorted) ? 1 : 0, s.forks(), s.joins(), s.steals()};
        }, () -> tineFigures(tp)));
      }
    }
    return out;
  }

  private double[] tineFigures(WorkStealingPool tp) {
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
    return new double[] {cpu / n, bn / n, bt / n, wn / n, wt / n};
  }

  // ------------------------------------------------------------------ tables

  static String cell(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,.0f", v);
  }

  public static void print(List<Run> runs, int[] ms, PrintStream out) {
    for (String table : List.of("fib", "quicksort")) {
      out.printf("%nTable %s: elapsed ms (program 1 sequential; 2 forks at every step; 3 throttled by an atomic counter)%n",
          table.equals("fib") ? "2-1" : "3-1");
      out.printf(Locale.ROOT, "%-13s %10s %10s %10s %10s %10s%n", "multiplicity", "1", "2 jdk", "3 jdk", "2 tine", "3 tine");
      Run seq = find(runs, table, "1", "seq", 1);
      for (int m : ms) {
        Run j2 = find(runs, table, "2", "jdk", m), j3 = find(runs, table, "3", "jdk", m), t2 = find(runs, table, "2", "tine", m),
            t3 = find(runs, table, "3", "tine", m);
        out.printf(Locale.ROOT, "%-13d %10s %10s %10s %10s %10s%n", m, m == 1 && seq != null ? cell(seq.ms) : "-",
            ms(j2), ms(j3), ms(t2), ms(t3));
      }
      if (table.equals("fib")) {
        out.printf("%nTable 2-2: garbage collection at multiplicity 1 (count / ms)%n");
        out.printf(Locale.ROOT, "%-10s %14s %14s %14s %14s %14s%n", "GC", "program 1", "2 jdk", "3 jdk", "2 tine", "3 tine");
        Run[] rs = {seq, find(runs, table, "2", "jdk", 1), find(runs, table, "3", "jdk", 1), find(runs, table, "2", "tine", 1), find(runs, table, "3", "tine", 1)};
        out.printf(Locale.ROOT, "%-10s", "minor GC");
        for (Run r : rs) out.printf(Locale.ROOT, " %14s", r == null ? "-" : r.gc.minorCount() + " / " + r.gc.minorMillis());
        out.printf(Locale.ROOT, "%n%-10s", "full GC");
        for (Run r : rs) out.printf(Locale.ROOT, " %14s", r == null ? "-" : r.gc.fullCount() + " / " + r.gc.fullMillis());
        int top = ms[ms.length - 1];
        out.printf("%n%nTable 2-3: child tasks at multiplicity %d%n", top);
        out.printf(Locale.ROOT, "%-8s %14s %14s %14s %14s%n", "", "2 jdk", "3 jdk", "2 tine", "3 tine");
        Run[] cs = {find(runs, table, "2", "jdk", top), find(runs, table, "3", "jdk", top), find(runs, table, "2", "tine", top), find(runs, table, "3", "tine", top)};
        for (String what : List.of("fork", "join", "steal")) {
          out.printf(Locale.ROOT, "%-8s", what);
          for (Run r : cs) {
            long v = r == null ? -1 : what.equals("fork") ? r.forks : what.equals("join") ? r.joins : r.steals;
            out.printf(Locale.ROOT, " %14s", v < 0 ? "-" : String.format(Locale.ROOT, "%,d", v));
          }
          out.println();
        }
        out.println("(JDK fork and join counts: program 2's are fib(n+1)-1 by construction, program 3's are counted;"
            + " the JDK exposes only steals. Tine's latent forks: a join of a never-promoted fork is a direct call;"
            + " Tine counts joins that had to wait or run the task, so a join of a stolen fork that had already"
            + " finished is not counted and joins can be a few fewer than forks. Every result is verified.)");
      } else {
        int mid = ms.length > 2 ? ms[2] : ms[ms.length - 1];
        out.printf("%nTable 3-2: child tasks at multiplicity %d%n", mid);
        Run j2 = find(runs, table, "2", "jdk", mid), j3 = find(runs, table, "3", "jdk", mid), t2 = find(runs, table, "2", "tine", mid);
        out.printf(Locale.ROOT, "%-8s %14s %14s %14s%n", "", "2 jdk", "3 jdk", "2 tine");
        out.printf(Locale.ROOT, "%-8s %14s %14s %14s%n", "fork", j2 == null || j2.forks < 0 ? "-" : j2.forks, j3 == null ? "-" : j3.forks, t2 == null ? "-" : t2.forks);
        out.printf(Locale.ROOT, "%-8s %14s %14s %14s%n", "steal", j2 == null ? "-" : j2.steals, j3 == null ? "-" : j3.steals, t2 == null ? "-" : t2.steals);
        for (String prog : List.of("2", "3")) {
          out.printf("%nTable %s: worker threads, program %s, averages per worker (ms)%n", prog.equals("2") ? "3-3" : "3-4", prog);
          out.printf(Locale.ROOT, "%-8s %-5s %10s %10s %12s %10s %12s%n", "threads", "rt", "CPU", "BLOCKED n", "BLOCKED ms", "WAITING n", "WAITING ms");
          for (int m : ms) {
            if (m == 1) continue;
            for (String rt : List.of("jdk", "tine")) {
              Run r = find(runs, table, prog, rt, m);
              if (r == null || Double.isNaN(r.workerCpuMs)) continue;
              out.printf(Locale.ROOT, "%-8d %-5s %10s %10s %12s %10s %12s%n", m, rt, cell(r.workerCpuMs), cell(r.blockedN),
                  cell(r.blockedMs), cell(r.waitedN), cell(r.waitedMs));
            }
          }
        }
        out.println("(worker figures are cumulative over each pool's life: the pool ran only this program.)");
      }
    }
    long bad = runs.stream().filter(r -> !r.verified).count();
    out.println(bad == 0 ? "\nevery result verified" : "\n" + bad + " RESULTS WERE WRONG");
  }

  static String ms(Run r) {
    return r == null ? "-" : cell(r.ms);
  }

  static Run find(List<Run> runs, String table, String program, String runtime, int m) {
    for (Run r : runs) {
      if (r.table.equals(table) && r.program.equals(program) && r.runtime.equals(runtime) && r.multiplicity == m) return r;
    }
    return null;
  }
}

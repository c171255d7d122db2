package dev.tine.jmh;

import dev.tine.Scope;
import dev.tine.Task;
import dev.tine.Tine;
import dev.tine.WorkStealingPool;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveTask;
import java.util.function.LongSupplier;

/**
 * Fork-every fib at one worker against sequential fib, in one fresh JVM: what a user's program
 * meets, as opposed to JMH's warmed-up, forked measurement. Each round times (in thread CPU time,
 * see {@link #timed}) sequential fib, then each form once, and reports the form's time over that
 * round's sequential time; the JVM prints one line per form with the median of its rounds, their
 * range, and "best": the form's fastest round over sequential's fastest (less sensitive to a busy
 * box), so that several JVMs can be compared (the latent-forks design note runs it in 10+ JVMs,
 * isolated and after runs at p=2).
 *
 * <pre>
 * java -Xss16m -cp tine-jmh/target/benchmarks.jar dev.tine.jmh.ForkEveryProbe [n=33] [rounds=10]
 *     [p2=0] [others=0] [forms=scope,join,task,jdk] (also: closure, the scope join with closure
 *     halves; floor, the {@code Task} form's floor with no runtime, see {@link FloorNode})
 * </pre>
 *
 * {@code p2=5} first runs each form five times on a pool of two workers, as any program that uses
 * more than one worker does, before the p=1 rounds. {@code others=30} first runs, 30 times each at
 * p=1, another program written in each form (it counts the nodes of fib(25)'s call tree: the same
 * join method or task runtime with another function or task class), as a JVM that runs more than
 * one fork/join algorithm does. Not a JMH benchmark: its first rounds include compilation on
 * purpose.
 */
public final class ForkEveryProbe {
  private ForkEveryProbe() {}

  static long seqFib(int n) {
    return n < 2 ? n : seqFib(n - 1) + seqFib(n - 2);
  }

  static long scopeFib(Scope s, int n) {
    return n < 2
        ? n
        : s.joinLong(ForkEveryProbe::scopeFib, n - 1, ForkEveryProbe::scopeFib, n - 2, Long::sum);
  }

  /** Another program with the scope join's {@code IntToLong} shape: fib's call-tree nodes. */
  static long scopeNodes(Scope s, int n) {
    return n < 2
        ? 1
        : 1
            + s.joinLong(
                ForkEveryProbe::scopeNodes, n - 1, ForkEveryProbe::scopeNodes, n - 2, Long::sum);
  }

  static long joinNodes(int n) {
    return n < 2
        ? 1
        : 1
            + Tine.joinLong(
                ForkEveryProbe::joinNodes, n - 1, ForkEveryProbe::joinNodes, n - 2, Long::sum);
  }

  static final class TaskNodes extends Task<Long> {
    final int n;

    TaskNodes(int n) {
      this.n = n;
    }

    @Override
    protected Long compute() {
      if (n <= 1) return 1L;
      Task<Long> f1 = new TaskNodes(n - 2).fork();
      return 1 + new TaskNodes(n - 1).compute() + f1.join();
    }
  }

  static final class JdkNodes extends RecursiveTask<Long> {
    final int n;

    JdkNodes(int n) {
      this.n = n;
    }

    @Override
    protected Long compute() {
      if (n <= 1) return 1L;
      ForkJoinTask<Long> f1 = new JdkNodes(n - 2).fork();
      return 1 + new JdkNodes(n - 1).compute() + f1.join();
    }
  }

  /** Closure halves (a new object per half and join), as integrate-scope's joins are. */
  static long closureFib(Scope s, int n) {
    return n < 2 ? n : s.joinLong(t -> closureFib(t, n - 1), t -> closureFib(t, n - 2), Long::sum);
  }

  static long joinFib(int n) {
    return n < 2
        ? n
        : Tine.joinLong(ForkEveryProbe::joinFib, n - 1, ForkEveryProbe::joinFib, n - 2, Long::sum);
  }

  /** The fork/join tuning study's program 2, as a ported {@code RecursiveTask}. */
  static final class TaskEvery extends Task<Long> {
    final int n;

    TaskEvery(int n) {
      this.n = n;
    }

    @Override
    protected Long compute() {
      return compute(n);
    }

    long compute(int n) {
      if (n <= 1) return n;
      Task<Long> f1 = new TaskEvery(n - 2).fork();
      return compute(n - 1) + f1.join();
    }
  }

  /**
   * The {@code Task} form's floor: what any runtime that takes the {@code RecursiveTask} API must
   * do per fork, and nothing else. A task-sized object per fork (a header, the argument and a
   * result field, as a {@code Task} subclass), recorded in an array and taken back from it (a fresh
   * array per run, so it stays young as the latent stack's does), its result boxed into the object
   * and read back. No thread lookup, no status, no checks.
   */
  static final class FloorNode {
    final int n;
    Object result;

    FloorNode(int n) {
      this.n = n;
    }
  }

  private static Object[] floorStack;
  private static int floorTop;

  static long floorRun(int n) {
    floorStack = new Object[64];
    floorTop = 0;
    return floorFib(n);
  }

  static long floorFib(int n) {
    if (n <= 1) return n;
    FloorNode f = new FloorNode(n - 2);
    floorStack[floorTop++] = f; // the fork's record
    long x = floorFib(n - 1);
    FloorNode b = (FloorNode) floorStack[--floorTop]; // the join's take-back
    floorStack[floorTop] = null;
    b.result = Long.valueOf(floorFib(b.n)); // compute(), boxed as a Task<Long>'s result
    return x + (Long) b.result;
  }

  static final class JdkEvery extends RecursiveTask<Long> {
    final int n;

    JdkEvery(int n) {
      this.n = n;
    }

    @Override
    protected Long compute() {
      return compute(n);
    }

    long compute(int n) {
      if (n <= 1) return n;
      ForkJoinTask<Long> f1 = new JdkEvery(n - 2).fork();
      return compute(n - 1) + f1.join();
    }
  }

  record Form(String name, LongSupplier atP1, LongSupplier atP2) {}

  public static void main(String[] args) throws Exception {
    int n = 33, rounds = 10, p2 = 0, others = 0;
    String forms = "scope,join,task,jdk";
    for (String a : args) {
      String[] kv = a.split("=", 2);
      switch (kv[0]) {
        case "n" -> n = Integer.parseInt(kv[1]);
        case "rounds" -> rounds = Integer.parseInt(kv[1]);
        case "p2" -> p2 = Integer.parseInt(kv[1]);
        case "forms" -> forms = kv[1];
        case "others" -> others = Integer.parseInt(kv[1]);
        default -> throw new IllegalArgumentException("unknown argument " + a);
      }
    }
    final int size = n;
    long expected = seqFib(n);
    WorkStealingPool one = WorkStealingPool.builder().parallelism(1).build();
    WorkStealingPool two = WorkStealingPool.builder().parallelism(2).build();
    ForkJoinPool jdkOne = new ForkJoinPool(1), jdkTwo = new ForkJoinPool(2);
    List<Form> all = new ArrayList<>();
    for (String f : forms.split(",")) {
      all.add(
          switch (f) {
            case "scope" ->
                new Form(
                    f,
                    () -> one.<Long>invoke(s -> timed(() -> scopeFib(s, size))),
                    () -> two.<Long>invoke(s -> scopeFib(s, size)));
            case "closure" ->
                new Form(
                    f,
                    () -> one.<Long>invoke(s -> timed(() -> closureFib(s, size))),
                    () -> two.<Long>invoke(s -> closureFib(s, size)));
            case "join" ->
                new Form(
                    f,
                    () -> one.invoke(Task.of(() -> timed(() -> joinFib(size)))),
                    () -> two.invoke(Task.of(() -> joinFib(size))));
            case "task" ->
                new Form(
                    f,
                    () -> one.invoke(Task.of(() -> timed(() -> new TaskEvery(size).compute(size)))),
                    () -> two.invoke(new TaskEvery(size)));
            case "floor" -> new Form(f, () -> timed(() -> floorRun(size)), () -> floorRun(size));
            case "jdk" ->
                new Form(
                    f,
                    () ->
                        jdkOne.invoke(
                            ForkJoinTask.adapt(
                                () -> timed(() -> new JdkEvery(size).compute(size)))),
                    () -> jdkTwo.invoke(new JdkEvery(size)));
            default -> throw new IllegalArgumentException("unknown form " + f);
          });
    }
    expectedResult = expected;
    long nodes = 2 * seqFib(26) - 1; // fib(25)'s call tree
    for (int i = 0; i < others; i++) {
      for (String f : forms.split(",")) {
        long got =
            switch (f) {
              case "scope", "closure" -> one.<Long>invoke(s -> scopeNodes(s, 25));
              case "join" -> one.invoke(Task.of(() -> joinNodes(25)));
              case "task" -> one.invoke(new TaskNodes(25));
              case "jdk" -> jdkOne.invoke(new JdkNodes(25));
              default -> nodes;
            };
        check(got, nodes, f + " others");
      }
    }
    for (int i = 0; i < p2; i++) {
      for (Form f : all) {
        check(f.atP2.getAsLong(), expected, f.name + " p=2");
      }
    }
    two.close();
    jdkTwo.shutdown();
    double[][] ratio = new double[all.size()][rounds];
    long[] bestSeq = new long[all.size()], bestForm = new long[all.size()];
    Arrays.fill(bestSeq, Long.MAX_VALUE);
    Arrays.fill(bestForm, Long.MAX_VALUE);
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < all.size(); i++) {
        long seq = timed(() -> seqFib(size));
        long form = all.get(i).atP1.getAsLong();
        ratio[i][r] = (double) form / seq;
        bestSeq[i] = Math.min(bestSeq[i], seq);
        bestForm[i] = Math.min(bestForm[i], form);
      }
    }
    one.close();
    jdkOne.shutdown();
    StringBuilder line = new StringBuilder("p2=" + p2 + (others > 0 ? " others=" + others : ""));
    for (int i = 0; i < all.size(); i++) {
      double[] x = ratio[i].clone();
      Arrays.sort(x);
      double median =
          x.length % 2 == 1 ? x[x.length / 2] : (x[x.length / 2 - 1] + x[x.length / 2]) / 2;
      line.append(
          String.format(
              " %s=%.2f[%.2f,%.2f]best%.2f",
              all.get(i).name, median, x[0], x[x.length - 1], (double) bestForm[i] / bestSeq[i]));
    }
    System.out.println(line);
  }

  static long expectedResult;

  /**
   * The calling thread's CPU time for {@code body}, which must return fib(n): CPU time, not wall
   * time, because the box is shared and a descheduled thread would count as a slow join. At p=1 the
   * whole recursion runs on the one worker that calls this.
   */
  static long timed(LongSupplier body) {
    long c0 = CPU.getCurrentThreadCpuTime();
    long r = body.getAsLong();
    long c1 = CPU.getCurrentThreadCpuTime();
    check(r, expectedResult, "fib");
    return c1 - c0;
  }

  static final java.lang.management.ThreadMXBean CPU =
      java.lang.management.ManagementFactory.getThreadMXBean();

  private static void check(long got, long expected, String what) {
    if (got != expected) {
      throw new AssertionError(what + ": " + got + " != " + expected);
    }
  }
}

package dev.tine.bench.programs;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveTask;

/**
 * Fibonacci, as in Lea's paper (Lea's paper §2: threshold 13, both halves by coInvoke/invokeAll,
 * fib(47) at paper size, {@code long} since fib(47) overflows int) and as in the fork/join tuning
 * study: program 1 ({@link #seqFib}), program 2 (fork n-2, compute n-1, join; forking every call,
 * fib(40)) and program 3 (program 2 throttled by a shared counter). This file is the one home of
 * these programs: the bench, the fork-join-tuning experiment and the JMH benchmarks all run them.
 */
public final class Fib {
  private Fib() {}

  public static long seqFib(int n) {
    return n < 2 ? n : seqFib(n - 1) + seqFib(n - 2);
  }

  /** fib(n) by the closed recurrence, for verification. */
  public static long expected(int n) {
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
      long t = a + b;
      a = b;
      b = t;
    }
    return a;
  }

  /** Tasks created by one run with the given threshold (internal nodes above it, plus leaves). */
  static long taskCount(int n, int threshold) {
    if (n <= threshold) return 1;
    return 1 + taskCount(n - 1, threshold) + taskCount(n - 2, threshold);
  }

  // ------------------------------------------------------------------ Lea: threshold + invokeAll

  static final class TineLea extends Task<Long> {
    final int n, threshold;

    TineLea(int n, int threshold) {
      this.n = n;
      this.threshold = threshold;
    }

    @Override
    protected Long compute() {
      if (n <= threshold) return seqFib(n);
      TineLea f1 = new TineLea(n - 1, threshold), f2 = new TineLea(n - 2, threshold);
      invokeAll(f1, f2);
      return f1.join() + f2.join();
    }
  }

  static final class JdkLea extends RecursiveTask<Long> {
    final int n, threshold;

    JdkLea(int n, int threshold) {
      this.n = n;
      this.threshold = threshold;
    }

    @Override
    protected Long compute() {
      if (n <= threshold) return seqFib(n);
      JdkLea f1 = new JdkLea(n - 1, threshold), f2 = new JdkLea(n - 2, threshold);
      ForkJoinTask.invokeAll(f1, f2);
      return f1.join() + f2.join();
    }
  }

  /** Lea's Fib on Tine (threshold, invokeAll of both halves), for experiments outside the bench. */
  public static Task<Long> tineLea(int n, int threshold) {
    return new TineLea(n, threshold);
  }

  /** Lea's Fib on the JDK's ForkJoinPool. */
  public static RecursiveTask<Long> jdkLea(int n, int threshold) {
    return new JdkLea(n, threshold);
  }

  // ------------------------------------------------------------------ the fork/join tuning study,
  // program 2

  /**
   * The fork/join tuning study's FibonacciTask2 on Tine: the same code with RecursiveTask renamed
   * to Task.
   */
  public static final class TineEvery extends Task<Long> {
    final int n;

    public TineEvery(int n) {
      this.n = n;
    }

    @Override
    protected Long compute() {
      return compute(n);
    }

    long compute(int n) {
      if (n <= 1) return n;
      Task<Long> f1 = new TineEvery(n - 2).fork();
      return compute(n - 1) + f1.join();
    }
  }

  /** The fork/join tuning study's FibonacciTask2 (program 2), with long results. */
  public static final class JdkEvery extends RecursiveTask<Long> {
    final int n;

    public JdkEvery(int n) {
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

  // ------------------------------------------------------------------ the fork/join tuning study,
  // program 3

  /**
   * The fork/join tuning study's FibonacciTask3 (program 3): forks only while the {@link Throttle}
   * allows.
   */
  public static final class JdkThrottled extends RecursiveTask<Long> {
    final int n;
    final Throttle th;

    public JdkThrottled(int n, Throttle th) {
      this.n = n;
      this.th = th;
    }

    @Override
    protected Long compute() {
      long r = compute(n);
      th.done();
      return r;
    }

    long compute(int n) {
      if (n <= 1) return n;
      if (th.tryFork()) {
        ForkJoinTask<Long> f1 = new JdkThrottled(n - 2, th).fork();
        return compute(n - 1) + f1.join();
      }
      return compute(n - 2) + compute(n - 1);
    }
  }

  /**
   * The fork/join tuning study's program 3 on Tine: the same code with RecursiveTask renamed to
   * Task.
   */
  public static final class TineThrottled extends Task<Long> {
    final int n;
    final Throttle th;

    public TineThrottled(int n, Throttle th) {
      this.n = n;
      this.th = th;
    }

    @Override
    protected Long compute() {
      long r = compute(n);
      th.done();
      return r;
    }

    long compute(int n) {
      if (n <= 1) return n;
      if (th.tryFork()) {
        Task<Long> f1 = new TineThrottled(n - 2, th).fork();
        return compute(n - 1) + f1.join();
      }
      return compute(n - 2) + compute(n - 1);
    }
  }

  // ------------------------------------------------------------------ Tine's primitive join

  /** Fib forking every call through {@link dev.tine.Tine#joinLong}: no Task objects. */
  public static long joinFib(int n) {
    if (n < 2) return n;
    return dev.tine.Tine.joinLong(Fib::joinFib, n - 1, Fib::joinFib, n - 2, Long::sum);
  }

  /**
   * Fork every call with Tine.joinLong (no Task objects); the JDK runs the fork/join tuning study's
   * program 2.
   */
  public static final class Join implements Program {
    @Override
    public String name() {
      return "fib-join";
    }

    @Override
    public String rewriteOf() {
      return "fib-every";
    }

    @Override
    public String description() {
      return "Fibonacci joining every call with Tine.joinLong (JDK: the fork/join tuning study's program 2)";
    }

    @Override
    public Workload workload(Size size, Map<String, String> o) {
      return forkEveryCall(size, o, (pool, n) -> pool.invoke(Task.of(() -> joinFib(n))));
    }
  }

  /**
   * Fib forking at every call, n=40 at paper size (the fork/join tuning study), 32 quick; the JDK
   * always runs the study's program 2; {@code tine} says how Tine runs it.
   */
  static Workload forkEveryCall(
      Size size,
      Map<String, String> o,
      java.util.function.BiFunction<WorkStealingPool, Integer, Object> tine) {
    int n = Program.intParam(o, "n", size == Size.PAPER ? 40 : 32);
    long expect = expected(n);
    return new Workload() {
      @Override
      public String parameters() {
        return "n=" + n;
      }

      @Override
      public Object sequential() {
        return seqFib(n);
      }

      @Override
      public Object tine(WorkStealingPool pool) {
        return tine.apply(pool, n);
      }

      @Override
      public Object jdk(ForkJoinPool pool) {
        return pool.invoke(new JdkEvery(n));
      }

      @Override
      public boolean verify(Object r) {
        return r instanceof Long l && l == expect;
      }

      @Override
      public long tasksPerRun() {
        return taskCount(n, 1);
      }
    };
  }

  /** Lea's Fib: threshold 13, invokeAll of both halves. */
  public static final class Lea implements Program {
    @Override
    public String name() {
      return "fib";
    }

    @Override
    public String description() {
      return "Fibonacci with Lea's threshold 13 and invokeAll (Lea's paper)";
    }

    @Override
    public Workload workload(Size size, Map<String, String> o) {
      int n = Program.intParam(o, "n", size == Size.PAPER ? 47 : 38);
      int threshold = Program.intParam(o, "threshold", 13);
      long expect = expected(n);
      return new Workload() {
        @Override
        public String parameters() {
          return "n=" + n + ", threshold=" + threshold;
        }

        @Override
        public Object sequential() {
          return seqFib(n);
        }

        @Override
        public Object tine(WorkStealingPool pool) {
          return pool.invoke(new TineLea(n, threshold));
        }

        @Override
        public Object jdk(ForkJoinPool pool) {
          return pool.invoke(new JdkLea(n, threshold));
        }

        @Override
        public boolean verify(Object r) {
          return r instanceof Long l && l == expect;
        }

        @Override
        public long tasksPerRun() {
          return taskCount(n, threshold);
        }
      };
    }
  }

  /** The fork/join tuning study's program 2: forking every call. */
  public static final class Every implements Program {
    @Override
    public String name() {
      return "fib-every";
    }

    @Override
    public String description() {
      return "Fibonacci forking every call (the fork/join tuning study's program 2)";
    }

    @Override
    public Workload workload(Size size, Map<String, String> o) {
      return forkEveryCall(size, o, (pool, n) -> pool.invoke(new TineEvery(n)));
    }
  }
}

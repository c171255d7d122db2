package dev.tine.jmh;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveTask;
import java.util.stream.IntStream;

/**
 * The bench's {@code jacobi} at p=1 (Lea's Jacobi, one barrier per step, tiles of at most 128², a
 * 1024² grid, 40 steps: the same arithmetic as tine-bench's {@code Jacobi}), Tine's {@code Task}
 * form against the JDK's {@code RecursiveTask} form and sequential code, in the running thread's
 * CPU time (a busy box deschedules threads, which wall time would count), paired per round. Prints
 * the median and range over the rounds of Tine/seq, JDK/seq and Tine/JDK. Both grids are checked
 * against the sequential one bit for bit.
 *
 * <pre>
 * java -cp tine-jmh/target/benchmarks.jar dev.tine.jmh.JacobiProbe [rounds=11] [p2=0] [builtin=false]
 * </pre>
 *
 * {@code p2=5} first runs both forms 5 times on pools of two (as the bench's {@code --threads 1,2}
 * does); {@code builtin=true} also runs the JDK's parallel-stream form each round, as the bench's
 * default runtimes do. Not a JMH benchmark: one fresh JVM per line, to be run several times.
 */
public final class JacobiProbe {
  private JacobiProbe() {}

  static final int LEAF = 128, N = 1024, STEPS = 40, W = N + 2;
  static double[] a = new double[W * W], b = new double[W * W];

  static void reset() {
    Arrays.fill(a, 0);
    Arrays.fill(b, 0);
    for (int j = 0; j < W; j++) {
      a[j] = 1.0;
      b[j] = 1.0;
    }
  }

  static void swap() {
    double[] t = a;
    a = b;
    b = t;
  }

  static double stepTile(int r0, int r1, int c0, int c1) {
    double[] x = a, y = b;
    double md = 0;
    for (int i = r0; i < r1; i++) {
      int row = i * W;
      for (int j = c0; j < c1; j++) {
        int k = row + j;
        double v = 0.25 * (x[k - W] + x[k + W] + x[k - 1] + x[k + 1]);
        md = Math.max(md, Math.abs(v - x[k]));
        y[k] = v;
      }
    }
    return md;
  }

  static double seqPass(int r0, int r1, int c0, int c1) {
    if (r1 - r0 <= LEAF && c1 - c0 <= LEAF) return stepTile(r0, r1, c0, c1);
    if (r1 - r0 >= c1 - c0) {
      int m = (r0 + r1) >>> 1;
      return Math.max(seqPass(r0, m, c0, c1), seqPass(m, r1, c0, c1));
    }
    int m = (c0 + c1) >>> 1;
    return Math.max(seqPass(r0, r1, c0, m), seqPass(r0, r1, m, c1));
  }

  static final class TinePass extends Task<Double> {
    final int r0, r1, c0, c1;

    TinePass(int r0, int r1, int c0, int c1) {
      this.r0 = r0;
      this.r1 = r1;
      this.c0 = c0;
      this.c1 = c1;
    }

    @Override
    protected Double compute() {
      if (r1 - r0 <= LEAF && c1 - c0 <= LEAF) return stepTile(r0, r1, c0, c1);
      TinePass x, y;
      if (r1 - r0 >= c1 - c0) {
        int m = (r0 + r1) >>> 1;
        x = new TinePass(r0, m, c0, c1);
        y = new TinePass(m, r1, c0, c1);
      } else {
        int m = (c0 + c1) >>> 1;
        x = new TinePass(r0, r1, c0, m);
        y = new TinePass(r0, r1, m, c1);
      }
      invokeAll(x, y);
      return Math.max(x.join(), y.join());
    }
  }

  static final class JdkPass extends RecursiveTask<Double> {
    final int r0, r1, c0, c1;

    JdkPass(int r0, int r1, int c0, int c1) {
      this.r0 = r0;
      this.r1 = r1;
      this.c0 = c0;
      this.c1 = c1;
    }

    @Override
    protected Double compute() {
      if (r1 - r0 <= LEAF && c1 - c0 <= LEAF) return stepTile(r0, r1, c0, c1);
      JdkPass x, y;
      if (r1 - r0 >= c1 - c0) {
        int m = (r0 + r1) >>> 1;
        x = new JdkPass(r0, m, c0, c1);
        y = new JdkPass(m, r1, c0, c1);
      } else {
        int m = (c0 + c1) >>> 1;
        x = new JdkPass(r0, r1, c0, m);
        y = new JdkPass(r0, r1, m, c1);
      }
      invokeAll(x, y);
      return Math.max(x.join(), y.join());
    }
  }

  static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  static long cpu(Runnable r) {
    long c0 = CPU.getCurrentThreadCpuTime();
    r.run();
    return CPU.getCurrentThreadCpuTime() - c0;
  }

  static void tineSteps() {
    for (int s = 0; s < STEPS; s++) {
      new TinePass(1, N + 1, 1, N + 1).invoke();
      swap();
    }
  }

  static void jdkSteps() {
    for (int s = 0; s < STEPS; s++) {
      new JdkPass(1, N + 1, 1, N + 1).invoke();
      swap();
    }
  }

  public static void main(String[] args) {
    int rounds = 11, p2 = 0;
    boolean builtin = false;
    for (String arg : args) {
      String[] kv = arg.split("=", 2);
      switch (kv[0]) {
        case "rounds" -> rounds = Integer.parseInt(kv[1]);
        case "p2" -> p2 = Integer.parseInt(kv[1]);
        case "builtin" -> builtin = Boolean.parseBoolean(kv[1]);
        default -> throw new IllegalArgumentException("unknown argument " + arg);
      }
    }
    reset();
    for (int s = 0; s < STEPS; s++) {
      seqPass(1, N + 1, 1, N + 1);
      swap();
    }
    double[] expected = a.clone();
    if (p2 > 0) {
      try (WorkStealingPool two = WorkStealingPool.builder().parallelism(2).build()) {
        ForkJoinPool jdkTwo = new ForkJoinPool(2);
        for (int r = 0; r < p2; r++) {
          reset();
          two.invoke(
              Task.of(() -> {
                tineSteps();
                return null;
              }));
          check(expected, "tine p=2");
          reset();
          jdkTwo.invoke(ForkJoinTask.adapt(JacobiProbe::jdkSteps));
          check(expected, "jdk p=2");
        }
        jdkTwo.shutdown();
      }
    }
    WorkStealingPool one = WorkStealingPool.builder().parallelism(1).build();
    ForkJoinPool jdkOne = new ForkJoinPool(1);
    double[] tineSeq = new double[rounds],
        jdkSeq = new double[rounds],
        tineJdk = new double[rounds];
    for (int r = -2; r < rounds; r++) { // two rounds of warm-up
      reset();
      long seq =
          cpu(() -> {
            for (int s = 0; s < STEPS; s++) {
              seqPass(1, N + 1, 1, N + 1);
              swap();
            }
          });
      reset();
      long tine = one.invoke(Task.of(() -> cpu(JacobiProbe::tineSteps)));
      check(expected, "tine");
      reset();
      long jdk = jdkOne.invoke(ForkJoinTask.adapt(() -> cpu(JacobiProbe::jdkSteps)));
      check(expected, "jdk");
      if (builtin) {
        reset();
        jdkOne
            .submit(() -> {
              for (int s = 0; s < STEPS; s++) {
                IntStream.rangeClosed(1, N)
                    .parallel()
                    .mapToDouble(i -> stepTile(i, i + 1, 1, N + 1))
                    .max();
                swap();
              }
            })
            .join();
        check(expected, "jdk-builtin");
      }
      if (r >= 0) {
        tineSeq[r] = (double) tine / seq;
        jdkSeq[r] = (double) jdk / seq;
        tineJdk[r] = (double) tine / jdk;
      }
    }
    one.close();
    jdkOne.shutdown();
    System.out.printf(
        "p2=%d builtin=%s tine/seq=%s jdk/seq=%s tine/jdk=%s%n",
        p2, builtin, summary(tineSeq), summary(jdkSeq), summary(tineJdk));
  }

  static String summary(double[] x) {
    double[] y = x.clone();
    Arrays.sort(y);
    int n = y.length;
    double median = n % 2 == 1 ? y[n / 2] : (y[n / 2 - 1] + y[n / 2]) / 2;
    return String.format("%.3f[%.3f,%.3f]", median, y[0], y[n - 1]);
  }

  static void check(double[] expected, String what) {
    if (!Arrays.equals(a, expected)) {
      throw new AssertionError(what + ": the grid differs from the sequential one");
    }
  }
}

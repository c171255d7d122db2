package dev.tine.jmh;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.programs.QuickSort;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;

/**
 * The bench's {@code quicksort} at p=1 (the fork/join tuning study's program 2: fork the left part,
 * compute the right, down to single elements; 1M ints, the bench's seed) in one fresh JVM: the same
 * program on both runtimes (forks never joined, the root ending with {@code helpQuiesce()}, as the
 * bench's), Tine's {@code Task} and the JDK's {@code RecursiveAction}, against the sequential
 * recursion, each round in the running thread's CPU time (a busy box deschedules threads, which
 * wall time would count). Prints the median and range over the rounds of Tine/seq and JDK/seq, and
 * "best" (fastest round over sequential's fastest), so that several JVMs can be compared (the
 * latent-forks design note runs it in 10 or more).
 *
 * <pre>
 * java -cp tine-jmh/target/benchmarks.jar dev.tine.jmh.QuickSortProbe [n=1000000] [rounds=15]
 *     [warm=0] [fib=0] [p2=0]
 * </pre>
 *
 * {@code warm=K} runs each form K times untimed first (the bench's warm-up); {@code fib=K} first
 * runs another {@code Task} program (fork-every fib(25)) K times, as the bench's one JVM runs every
 * program, so that the runtime's shared join code has seen another task class; {@code p2=K} first
 * sorts K times with each runtime on a pool of two, as a bench run with {@code --threads 1,2}. Not
 * a JMH benchmark: its first rounds include compilation on purpose.
 */
public final class QuickSortProbe {
  private QuickSortProbe() {}

  static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  public static void main(String[] args) {
    int n = 1_000_000, rounds = 15, warm = 0, fib = 0, p2 = 0;
    for (String s : args) {
      String[] kv = s.split("=", 2);
      switch (kv[0]) {
        case "n" -> n = Integer.parseInt(kv[1]);
        case "rounds" -> rounds = Integer.parseInt(kv[1]);
        case "warm" -> warm = Integer.parseInt(kv[1]);
        case "fib" -> fib = Integer.parseInt(kv[1]);
        case "p2" -> p2 = Integer.parseInt(kv[1]);
        default -> throw new IllegalArgumentException("unknown argument " + s);
      }
    }
    int[] input = new SplittableRandom(20121203).ints(n).toArray();
    int[] sorted = input.clone();
    Arrays.sort(sorted);
    int[] work = new int[n];
    WorkStealingPool one = WorkStealingPool.builder().parallelism(1).build();
    ForkJoinPool jdkOne = new ForkJoinPool(1);
    long[] cpu = new long[1];
    for (int i = 0; i < fib; i++) {
      one.invoke(new ForkEveryProbe.TaskEvery(25));
    }
    try (WorkStealingPool two = WorkStealingPool.builder().parallelism(2).build()) {
      ForkJoinPool jdkTwo = new ForkJoinPool(2);
      for (int i = 0; i < p2; i++) {
        System.arraycopy(input, 0, work, 0, n);
        QuickSort.tineSort(two, work);
        check(work, sorted);
        System.arraycopy(input, 0, work, 0, n);
        QuickSort.jdkSort(jdkTwo, work, null);
        check(work, sorted);
      }
      jdkTwo.shutdown();
    }
    Runnable seq = () -> QuickSort.sequential(work, 0, work.length);
    Runnable tine =
        () ->
            one.invoke(
                Task.of(() -> {
                  long c0 = CPU.getCurrentThreadCpuTime();
                  new QuickSort.TineNoJoin(work, 0, work.length).invoke(); // in this worker
                  Task.helpQuiesce();
                  cpu[0] = CPU.getCurrentThreadCpuTime() - c0;
                  return null;
                }));
    Runnable jdk =
        () ->
            jdkOne.invoke(
                ForkJoinTask.adapt(() -> {
                  long c0 = CPU.getCurrentThreadCpuTime();
                  new QuickSort.JdkSort(work, 0, work.length).invoke(); // in this worker
                  ForkJoinTask.helpQuiesce();
                  cpu[0] = CPU.getCurrentThreadCpuTime() - c0;
                }));
    for (int i = 0; i < warm; i++) {
      for (Runnable r : new Runnable[] {seq, tine, jdk}) {
        System.arraycopy(input, 0, work, 0, n);
        r.run();
        check(work, sorted);
      }
    }
    double[] t = new double[rounds], j = new double[rounds];
    long bestSeq = Long.MAX_VALUE, bestTine = Long.MAX_VALUE, bestJdk = Long.MAX_VALUE;
    for (int r = 0; r < rounds; r++) {
      System.arraycopy(input, 0, work, 0, n);
      long c0 = CPU.getCurrentThreadCpuTime();
      seq.run();
      long s = CPU.getCurrentThreadCpuTime() - c0;
      check(work, sorted);
      System.arraycopy(input, 0, work, 0, n);
      tine.run();
      long ti = cpu[0];
      check(work, sorted);
      System.arraycopy(input, 0, work, 0, n);
      jdk.run();
      long jd = cpu[0];
      check(work, sorted);
      t[r] = (double) ti / s;
      j[r] = (double) jd / s;
      bestSeq = Math.min(bestSeq, s);
      bestTine = Math.min(bestTine, ti);
      bestJdk = Math.min(bestJdk, jd);
    }
    one.close();
    jdkOne.shutdown();
    System.out.printf(
        "warm=%d fib=%d p2=%d tine=%s best%.2f jdk=%s best%.2f seqBestMs=%.1f%n",
        warm,
        fib,
        p2,
        summary(t),
        (double) bestTine / bestSeq,
        summary(j),
        (double) bestJdk / bestSeq,
        bestSeq / 1e6);
  }

  static String summary(double[] x) {
    double[] s = x.clone();
    Arrays.sort(s);
    int m = s.length;
    double median = m % 2 == 1 ? s[m / 2] : (s[m / 2 - 1] + s[m / 2]) / 2;
    return String.format("%.2f[%.2f,%.2f]", median, s[0], s[m - 1]);
  }

  private static void check(int[] got, int[] sorted) {
    if (!Arrays.equals(got, sorted)) {
      throw new AssertionError("not sorted");
    }
  }
}

package dev.tine.bench.programs;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveAction;

/**
 * the fork/join tuning study §3 (the one home of its quicksort programs 1-3, for the bench and the
 * fork-join-tuning experiment): quicksort of 2M elements (1M at the quick size) with the study's
 * pivot rule (the larger of the first two distinct elements) and partition loop, forking down to
 * single elements (no grain size). The study sorts a List of boxed values; here an int[] range,
 * which is what users sort today.
 *
 * <ul>
 *   <li>seq: program 1, the same recursion with no forks;
 *   <li>jdk: program 2 exactly: fork the left part, compute the right part, never join; the root
 *       ends with {@code ForkJoinTask.helpQuiesce()}. (Not {@code pool.awaitQuiescence} from the
 *       calling thread: on JDK 25 it returned true here while forked partitions were still running,
 *       and the array was not yet sorted.)
 *   <li>tine: program 2 exactly, renamed ({@link #tineSort}: {@link TineNoJoin}, the root ending
 *       with {@code Task.helpQuiesce()}), so that the two runtimes run the same program. {@link
 *       TineSort} joins the left part instead (with latent forks a join costs about a call).
 * </ul>
 */
public final class QuickSort implements Program {
  @Override
  public String name() {
    return "quicksort";
  }

  @Override
  public String description() {
    return "the fork/join tuning study's quicksort, forking every partition, no grain size";
  }

  /**
   * The study's pivot(): index of the larger of the first two distinct elements, -1 if all equal.
   */
  static int pivot(int[] a, int lo, int hi) {
    int e1 = a[lo];
    for (int i = lo + 1; i < hi; i++) {
      int e2 = a[i];
      if (e1 < e2) return i;
      if (e1 > e2) return lo;
    }
    return -1;
  }

  /**
   * The study's process(): partitions [lo, hi); returns the split point, or -1 if nothing to do.
   */
  public static int partition(int[] a, int lo, int hi) {
    if (hi - lo <= 1) return -1;
    int p = pivot(a, lo, hi);
    if (p < 0) return -1;
    int e1 = a[p];
    int left = p, right = hi - 1;
    do {
      while (left < hi && e1 > a[left]) left++;
      while (right >= lo && e1 <= a[right]) right--;
      if (left < right) {
        int t = a[left];
        a[left++] = a[right];
        a[right--] = t;
      }
    } while (left <= right);
    return left;
  }

  /** Program 1: the same recursion with no forks. */
  public static void sequential(int[] a, int lo, int hi) {
    int pos = partition(a, lo, hi);
    if (pos > 0) {
      sequential(a, lo, pos);
      sequential(a, pos, hi);
    }
  }

  /**
   * The fork/join tuning study's QuickSortTask (program 2) on the JDK: fork left, compute right, no
   * join.
   */
  public static final class JdkSort extends RecursiveAction {
    final int[] a;
    final int lo, hi;

    public JdkSort(int[] a, int lo, int hi) {
      this.a = a;
      this.lo = lo;
      this.hi = hi;
    }

    @Override
    protected void compute() {
      int pos = partition(a, lo, hi);
      if (pos > 0) {
        new JdkSort(a, lo, pos).fork();
        new JdkSort(a, pos, hi).compute();
      }
    }
  }

  /** The same on Tine, joining the left part. */
  public static final class TineSort extends Task<Void> {
    final int[] a;
    final int lo, hi;

    public TineSort(int[] a, int lo, int hi) {
      this.a = a;
      this.lo = lo;
      this.hi = hi;
    }

    @Override
    protected Void compute() {
      int pos = partition(a, lo, hi);
      if (pos > 0) {
        Task<Void> left = new TineSort(a, lo, pos).fork();
        new TineSort(a, pos, hi).compute();
        left.join();
      }
      return null;
    }
  }

  /**
   * The fork/join tuning study's program 2 on Tine exactly: fork left, compute right, never join.
   */
  public static final class TineNoJoin extends Task<Void> {
    final int[] a;
    final int lo, hi;

    public TineNoJoin(int[] a, int lo, int hi) {
      this.a = a;
      this.lo = lo;
      this.hi = hi;
    }

    @Override
    protected Void compute() {
      int pos = partition(a, lo, hi);
      if (pos > 0) {
        new TineNoJoin(a, lo, pos).fork(); // never joined, as in the study
        new TineNoJoin(a, pos, hi).compute();
      }
      return null;
    }
  }

  /**
   * The fork/join tuning study's program 3 on the JDK: program 2 forking only while the {@link
   * Throttle} allows.
   */
  static final class JdkThrottled extends RecursiveAction {
    final int[] a;
    final int lo, hi;
    final Throttle th;

    JdkThrottled(int[] a, int lo, int hi, Throttle th) {
      this.a = a;
      this.lo = lo;
      this.hi = hi;
      this.th = th;
    }

    @Override
    protected void compute() {
      sort(lo, hi);
      th.done();
    }

    void sort(int l, int h) {
      int pos = partition(a, l, h);
      if (pos <= 0) return;
      if (th.tryFork()) {
        new JdkThrottled(a, l, pos, th).fork();
      } else {
        sort(l, pos);
      }
      sort(pos, h);
    }
  }

  /**
   * Sorts all of {@code a} in {@code pool} with the fork/join tuning study's program 2 ({@code th
   * == null}) or program 3 (throttled by {@code th}); the root waits for the forks those programs
   * never join.
   */
  public static void jdkSort(ForkJoinPool pool, int[] a, Throttle th) {
    pool.invoke(
        new RecursiveAction() {
          @Override
          protected void compute() {
            if (th == null) new JdkSort(a, 0, a.length).compute();
            else new JdkThrottled(a, 0, a.length, th).compute();
            ForkJoinTask.helpQuiesce();
          }
        });
  }

  /**
   * Sorts all of {@code a} in {@code pool} with the fork/join tuning study's program 2 on Tine,
   * exactly as {@link #jdkSort} runs it on the JDK: forks never joined, the root ending with {@link
   * Task#helpQuiesce()}.
   */
  public static void tineSort(WorkStealingPool pool, int[] a) {
    pool.invoke(
        new Task<Void>() {
          @Override
          protected Void compute() {
            new TineNoJoin(a, 0, a.length).compute();
            Task.helpQuiesce();
            return null;
          }
        });
  }

  @Override
  public Workload workload(Size size, Map<String, String> o) {
    int n = Program.intParam(o, "n", size == Size.PAPER ? 2_000_000 : 1_000_000);
    if (n < 1) throw new IllegalArgumentException("n must be positive");
    int[] input = new SplittableRandom(20121203).ints(n).toArray();
    long checksum = checksum(input);
    int[] work = new int[n];
    return new Workload() {
      @Override
      public String parameters() {
        return "n=" + n + " ints";
      }

      @Override
      public void prepare() {
        System.arraycopy(input, 0, work, 0, n);
      }

      @Override
      public Object sequential() {
        QuickSort.sequential(work, 0, n);
        return work;
      }

      @Override
      public Object tine(WorkStealingPool pool) {
        tineSort(pool, work);
        return work;
      }

      @Override
      public Object jdk(ForkJoinPool pool) {
        jdkSort(pool, work, null);
        return work;
      }

      @Override
      public String jdkBuiltinForm() {
        return "Arrays.parallelSort";
      }

      @Override
      public Object jdkBuiltin() {
        java.util.Arrays.parallelSort(work);
        return work;
      }

      @Override
      public boolean verify(Object r) {
        int[] a = (int[]) r;
        for (int i = 1; i < a.length; i++) {
          if (a[i - 1] > a[i]) return false;
        }
        return checksum(a) == checksum;
      }
    };
  }

  /** Order-independent checksum: sum and xor of a mix of every element (the multiset). */
  static long checksum(int[] a) {
    long sum = 0, x = 0;
    for (int v : a) {
      long m = v * 0x9E3779B97F4A7C15L;
      sum += m;
      x ^= Long.rotateLeft(m, 17);
    }
    return sum ^ (x * 31);
  }
}

package dev.tine.bench.programs;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.ForkJoinTask;

/**
 * Seed 000 §3: quicksort of 2M elements with the seed's pivot rule (the larger of the first two
 * distinct elements) and partition loop, forking down to single elements (no grain size). The
 * seed sorts a List of boxed values; here an int[] range, which is what users sort today.
 *
 * <ul>
 *   <li>seq: program 1, the same recursion with no forks;
 *   <li>jdk: program 2 exactly: fork the left part, compute the right part, never join; the root
 *       ends with {@code ForkJoinTask.helpQuiesce()}. (Not {@code pool.awaitQuiescence} from the
 *       calling thread: on JDK 25 it returned true here while forked partitions were still
 *       running, and the array was not yet sorted.)
 *   <li>tine: program 2's shape with a join of the left part (with latent forks a fork that is
 *       not needed by anyone costs about a call, so there is no reason to avoid the join).
 * </ul>
 */
public final class QuickSort implements Program {
  @Override
  public String name() {
    return "quicksort";
  }

  @Override
  public String description() {
    return "seed 000 quicksort, forking every partition, no grain size";
  }

  /** The seed's pivot(): index of the larger of the first two distinct elements, -1 if all equal. */
  static int pivot(int[] a, int lo, int hi) {
    int e1 = a[lo];
    for (int i = lo + 1; i < hi; i++) {
      int e2 = a[i];
      if (e1 < e2) return i;
      if (e1 > e2) return lo;
    }
    return -1;
  }

  /** The seed's process(): partitions [lo, hi); returns the split point, or -1 if nothing to do. */
  static int partition(int[] a, int lo, int hi) {
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

  static void sequential(int[] a, int lo, int hi) {
    int pos = partition(a, lo, hi);
    if (pos > 0) {
      sequential(a, lo, pos);
      sequential(a, pos, hi);
    }
  }

  /** Seed 000's QuickSortTask (program 2) on the JDK: fork left, compute right, no join. */
  static final class JdkSort extends RecursiveAction {
    final int[] a;
    final int lo, hi;

    JdkSort(int[] a, int lo, int hi) {
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
  static final class TineSort extends Task<Void> {
    final int[] a;
    final int lo, hi;

    TineSort(int[] a, int lo, int hi) {
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

  @Override
  public Workload workload(Size size, Map<String, String> o) {
    int n = Program.intParam(o, "n", 2_000_000);
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
        pool.invoke(new TineSort(work, 0, n));
        return work;
      }

      @Override
      public Object jdk(ForkJoinPool pool) {
        pool.invoke(new RecursiveAction() {
          @Override
          protected void compute() {
            new JdkSort(work, 0, n).compute();
            ForkJoinTask.helpQuiesce(); // wait for the forks program 2 never joins
          }
        });
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

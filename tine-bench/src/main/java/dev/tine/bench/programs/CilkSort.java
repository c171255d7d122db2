package dev.tine.bench.programs;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveAction;

/**
 * Lea's Sort (Lea's paper §4): Cilk's cilksort. Sort four quarters in parallel (into place, using
 * the other array as scratch), merge pairs in parallel into the scratch array, merge the halves
 * back; merges split by binary search (the larger run halves, the other is split at the same value)
 * so they run in parallel too. Cutoffs as in Cilk: sequential quicksort below 2048, sequential
 * merge below 2048, insertion sort below 20. Verified equal to {@link Arrays#sort}. {@code --set
 * sort.leaf=jdk} sorts the blocks below 2048 with {@link Arrays#sort} instead (on x86 with AVX-512
 * an intrinsic, several times faster than a scalar quicksort), to show how much of the gap to
 * {@code Arrays.parallelSort} is the leaf sort and how much the merges.
 */
public final class CilkSort implements Program {
  static final int QUICKSIZE = 2048, MERGESIZE = 2048, INSERTIONSIZE = 20;

  @Override
  public String name() {
    return "sort";
  }

  @Override
  public String description() {
    return "cilksort: parallel quarter sorts and binary-search merges (Lea's paper)";
  }

  // ----------------------------------------------------------------- sequential pieces

  static void insertion(int[] a, int lo, int hi) { // inclusive
    for (int i = lo + 1; i <= hi; i++) {
      int v = a[i], j = i - 1;
      while (j >= lo && a[j] > v) {
        a[j + 1] = a[j];
        j--;
      }
      a[j + 1] = v;
    }
  }

  static void seqQuick(int[] a, int lo, int hi) { // inclusive
    while (hi - lo >= INSERTIONSIZE) {
      int mid = (lo + hi) >>> 1;
      int x = a[lo], y = a[mid], z = a[hi];
      int p = x < y ? (y < z ? y : Math.max(x, z)) : (x < z ? x : Math.max(y, z)); // median of 3
      int i = lo, j = hi;
      while (i <= j) {
        while (a[i] < p) i++;
        while (a[j] > p) j--;
        if (i <= j) {
          int t = a[i];
          a[i++] = a[j];
          a[j--] = t;
        }
      }
      if (j - lo < hi - i) {
        seqQuick(a, lo, j);
        lo = i;
      } else {
        seqQuick(a, i, hi);
        hi = j;
      }
    }
    insertion(a, lo, hi);
  }

  static void seqMerge(int[] s, int lo1, int hi1, int lo2, int hi2, int[] d, int lod) {
    while (lo1 <= hi1 && lo2 <= hi2) d[lod++] = s[lo1] <= s[lo2] ? s[lo1++] : s[lo2++];
    while (lo1 <= hi1) d[lod++] = s[lo1++];
    while (lo2 <= hi2) d[lod++] = s[lo2++];
  }

  /** Largest index i in [lo − 1, hi] with s[i] ≤ val (s[lo..hi] sorted). */
  static int binSplit(int[] s, int val, int lo, int hi) {
    int l = lo, h = hi;
    while (l <= h) {
      int m = (l + h) >>> 1;
      if (s[m] <= val) l = m + 1;
      else h = m - 1;
    }
    return l - 1;
  }

  /** The shared shape of a merge step: null when done sequentially, else the split. */
  record Split(int lo1, int hi1, int lo2, int hi2, int lod, int split1, int split2, int lowSize) {}

  static Split planMerge(int[] s, int lo1, int hi1, int lo2, int hi2, int[] d, int lod) {
    if (hi2 - lo2 > hi1 - lo1) { // make run 1 the longer one
      int t = lo1;
      lo1 = lo2;
      lo2 = t;
      t = hi1;
      hi1 = hi2;
      hi2 = t;
    }
    if (hi1 < lo1) {
      System.arraycopy(s, lo2, d, lod, hi2 - lo2 + 1);
      return null;
    }
    if (hi2 - lo2 < MERGESIZE) {
      seqMerge(s, lo1, hi1, lo2, hi2, d, lod);
      return null;
    }
    int split1 = (lo1 + hi1) >>> 1;
    int split2 = binSplit(s, s[split1], lo2, hi2);
    int lowSize = split1 - lo1 + split2 - lo2;
    d[lod + lowSize + 1] = s[split1];
    return new Split(lo1, hi1, lo2, hi2, lod, split1, split2, lowSize);
  }

  static void seqMergePar(int[] s, int lo1, int hi1, int lo2, int hi2, int[] d, int lod) {
    Split p = planMerge(s, lo1, hi1, lo2, hi2, d, lod);
    if (p == null) return;
    seqMergePar(s, p.lo1, p.split1 - 1, p.lo2, p.split2, d, p.lod);
    seqMergePar(s, p.split1 + 1, p.hi1, p.split2 + 1, p.hi2, d, p.lod + p.lowSize + 2);
  }

  /** How a block below {@link #QUICKSIZE} is sorted: Cilk's quicksort, or the JDK's Arrays.sort. */
  interface Leaf {
    void sort(int[] a, int lo, int hi); // inclusive
  }

  static final Leaf CILK = CilkSort::seqQuick;
  static final Leaf JDK_LEAF = (a, lo, hi) -> Arrays.sort(a, lo, hi + 1);

  static void seqSort(int[] a, int[] tmp, int lo, int size, Leaf leaf) {
    if (size < QUICKSIZE) {
      leaf.sort(a, lo, lo + size - 1);
      return;
    }
    int q = size / 4, b = lo + q, c = b + q, dd = c + q;
    seqSort(a, tmp, lo, q, leaf);
    seqSort(a, tmp, b, q, leaf);
    seqSort(a, tmp, c, q, leaf);
    seqSort(a, tmp, dd, size - 3 * q, leaf);
    seqMergePar(a, lo, b - 1, b, c - 1, tmp, lo);
    seqMergePar(a, c, dd - 1, dd, lo + size - 1, tmp, c);
    seqMergePar(tmp, lo, c - 1, c, lo + size - 1, a, lo);
  }

  // ----------------------------------------------------------------- Tine

  static final class TineMerge extends Task<Void> {
    final int[] s, d;
    final int lo1, hi1, lo2, hi2, lod;

    TineMerge(int[] s, int lo1, int hi1, int lo2, int hi2, int[] d, int lod) {
      this.s = s;
      this.lo1 = lo1;
      this.hi1 = hi1;
      this.lo2 = lo2;
      this.hi2 = hi2;
      this.d = d;
      this.lod = lod;
    }

    @Override
    protected Void compute() {
      Split p = planMerge(s, lo1, hi1, lo2, hi2, d, lod);
      if (p != null) {
        invokeAll(
            new TineMerge(s, p.lo1, p.split1 - 1, p.lo2, p.split2, d, p.lod),
            new TineMerge(s, p.split1 + 1, p.hi1, p.split2 + 1, p.hi2, d, p.lod + p.lowSize + 2));
      }
      return null;
    }
  }

  static final class TineSort extends Task<Void> {
    final int[] a, tmp;
    final int lo, size;
    final Leaf leaf;

    TineSort(int[] a, int[] tmp, int lo, int size, Leaf leaf) {
      this.a = a;
      this.tmp = tmp;
      this.lo = lo;
      this.size = size;
      this.leaf = leaf;
    }

    @Override
    protected Void compute() {
      if (size < QUICKSIZE) {
        leaf.sort(a, lo, lo + size - 1);
        return null;
      }
      int q = size / 4, b = lo + q, c = b + q, dd = c + q;
      invokeAll(
          new TineSort(a, tmp, lo, q, leaf),
          new TineSort(a, tmp, b, q, leaf),
          new TineSort(a, tmp, c, q, leaf),
          new TineSort(a, tmp, dd, size - 3 * q, leaf));
      invokeAll(
          new TineMerge(a, lo, b - 1, b, c - 1, tmp, lo),
          new TineMerge(a, c, dd - 1, dd, lo + size - 1, tmp, c));
      new TineMerge(tmp, lo, c - 1, c, lo + size - 1, a, lo).invoke();
      return null;
    }
  }

  // ----------------------------------------------------------------- JDK

  static final class JdkMerge extends RecursiveAction {
    final int[] s, d;
    final int lo1, hi1, lo2, hi2, lod;

    JdkMerge(int[] s, int lo1, int hi1, int lo2, int hi2, int[] d, int lod) {
      this.s = s;
      this.lo1 = lo1;
      this.hi1 = hi1;
      this.lo2 = lo2;
      this.hi2 = hi2;
      this.d = d;
      this.lod = lod;
    }

    @Override
    protected void compute() {
      Split p = planMerge(s, lo1, hi1, lo2, hi2, d, lod);
      if (p != null) {
        ForkJoinTask.invokeAll(
            new JdkMerge(s, p.lo1, p.split1 - 1, p.lo2, p.split2, d, p.lod),
            new JdkMerge(s, p.split1 + 1, p.hi1, p.split2 + 1, p.hi2, d, p.lod + p.lowSize + 2));
      }
    }
  }

  static final class JdkSort extends RecursiveAction {
    final int[] a, tmp;
    final int lo, size;
    final Leaf leaf;

    JdkSort(int[] a, int[] tmp, int lo, int size, Leaf leaf) {
      this.a = a;
      this.tmp = tmp;
      this.lo = lo;
      this.size = size;
      this.leaf = leaf;
    }

    @Override
    protected void compute() {
      if (size < QUICKSIZE) {
        leaf.sort(a, lo, lo + size - 1);
        return;
      }
      int q = size / 4, b = lo + q, c = b + q, dd = c + q;
      ForkJoinTask.invokeAll(
          new JdkSort(a, tmp, lo, q, leaf),
          new JdkSort(a, tmp, b, q, leaf),
          new JdkSort(a, tmp, c, q, leaf),
          new JdkSort(a, tmp, dd, size - 3 * q, leaf));
      ForkJoinTask.invokeAll(
          new JdkMerge(a, lo, b - 1, b, c - 1, tmp, lo),
          new JdkMerge(a, c, dd - 1, dd, lo + size - 1, tmp, c));
      new JdkMerge(tmp, lo, c - 1, c, lo + size - 1, a, lo).invoke();
    }
  }

  @Override
  public Workload workload(Size size, Map<String, String> o) {
    int n = Program.intParam(o, "n", size == Size.PAPER ? 100_000_000 : 2_000_000);
    if (n < 1) throw new IllegalArgumentException("n must be positive");
    String leafName = o.getOrDefault("leaf", "cilk");
    if (!leafName.equals("cilk") && !leafName.equals("jdk"))
      throw new IllegalArgumentException("leaf must be cilk or jdk");
    Leaf leaf = leafName.equals("jdk") ? JDK_LEAF : CILK;
    int[] input = new SplittableRandom(1998).ints(n).toArray();
    int[] expect = input.clone();
    Arrays.sort(expect);
    int[] work = new int[n], tmp = new int[n];
    return new Workload() {
      @Override
      public String parameters() {
        return n
            + " ints"
            + (leaf == CILK ? "" : ", blocks below " + QUICKSIZE + " by Arrays.sort");
      }

      @Override
      public void prepare() {
        System.arraycopy(input, 0, work, 0, n);
      }

      @Override
      public Object sequential() {
        seqSort(work, tmp, 0, n, leaf);
        return work;
      }

      @Override
      public Object tine(WorkStealingPool pool) {
        pool.invoke(new TineSort(work, tmp, 0, n, leaf));
        return work;
      }

      @Override
      public Object jdk(ForkJoinPool pool) {
        pool.invoke(new JdkSort(work, tmp, 0, n, leaf));
        return work;
      }

      @Override
      public String jdkBuiltinForm() {
        return "Arrays.parallelSort";
      }

      @Override
      public Object jdkBuiltin() {
        Arrays.parallelSort(work);
        return work;
      }

      @Override
      public boolean verify(Object r) {
        return Arrays.equals((int[]) r, expect);
      }
    };
  }
}

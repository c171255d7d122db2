package dev.tine;

import java.util.Arrays;

/** Small fork/join programs with sequential twins, shared by the tests. */
final class Programs {
  private Programs() {}

  static long seqFib(int n) {
    return n < 2 ? n : seqFib(n - 1) + seqFib(n - 2);
  }

  /** The fork/join tuning study's program 2 shape: fork n-2, compute n-1 in place, join. */
  static final class Fib extends Task<Long> {
    final int n;

    Fib(int n) {
      this.n = n;
    }

    @Override
    protected Long compute() {
      if (n < 2) {
        return (long) n;
      }
      Fib f1 = new Fib(n - 2);
      f1.fork();
      return new Fib(n - 1).compute() + f1.join();
    }
  }

  /** Lea's shape: threshold, invokeAll of both halves. */
  static final class ThresholdFib extends Task<Long> {
    final int n;
    final int threshold;

    ThresholdFib(int n, int threshold) {
      this.n = n;
      this.threshold = threshold;
    }

    @Override
    protected Long compute() {
      if (n <= threshold) {
        return seqFib(n);
      }
      ThresholdFib a = new ThresholdFib(n - 1, threshold);
      ThresholdFib b = new ThresholdFib(n - 2, threshold);
      invokeAll(a, b);
      return a.join() + b.join();
    }
  }

  static final class Sum extends Task<Long> {
    final long[] a;
    final int lo, hi;

    Sum(long[] a, int lo, int hi) {
      this.a = a;
      this.lo = lo;
      this.hi = hi;
    }

    @Override
    protected Long compute() {
      if (hi - lo <= 64) {
        long s = 0;
        for (int i = lo; i < hi; i++) s += a[i];
        return s;
      }
      int mid = (lo + hi) >>> 1;
      Sum left = new Sum(a, lo, mid);
      Sum right = new Sum(a, mid, hi);
      left.fork();
      right.fork(); // fork a, fork b, join a, join b
      return left.join() + right.join();
    }
  }

  static final class MergeSort extends Task<Void> {
    final int[] a, tmp;
    final int lo, hi;

    MergeSort(int[] a, int[] tmp, int lo, int hi) {
      this.a = a;
      this.tmp = tmp;
      this.lo = lo;
      this.hi = hi;
    }

    @Override
    protected Void compute() {
      if (hi - lo <= 32) {
        Arrays.sort(a, lo, hi);
        return null;
      }
      int mid = (lo + hi) >>> 1;
      invokeAll(new MergeSort(a, tmp, lo, mid), new MergeSort(a, tmp, mid, hi));
      System.arraycopy(a, lo, tmp, lo, hi - lo);
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) a[k++] = tmp[i] <= tmp[j] ? tmp[i++] : tmp[j++];
      while (i < mid) a[k++] = tmp[i++];
      while (j < hi) a[k++] = tmp[j++];
      return null;
    }
  }

  /** Forks many children in a loop and joins them in fork order (a wide tree). */
  static final class WideSum extends Task<Long> {
    final int depth, width;

    WideSum(int depth, int width) {
      this.depth = depth;
      this.width = width;
    }

    @Override
    protected Long compute() {
      if (depth == 0) {
        return 1L;
      }
      WideSum[] kids = new WideSum[width];
      for (int i = 0; i < width; i++) {
        kids[i] = new WideSum(depth - 1, width);
        kids[i].fork();
      }
      long s = 1;
      for (WideSum k : kids) s += k.join();
      return s;
    }
  }

  static long wideCount(int depth, int width) {
    return depth == 0 ? 1 : 1 + width * wideCount(depth - 1, width);
  }
}

package dev.tine.bench.programs;

import java.util.SplittableRandom;

/**
 * The sequential pieces of cilksort for each data width of Lea's paper §4.3 (byte, short, int,
 * long): the loops that touch every element, written once per primitive type so that each runs at
 * that type's memory traffic. {@link WidthSort} builds the parallel sort on them. The four classes
 * are the same text with the type replaced (as {@link CilkSort}'s int pieces).
 */
abstract class Kernel<A> {
  static final int INSERTIONSIZE = 20;

  final String type;
  final int bytes;

  Kernel(String type, int bytes) {
    this.type = type;
    this.bytes = bytes;
  }

  abstract A alloc(int n);

  /** n values uniform in 0..255 from a seeded generator. */
  abstract A values(int n, long seed);

  /** Sequential quicksort of a[lo..hi] (inclusive), insertion sort below {@link #INSERTIONSIZE}. */
  abstract void quick(A a, int lo, int hi);

  /** Merges the sorted runs s[lo1..hi1] and s[lo2..hi2] into d from lod. */
  abstract void merge(A s, int lo1, int hi1, int lo2, int hi2, A d, int lod);

  /** The largest index i in [lo − 1, hi] with s[i] ≤ s[at] (s[lo..hi] sorted). */
  abstract int binSplit(A s, int at, int lo, int hi);

  /** d[j] = s[i]. */
  abstract void copy(A s, int i, A d, int j);

  abstract boolean sorted(A a);

  /** Count of each value's low byte: with values 0..255, the multiset itself. */
  abstract long[] histogram(A a);

  static final Kernel<?>[] ALL = {new Bytes(), new Shorts(), new Ints(), new Longs()};

  /** byte[] values. */
  static final class Bytes extends Kernel<byte[]> {
    Bytes() {
      super("byte", 1);
    }

    @Override
    byte[] alloc(int n) {
      return new byte[n];
    }

    @Override
    byte[] values(
        int n, long seed) { // 0..255, as in Lea's experiment (a byte holds them as -128..127)
      byte[] a = new byte[n];
      SplittableRandom r = new SplittableRandom(seed);
      for (int i = 0; i < n; i++) a[i] = (byte) r.nextInt(256);
      return a;
    }

    @Override
    void quick(byte[] a, int lo, int hi) {
      while (hi - lo >= INSERTIONSIZE) {
        int mid = (lo + hi) >>> 1;
        byte x = a[lo], y = a[mid], z = a[hi];
        byte p =
            x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y)); // median of 3
        int i = lo, j = hi;
        while (i <= j) {
          while (a[i] < p) i++;
          while (a[j] > p) j--;
          if (i <= j) {
            byte s = a[i];
            a[i++] = a[j];
            a[j--] = s;
          }
        }
        if (j - lo < hi - i) {
          quick(a, lo, j);
          lo = i;
        } else {
          quick(a, i, hi);
          hi = j;
        }
      }
      for (int i = lo + 1; i <= hi; i++) { // insertion sort
        byte v = a[i];
        int j = i - 1;
        while (j >= lo && a[j] > v) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = v;
      }
    }

    @Override
    void merge(byte[] s, int lo1, int hi1, int lo2, int hi2, byte[] d, int lod) {
      while (lo1 <= hi1 && lo2 <= hi2) d[lod++] = s[lo1] <= s[lo2] ? s[lo1++] : s[lo2++];
      while (lo1 <= hi1) d[lod++] = s[lo1++];
      while (lo2 <= hi2) d[lod++] = s[lo2++];
    }

    @Override
    int binSplit(byte[] s, int at, int lo, int hi) {
      byte val = s[at];
      int l = lo, h = hi;
      while (l <= h) {
        int m = (l + h) >>> 1;
        if (s[m] <= val) l = m + 1;
        else h = m - 1;
      }
      return l - 1;
    }

    @Override
    void copy(byte[] s, int i, byte[] d, int j) {
      d[j] = s[i];
    }

    @Override
    boolean sorted(byte[] a) {
      for (int i = 1; i < a.length; i++) if (a[i - 1] > a[i]) return false;
      return true;
    }

    @Override
    long[] histogram(byte[] a) {
      long[] h = new long[256];
      for (byte v : a) h[(int) v & 0xFF]++;
      return h;
    }
  }

  /** short[] values. */
  static final class Shorts extends Kernel<short[]> {
    Shorts() {
      super("short", 2);
    }

    @Override
    short[] alloc(int n) {
      return new short[n];
    }

    @Override
    short[] values(
        int n, long seed) { // 0..255, as in Lea's experiment (a byte holds them as -128..127)
      short[] a = new short[n];
      SplittableRandom r = new SplittableRandom(seed);
      for (int i = 0; i < n; i++) a[i] = (short) r.nextInt(256);
      return a;
    }

    @Override
    void quick(short[] a, int lo, int hi) {
      while (hi - lo >= INSERTIONSIZE) {
        int mid = (lo + hi) >>> 1;
        short x = a[lo], y = a[mid], z = a[hi];
        short p =
            x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y)); // median of 3
        int i = lo, j = hi;
        while (i <= j) {
          while (a[i] < p) i++;
          while (a[j] > p) j--;
          if (i <= j) {
            short s = a[i];
            a[i++] = a[j];
            a[j--] = s;
          }
        }
        if (j - lo < hi - i) {
          quick(a, lo, j);
          lo = i;
        } else {
          quick(a, i, hi);
          hi = j;
        }
      }
      for (int i = lo + 1; i <= hi; i++) { // insertion sort
        short v = a[i];
        int j = i - 1;
        while (j >= lo && a[j] > v) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = v;
      }
    }

    @Override
    void merge(short[] s, int lo1, int hi1, int lo2, int hi2, short[] d, int lod) {
      while (lo1 <= hi1 && lo2 <= hi2) d[lod++] = s[lo1] <= s[lo2] ? s[lo1++] : s[lo2++];
      while (lo1 <= hi1) d[lod++] = s[lo1++];
      while (lo2 <= hi2) d[lod++] = s[lo2++];
    }

    @Override
    int binSplit(short[] s, int at, int lo, int hi) {
      short val = s[at];
      int l = lo, h = hi;
      while (l <= h) {
        int m = (l + h) >>> 1;
        if (s[m] <= val) l = m + 1;
        else h = m - 1;
      }
      return l - 1;
    }

    @Override
    void copy(short[] s, int i, short[] d, int j) {
      d[j] = s[i];
    }

    @Override
    boolean sorted(short[] a) {
      for (int i = 1; i < a.length; i++) if (a[i - 1] > a[i]) return false;
      return true;
    }

    @Override
    long[] histogram(short[] a) {
      long[] h = new long[256];
      for (short v : a) h[(int) v & 0xFF]++;
      return h;
    }
  }

  /** int[] values. */
  static final class Ints extends Kernel<int[]> {
    Ints() {
      super("int", 4);
    }

    @Override
    int[] alloc(int n) {
      return new int[n];
    }

    @Override
    int[] values(
        int n, long seed) { // 0..255, as in Lea's experiment (a byte holds them as -128..127)
      int[] a = new int[n];
      SplittableRandom r = new SplittableRandom(seed);
      for (int i = 0; i < n; i++) a[i] = (int) r.nextInt(256);
      return a;
    }

    @Override
    void quick(int[] a, int lo, int hi) {
      while (hi - lo >= INSERTIONSIZE) {
        int mid = (lo + hi) >>> 1;
        int x = a[lo], y = a[mid], z = a[hi];
        int p =
            x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y)); // median of 3
        int i = lo, j = hi;
        while (i <= j) {
          while (a[i] < p) i++;
          while (a[j] > p) j--;
          if (i <= j) {
            int s = a[i];
            a[i++] = a[j];
            a[j--] = s;
          }
        }
        if (j - lo < hi - i) {
          quick(a, lo, j);
          lo = i;
        } else {
          quick(a, i, hi);
          hi = j;
        }
      }
      for (int i = lo + 1; i <= hi; i++) { // insertion sort
        int v = a[i];
        int j = i - 1;
        while (j >= lo && a[j] > v) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = v;
      }
    }

    @Override
    void merge(int[] s, int lo1, int hi1, int lo2, int hi2, int[] d, int lod) {
      while (lo1 <= hi1 && lo2 <= hi2) d[lod++] = s[lo1] <= s[lo2] ? s[lo1++] : s[lo2++];
      while (lo1 <= hi1) d[lod++] = s[lo1++];
      while (lo2 <= hi2) d[lod++] = s[lo2++];
    }

    @Override
    int binSplit(int[] s, int at, int lo, int hi) {
      int val = s[at];
      int l = lo, h = hi;
      while (l <= h) {
        int m = (l + h) >>> 1;
        if (s[m] <= val) l = m + 1;
        else h = m - 1;
      }
      return l - 1;
    }

    @Override
    void copy(int[] s, int i, int[] d, int j) {
      d[j] = s[i];
    }

    @Override
    boolean sorted(int[] a) {
      for (int i = 1; i < a.length; i++) if (a[i - 1] > a[i]) return false;
      return true;
    }

    @Override
    long[] histogram(int[] a) {
      long[] h = new long[256];
      for (int v : a) h[(int) v & 0xFF]++;
      return h;
    }
  }

  /** long[] values. */
  static final class Longs extends Kernel<long[]> {
    Longs() {
      super("long", 8);
    }

    @Override
    long[] alloc(int n) {
      return new long[n];
    }

    @Override
    long[] values(
        int n, long seed) { // 0..255, as in Lea's experiment (a byte holds them as -128..127)
      long[] a = new long[n];
      SplittableRandom r = new SplittableRandom(seed);
      for (int i = 0; i < n; i++) a[i] = (long) r.nextInt(256);
      return a;
    }

    @Override
    void quick(long[] a, int lo, int hi) {
      while (hi - lo >= INSERTIONSIZE) {
        int mid = (lo + hi) >>> 1;
        long x = a[lo], y = a[mid], z = a[hi];
        long p =
            x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y)); // median of 3
        int i = lo, j = hi;
        while (i <= j) {
          while (a[i] < p) i++;
          while (a[j] > p) j--;
          if (i <= j) {
            long s = a[i];
            a[i++] = a[j];
            a[j--] = s;
          }
        }
        if (j - lo < hi - i) {
          quick(a, lo, j);
          lo = i;
        } else {
          quick(a, i, hi);
          hi = j;
        }
      }
      for (int i = lo + 1; i <= hi; i++) { // insertion sort
        long v = a[i];
        int j = i - 1;
        while (j >= lo && a[j] > v) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = v;
      }
    }

    @Override
    void merge(long[] s, int lo1, int hi1, int lo2, int hi2, long[] d, int lod) {
      while (lo1 <= hi1 && lo2 <= hi2) d[lod++] = s[lo1] <= s[lo2] ? s[lo1++] : s[lo2++];
      while (lo1 <= hi1) d[lod++] = s[lo1++];
      while (lo2 <= hi2) d[lod++] = s[lo2++];
    }

    @Override
    int binSplit(long[] s, int at, int lo, int hi) {
      long val = s[at];
      int l = lo, h = hi;
      while (l <= h) {
        int m = (l + h) >>> 1;
        if (s[m] <= val) l = m + 1;
        else h = m - 1;
      }
      return l - 1;
    }

    @Override
    void copy(long[] s, int i, long[] d, int j) {
      d[j] = s[i];
    }

    @Override
    boolean sorted(long[] a) {
      for (int i = 1; i < a.length; i++) if (a[i - 1] > a[i]) return false;
      return true;
    }

    @Override
    long[] histogram(long[] a) {
      long[] h = new long[256];
      for (long v : a) h[(int) v & 0xFF]++;
      return h;
    }
  }
}

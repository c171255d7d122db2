package dev.tine.bench.programs;

/** The seed 000 quicksort's partition and sequential sort, for the seed 000 experiment. */
public final class QuickSortAccess {
  private QuickSortAccess() {}

  public static int partition(int[] a, int lo, int hi) {
    return QuickSort.partition(a, lo, hi);
  }

  public static void sequential(int[] a, int lo, int hi) {
    QuickSort.sequential(a, lo, hi);
  }
}

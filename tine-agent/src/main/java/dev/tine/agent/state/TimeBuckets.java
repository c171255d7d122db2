package dev.tine.agent.state;

/**
 * The agent's histogram resolution for wait and service times: log-linear buckets of nanoseconds,
 * {@value #PER_OCTAVE} per power of two from 256 ns to 2^42 ns (73 minutes), and one bucket below
 * 256 ns. A value read back is interpolated inside its bucket, so a percentile is within 6.25% of
 * the true one (half a bucket's width at the bottom of an octave), and usually within 3%. Means do
 * not come from the buckets: they come from exact sums.
 *
 * <p>Why so coarse: a histogram of {@value #COUNT} longs is 2.2 KB, so a pool's window of wait and
 * service histograms (a ring of a few cumulative copies) stays within tens of KB, where the
 * 3-significant-digit histograms of tine-executor's {@code PoolMeter} took 180 KB each and 4 to 17
 * MB per pool. The agent must not be what runs its target out of heap.
 */
final class TimeBuckets {
  private TimeBuckets() {}

  static final int PER_OCTAVE = 8;
  private static final int SUB_BITS = 3; // log2(PER_OCTAVE)
  static final int MIN_EXP = 8; // 256 ns
  static final int MAX_EXP = 42; // about 73 minutes
  static final int COUNT = 1 + (MAX_EXP - MIN_EXP) * PER_OCTAVE;

  /** The bucket of a time in nanoseconds (negative counts as 0, beyond the range as the last). */
  static int index(long nanos) {
    if (nanos < (1L << MIN_EXP)) return 0;
    int e = 63 - Long.numberOfLeadingZeros(nanos);
    if (e >= MAX_EXP) return COUNT - 1;
    int sub = (int) (nanos >>> (e - SUB_BITS)) & (PER_OCTAVE - 1);
    return 1 + (e - MIN_EXP) * PER_OCTAVE + sub;
  }

  /** The smallest time in bucket {@code i} (ns). */
  static double lower(int i) {
    if (i == 0) return 0;
    int k = i - 1;
    int e = MIN_EXP + k / PER_OCTAVE, s = k % PER_OCTAVE;
    return Math.scalb(1.0 + (double) s / PER_OCTAVE, e);
  }

  /** The time just past bucket {@code i} (ns). */
  static double upper(int i) {
    return i == COUNT - 1 ? Math.scalb(1.0, MAX_EXP + 1) : lower(i + 1);
  }

  /**
   * The {@code percentile} (0..100) of the counts {@code now[i] - base[i]} ({@code base} may be
   * null), in nanoseconds, interpolated inside its bucket; NaN if there are none.
   */
  static double percentile(long[] now, long[] base, double percentile) {
    long total = 0;
    for (int i = 0; i < COUNT; i++) total += now[i] - (base == null ? 0 : base[i]);
    if (total <= 0) return Double.NaN;
    double rank = Math.max(1, Math.ceil(percentile / 100.0 * total));
    long seen = 0;
    for (int i = 0; i < COUNT; i++) {
      long c = now[i] - (base == null ? 0 : base[i]);
      if (c <= 0) continue;
      if (seen + c >= rank) {
        double within = (rank - seen) / (double) c; // (0, 1]
        double lo = lower(i), hi = upper(i);
        return lo + (hi - lo) * (within - 0.5 / c);
      }
      seen += c;
    }
    return upper(COUNT - 1);
  }
}

package dev.tine.agent.state;

/**
 * The arrival times of a FIFO queue's tasks beyond what the {@link ArrivalTable} holds, kept as a
 * cumulative arrival curve instead of per task: in a FIFO queue the k-th task to start without an
 * entry in the table is the k-th to have arrived without one, so its wait is its start minus the
 * k-th arrival time of this curve. The curve is a ring of buckets (arrivals within {@code width}
 * nanoseconds of the bucket's first: their count, the sum of their times, the first and last), so
 * its heap does not grow with the queue: at most {@value #MAX_BUCKETS} buckets (about 28 bytes
 * each); when they are all used, the width doubles and neighbours that fit in it merge.
 *
 * <p>What is exact: each bucket's sum of arrival times, so the summed waits of the tasks that start
 * from a bucket (and a window's mean wait, but for the two buckets at its edges) are exact; one
 * task's wait, for the percentiles, is interpolated within its bucket's span (1 ms at first). It is
 * only right for a FIFO queue, whose non-entry tasks start in their order of arrival.
 *
 * <p>Under its own monitor: only pools whose queue holds more timed tasks than the table come here,
 * so the lock is taken by saturated pools only.
 */
public final class ArrivalCurve {
  /** Buckets at most (merged two by two beyond). */
  public static final int MAX_BUCKETS = 1024;

  /** A bucket's span at first: arrivals this close to the bucket's first share it. */
  static final long FIRST_WIDTH_NANOS = 1_000_000;

  private int[] count = new int[16];

  /** Per bucket, the sum of its arrivals' times less its {@code lo} (small: no overflow). */
  private long[] offsets = new long[16];

  /** Per bucket, the earliest and latest arrival it holds. */
  private long[] lo = new long[16], hi = new long[16];

  private int head, size;
  private long width = FIRST_WIDTH_NANOS;

  /** Arrivals held. */
  private long held;

  /**
   * Tasks without an entry that were queued before the curve took its first arrival (untimed ones,
   * or ones queued before the agent): they start first, untimed.
   */
  private long ahead;

  /** Whether arrivals without an entry come here (from an overflow of the table to empty again). */
  private volatile boolean active;

  public boolean active() {
    return active;
  }

  /**
   * The table overflowed: from now on every arrival without an entry comes here. {@code ahead} is
   * how many tasks without an entry are queued already (they will start first).
   */
  public synchronized void activate(long ahead) {
    if (active) return;
    this.ahead = Math.max(0, ahead);
    active = true;
  }

  /**
   * Records an arrival at {@code t}; false if the curve is no longer active (emptied since the
   * caller looked), and the arrival then goes to the table as usual.
   */
  public synchronized boolean arrive(long t) {
    if (!active) return false;
    if (size > 0) {
      int tail = (head + size - 1) % count.length;
      if (t - lo[tail] < width) {
        // submitters read the clock before the lock: a time a little before the bucket's first
        // still joins it (rebased)
        if (t < lo[tail]) {
          offsets[tail] += (long) count[tail] * (lo[tail] - t);
          lo[tail] = t;
        }
        count[tail]++;
        offsets[tail] += t - lo[tail];
        hi[tail] = Math.max(hi[tail], t);
        held++;
        return true;
      }
    }
    if (size == count.length) {
      if (size < MAX_BUCKETS) grow();
      else merge();
    }
    int tail = (head + size) % count.length;
    count[tail] = 1;
    offsets[tail] = 0;
    lo[tail] = hi[tail] = t;
    size++;
    held++;
    return true;
  }

  /**
   * A task without an entry starts: the arrival time matched to it (the oldest held, FIFO), or
   * {@link PoolTally#UNTIMED} if it was queued before the curve began or the curve is empty.
   */
  public synchronized long takeOldest() {
    if (ahead > 0) {
      ahead--;
      return PoolTally.UNTIMED;
    }
    if (size == 0) {
      active = false;
      return PoolTally.UNTIMED;
    }
    int b = head;
    long t = takeFrom(b, true);
    if (count[b] == 0) {
      head = (head + 1) % count.length;
      size--;
    }
    if (--held == 0) active = false;
    return t == PoolTally.UNTIMED ? 1 : t;
  }

  /**
   * The newest arrival leaves without going through the queue (rejected, or handed to a new thread
   * as its first task): its time, or {@link PoolTally#UNTIMED} if none is held.
   */
  public synchronized long takeNewest() {
    if (size == 0) return PoolTally.UNTIMED;
    int b = (head + size - 1) % count.length;
    long t = takeFrom(b, false);
    if (count[b] == 0) size--;
    if (--held == 0 && ahead == 0) active = false;
    return t == PoolTally.UNTIMED ? 1 : t;
  }

  /**
   * Drops the {@code n} oldest arrivals (tasks that left the queue without starting: removed,
   * purged, discarded). Returns how many went.
   */
  public synchronized long dropOldest(long n) {
    long k = 0;
    while (k < n && ahead > 0) {
      ahead--;
      k++;
    }
    while (k < n && size > 0) {
      takeOldestLocked();
      k++;
    }
    if (held == 0 && ahead == 0) active = false;
    return k;
  }

  private void takeOldestLocked() {
    int b = head;
    takeFrom(b, true);
    if (count[b] == 0) {
      head = (head + 1) % count.length;
      size--;
    }
    held--;
  }

  /**
   * Takes one arrival from bucket {@code b}, the first ({@code oldest}) or the last. The estimate
   * keeps the bucket's remaining sum exact: it lies as far below (above) the bucket's mean as the
   * nearer end allows, and the last one left is the exact remainder.
   */
  private long takeFrom(int b, boolean oldest) {
    int c = count[b];
    long base = lo[b];
    if (c == 1) {
      count[b] = 0;
      return base + offsets[b];
    }
    double mean = (double) offsets[b] / c; // relative to lo
    double span = Math.min(mean, (hi[b] - base) - mean);
    long est = base + Math.round(oldest ? mean - span : mean + span);
    est = Math.max(base, Math.min(hi[b], est));
    count[b] = c - 1;
    offsets[b] -= est - base;
    if (oldest) {
      // the rest are at or after est: rebase so offsets stay non-negative
      long shift = est - base;
      if (offsets[b] >= shift * (c - 1L)) {
        offsets[b] -= shift * (c - 1L);
        lo[b] = est;
      }
    } else {
      hi[b] = Math.max(lo[b], est);
    }
    return est;
  }

  private void grow() {
    int n = count.length * 2;
    int[] c = new int[n];
    long[] o = new long[n], l = new long[n], h = new long[n];
    for (int i = 0; i < size; i++) {
      int j = (head + i) % count.length;
      c[i] = count[j];
      o[i] = offsets[j];
      l[i] = lo[j];
      h[i] = hi[j];
    }
    count = c;
    offsets = o;
    lo = l;
    hi = h;
    head = 0;
  }

  /**
   * All buckets in use: the span doubles, and neighbours that fit in it together merge, until a
   * quarter of the ring is free. Only neighbours that fit merge: two bursts seconds apart never
   * share a bucket (one that spanned the gap put its estimates inside it, and a window's mean that
   * took part of it read −6% to +8% on a 50,000-task queue).
   */
  private void merge() {
    int n = count.length;
    do {
      width *= 2;
      int[] c = new int[n];
      long[] o = new long[n], l = new long[n], h = new long[n];
      int m = 0;
      for (int i = 0; i < size; m++) {
        int a = (head + i) % n;
        c[m] = count[a];
        o[m] = offsets[a];
        l[m] = lo[a];
        h[m] = hi[a];
        i++;
        if (i < size) {
          int b = (head + i) % n;
          if (hi[b] - lo[a] < width) {
            long base = Math.min(lo[a], lo[b]);
            c[m] += count[b];
            o[m] +=
                (long) count[a] * (lo[a] - base) + offsets[b] + (long) count[b] * (lo[b] - base);
            l[m] = base;
            h[m] = Math.max(hi[a], hi[b]);
            i++;
          }
        }
      }
      count = c;
      offsets = o;
      lo = l;
      hi = h;
      head = 0;
      size = m;
    } while (size > n * 3 / 4);
  }

  /** {@return arrivals held, and tasks known to be queued ahead of them} */
  public synchronized long held() {
    return held + ahead;
  }

  /** {@return buckets in use (for tests and the heap accounting)} */
  public synchronized int buckets() {
    return size;
  }

  /** {@return the ring's capacity in buckets} */
  public synchronized int capacity() {
    return count.length;
  }

  /** {@return the current bucket span} */
  public synchronized long widthNanos() {
    return width;
  }

  /** Bytes of heap at most (the ring at {@link #MAX_BUCKETS}). */
  public static long maxBytes() {
    return MAX_BUCKETS * (4L + 3 * 8L) + 4 * 16 + 64;
  }

  public synchronized void clear() {
    head = size = 0;
    held = ahead = 0;
    active = false;
  }
}

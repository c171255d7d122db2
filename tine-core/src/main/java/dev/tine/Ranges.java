package dev.tine;

import java.util.function.DoubleBinaryOperator;
import java.util.function.IntConsumer;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntToLongFunction;
import java.util.function.LongBinaryOperator;

/**
 * Lazily split loops (Tine.forRange/reduceLong/reduceDouble): run the range sequentially and,
 * every {@link #POLL_EVERY} iterations, if some worker is hungry and our deque offers nothing,
 * hand the upper half of what remains to the deque. Splits are joined at the end, newest first,
 * which is index order for the combine. A thief that takes a half runs the same loop, so halves
 * split again while hunger lasts.
 */
final class Ranges {
  private Ranges() {}

  /**
   * Iterations between polls of the hunger word: a poll is one shared read; 32 keeps it under
   * a few percent of even a one-nanosecond body, and under 100 µs of latency for bodies up to
   * about 3 µs.
   */
  static final int POLL_EVERY = 32;

  static final class RangeJob extends Task<Object> {
    static final int FOR = 0, LONG = 1, DOUBLE = 2;
    final int mode, from, to;
    final Object fn, combine;
    final long longIdentity;
    final double doubleIdentity;
    long longResult;
    double doubleResult;

    RangeJob(int mode, int from, int to, Object fn, Object combine, long li, double di) {
      this.mode = mode;
      this.from = from;
      this.to = to;
      this.fn = fn;
      this.combine = combine;
      this.longIdentity = li;
      this.doubleIdentity = di;
    }

    @Override
    protected Object compute() {
      Worker w = (Worker) Thread.currentThread();
      switch (mode) {
        case FOR -> forRange(w, from, to, (IntConsumer) fn);
        case LONG -> longResult = reduceLong(w, from, to, longIdentity, (IntToLongFunction) fn, (LongBinaryOperator) combine);
        default -> doubleResult = reduceDouble(w, from, to, doubleIdentity, (IntToDoubleFunction) fn, (DoubleBinaryOperator) combine);
      }
      return null;
    }
  }

  private static boolean shouldSplit(Worker w, int i, int end) {
    return end - i >= 2 && w.pool.hungry != 0 && w.deque.size() == 0;
  }

  private static RangeJob split(Worker w, RangeJob job) {
    job.markPromoted();
    w.countPromotion();
    w.publish(job);
    return job;
  }

  private static RangeJob[] add(RangeJob[] a, int n, RangeJob j) {
    if (a == null) {
      a = new RangeJob[8];
    } else if (n == a.length) {
      a = java.util.Arrays.copyOf(a, n * 2);
    }
    a[n] = j;
    return a;
  }

  private static void joinQuietly(RangeJob[] splits, int n) {
    for (int k = n - 1; k >= 0; k--) {
      try {
        splits[k].join();
      } catch (RuntimeException | Error ignored) {
        // the first exception, already propagating, is the one reported
      }
    }
  }

  static void forRange(Worker w, int from, int to, IntConsumer body) {
    int i = from, end = to, n = 0;
    RangeJob[] splits = null;
    try {
      while (i < end) {
        int stop = Math.min(end, i + POLL_EVERY);
        for (; i < stop; i++) {
          body.accept(i);
        }
        if (shouldSplit(w, i, end)) {
          int mid = i + ((end - i) >>> 1);
          splits = add(splits, n++, split(w, new RangeJob(RangeJob.FOR, mid, end, body, null, 0, 0)));
          end = mid;
        }
      }
    } catch (Throwable e) {
      joinQuietly(splits, n);
      throw e;
    }
    for (int k = n - 1; k >= 0; k--) {
      splits[k].join();
    }
  }

  static long reduceLong(Worker w, int from, int to, long identity, IntToLongFunction map, LongBinaryOperator combine) {
    long acc = identity;
    int i = from, end = to, n = 0;
    RangeJob[] splits = null;
    try {
      while (i < end) {
        int stop = Math.min(end, i + POLL_EVERY);
        for (; i < stop; i++) {
          acc = combine.applyAsLong(acc, map.applyAsLong(i));
        }
        if (shouldSplit(w, i, end)) {
          int mid = i + ((end - i) >>> 1);
          splits = add(splits, n++, split(w, new RangeJob(RangeJob.LONG, mid, end, map, combine, identity, 0)));
          end = mid;
        }
      }
    } catch (Throwable e) {
      joinQuietly(splits, n);
      throw e;
    }
    for (int k = n - 1; k >= 0; k--) {
      splits[k].join();
      acc = combine.applyAsLong(acc, splits[k].longResult);
    }
    return acc;
  }

  static double reduceDouble(Worker w, int from, int to, double identity, IntToDoubleFunction map, DoubleBinaryOperator combine) {
    double acc = identity;
    int i = from, end = to, n = 0;
    RangeJob[] splits = null;
    try {
      while (i < end) {
        int stop = Math.min(end, i + POLL_EVERY);
        for (; i < stop; i++) {
          acc = combine.applyAsDouble(acc, map.applyAsDouble(i));
        }
        if (shouldSplit(w, i, end)) {
          int mid = i + ((end - i) >>> 1);
          splits = add(splits, n++, split(w, new RangeJob(RangeJob.DOUBLE, mid, end, map, combine, 0, identity)));
          end = mid;
        }
      }
    } catch (Throwable e) {
      joinQuietly(splits, n);
      throw e;
    }
    for (int k = n - 1; k >= 0; k--) {
      splits[k].join();
      acc = combine.applyAsDouble(acc, splits[k].doubleResult);
    }
    return acc;
  }
}

package dev.tine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntConsumer;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntToLongFunction;
import java.util.function.LongBinaryOperator;

/**
 * Lazily split loops (Tine.forRange/reduceLong/reduceDouble): run the range sequentially and, every
 * {@link #POLL_EVERY} iterations, if some worker is hungry and our deque offers nothing, hand the
 * upper half of what remains to the deque. Splits are joined at the end, newest first, which is
 * index order for the combine. A thief that takes a half runs the same loop, so halves split again
 * while hunger lasts.
 *
 * <p><b>No iteration after the call returns.</b> Whether the loop ends normally or by an exception,
 * every split is accounted for before it returns: one not started yet is disarmed (a CAS on its
 * {@code state}, so it never runs its body), one started is waited for. The first exception in
 * index order is thrown, after all of them.
 */
final class Ranges {
  private Ranges() {}

  /**
   * Iterations between polls of the hunger word: a poll is one shared read; 32 keeps it under a few
   * percent of even a one-nanosecond body, and under 100 µs of latency for bodies up to about 3 µs.
   */
  static final int POLL_EVERY = 32;

  static final class RangeJob extends Task<Object> {
    static final int FOR = 0, LONG = 1, DOUBLE = 2;
    private static final int NEW = 0, STARTED = 1, DISARMED = 2;
    private static final VarHandle STATE;

    static {
      try {
        STATE = MethodHandles.lookup().findVarHandle(RangeJob.class, "state", int.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final int mode, from, to;
    final Object fn, combine;
    final long longIdentity;
    final double doubleIdentity;
    long longResult;
    double doubleResult;
    private volatile int state;

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
      if (!STATE.compareAndSet(this, NEW, STARTED)) {
        return null; // disarmed: the loop that split us has already ended
      }
      Worker w = (Worker) Thread.currentThread();
      switch (mode) {
        case FOR -> forRange(w, from, to, (IntConsumer) fn);
        case LONG ->
            longResult =
                reduceLong(
                    w,
                    from,
                    to,
                    longIdentity,
                    (IntToLongFunction) fn,
                    (LongBinaryOperator) combine);
        default ->
            doubleResult =
                reduceDouble(
                    w,
                    from,
                    to,
                    doubleIdentity,
                    (IntToDoubleFunction) fn,
                    (DoubleBinaryOperator) combine);
      }
      return null;
    }

    /** True if the job will never run its body (it had not started); then nobody waits for it. */
    boolean disarm() {
      return STATE.compareAndSet(this, NEW, DISARMED);
    }
  }

  /*
   * Index arithmetic. A range may span up to 2^32 - 1 indices ([MIN_VALUE, MAX_VALUE)), so end - i
   * (with i < end) is correct only as an unsigned int, and i + POLL_EVERY may overflow past
   * MAX_VALUE. Hence: the chunk end is computed in long, the remaining length is compared unsigned,
   * and the midpoint is i + ((end - i) >>> 1), which lies in [i, end) and never overflows.
   */

  /** The end of the next chunk: at most POLL_EVERY iterations from i, never past end. */
  static int chunkEnd(int i, int end) {
    return (int) Math.min(end, (long) i + POLL_EVERY);
  }

  /** Whether {@code [i, end)}, with {@code i <= end}, holds at least two indices. */
  static boolean splittable(int i, int end) {
    return Integer.compareUnsigned(end - i, 2) >= 0;
  }

  private static boolean shouldSplit(Worker w, int i, int end) {
    return splittable(i, end) && LatentJoins.shouldPromote(w);
  }

  /**
   * Publishes a split that the caller has already recorded, so the end of the loop accounts for it.
   */
  private static void pushSplit(Worker w, RangeJob job) {
    job.markPromoted();
    LatentJoins.countPromotion(w);
    w.pushSplit(job);
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

  /**
   * Ends the loop: waits for every split (newest first, which is index order), disarming the
   * unstarted ones if the loop failed, and throws the first failure in index order.
   */
  private static void settle(RangeJob[] splits, int n, Throwable failure) {
    for (int k = n - 1; k >= 0; k--) {
      RangeJob j = splits[k];
      if (failure != null && j.disarm()) {
        continue;
      }
      try {
        j.join();
      } catch (Throwable e) {
        if (failure == null) {
          failure = e;
        }
      }
    }
    if (failure != null) {
      throw Adapters.<RuntimeException>sneaky(failure);
    }
  }

  static void forRange(Worker w, int from, int to, IntConsumer body) {
    int i = from, end = to, n = 0;
    RangeJob[] splits = null;
    Throwable failure = null;
    try {
      while (i < end) {
        int stop = chunkEnd(i, end);
        for (; i < stop; i++) {
          body.accept(i);
        }
        if (shouldSplit(w, i, end)) {
          int mid = i + ((end - i) >>> 1);
          RangeJob job = new RangeJob(RangeJob.FOR, mid, end, body, null, 0, 0);
          splits = add(splits, n, job);
          n++;
          pushSplit(w, job);
          end = mid;
        }
      }
    } catch (Throwable e) {
      failure = e;
    }
    settle(splits, n, failure);
  }

  static long reduceLong(
      Worker w,
      int from,
      int to,
      long identity,
      IntToLongFunction map,
      LongBinaryOperator combine) {
    long acc = identity;
    int i = from, end = to, n = 0;
    RangeJob[] splits = null;
    Throwable failure = null;
    try {
      while (i < end) {
        int stop = chunkEnd(i, end);
        for (; i < stop; i++) {
          acc = combine.applyAsLong(acc, map.applyAsLong(i));
        }
        if (shouldSplit(w, i, end)) {
          int mid = i + ((end - i) >>> 1);
          RangeJob job = new RangeJob(RangeJob.LONG, mid, end, map, combine, identity, 0);
          splits = add(splits, n, job);
          n++;
          pushSplit(w, job);
          end = mid;
        }
      }
    } catch (Throwable e) {
      failure = e;
    }
    settle(splits, n, failure);
    for (int k = n - 1; k >= 0; k--) {
      acc = combine.applyAsLong(acc, splits[k].longResult);
    }
    return acc;
  }

  static double reduceDouble(
      Worker w,
      int from,
      int to,
      double identity,
      IntToDoubleFunction map,
      DoubleBinaryOperator combine) {
    double acc = identity;
    int i = from, end = to, n = 0;
    RangeJob[] splits = null;
    Throwable failure = null;
    try {
      while (i < end) {
        int stop = chunkEnd(i, end);
        for (; i < stop; i++) {
          acc = combine.applyAsDouble(acc, map.applyAsDouble(i));
        }
        if (shouldSplit(w, i, end)) {
          int mid = i + ((end - i) >>> 1);
          RangeJob job = new RangeJob(RangeJob.DOUBLE, mid, end, map, combine, 0, identity);
          splits = add(splits, n, job);
          n++;
          pushSplit(w, job);
          end = mid;
        }
      }
    } catch (Throwable e) {
      failure = e;
    }
    settle(splits, n, failure);
    for (int k = n - 1; k >= 0; k--) {
      acc = combine.applyAsDouble(acc, splits[k].doubleResult);
    }
    return acc;
  }
}

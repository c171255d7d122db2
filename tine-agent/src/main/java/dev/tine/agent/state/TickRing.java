package dev.tine.agent.state;

/**
 * A pool's readings at its last ticks (process CPU of its threads; a Tine pool's arrivals and tasks
 * executed), so that each tick can give their change over the window. The ticker's only.
 */
final class TickRing {
  private final long[] nanos, cpu, arrivals, executed;
  private int index, filled;

  // the change over the window, as of the last add
  private double seconds;
  private long cpuDelta, arrivalsDelta, executedDelta;

  /**
   * @param slots readings kept: the window's ticks and one
   * @param startsNow whether a first reading of 0 is taken now (a pool whose threads' CPU is
   *     counted from when they join it; Tine pools report CPU since their start)
   */
  TickRing(int slots, long now, boolean startsNow) {
    nanos = new long[slots];
    cpu = new long[slots];
    arrivals = new long[slots];
    executed = new long[slots];
    if (startsNow) {
      nanos[0] = now;
      index = filled = 1;
    }
  }

  /**
   * Records this tick's readings ({@code cpuNanos} -1: unknown) and their change since the oldest.
   */
  void add(long now, long cpuNanos, long arrivalsNow, long executedNow) {
    nanos[index] = now;
    cpu[index] = cpuNanos;
    arrivals[index] = arrivalsNow;
    executed[index] = executedNow;
    int oldest = filled < nanos.length - 1 ? 0 : (index + 1) % nanos.length;
    filled = Math.min(filled + 1, nanos.length - 1);
    seconds = (now - nanos[oldest]) / 1e9;
    cpuDelta = cpuNanos >= 0 && cpu[oldest] >= 0 ? cpuNanos - cpu[oldest] : -1;
    arrivalsDelta = arrivalsNow - arrivals[oldest];
    executedDelta = executedNow - executed[oldest];
    index = (index + 1) % nanos.length;
  }

  /** Seconds from the oldest reading to the last. */
  double seconds() {
    return seconds;
  }

  /** CPU nanoseconds over the window, or -1 if unknown. */
  long cpuDelta() {
    return cpuDelta;
  }

  long arrivalsDelta() {
    return arrivalsDelta;
  }

  long executedDelta() {
    return executedDelta;
  }
}

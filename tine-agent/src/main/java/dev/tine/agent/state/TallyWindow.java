package dev.tine.agent.state;

import dev.tine.agent.AgentConfig;

/**
 * A pool's sliding window over its {@link PoolTally}: a ring of cumulative readings, one every
 * {@code stride} ticks, and the figures of the difference between the latest reading and the oldest
 * one kept. At most {@value #MAX_SLOTS} readings are kept whatever the window (a longer window
 * slides in coarser steps), so a pool's window costs at most about 80 KB. Ticker only.
 */
final class TallyWindow {
  static final int MAX_SLOTS = 16;

  private final PoolTally.Totals[] ring;
  private final int stride;
  private final PoolTally.Totals now = new PoolTally.Totals();
  private int newest, filled, ticks;
  private long carriedWaitMax, carriedServiceMax;

  TallyWindow(AgentConfig config, long startNanos) {
    int windowTicks =
        (int) Math.max(1, config.window().toNanos() / Math.max(1, config.tick().toNanos()));
    int slots = Math.min(windowTicks, MAX_SLOTS);
    stride = (windowTicks + slots - 1) / slots;
    ring = new PoolTally.Totals[slots + 1];
    for (int i = 0; i < ring.length; i++) ring[i] = new PoolTally.Totals();
    ring[0].nanos = startNanos; // nothing counted before the tally existed
    filled = 1;
  }

  /** Bytes of heap the window holds (for the agent's accounting). */
  static long bytes(AgentConfig config) {
    int windowTicks =
        (int) Math.max(1, config.window().toNanos() / Math.max(1, config.tick().toNanos()));
    int totals = Math.min(windowTicks, MAX_SLOTS) + 2;
    return totals * (2L * (16 + 8L * TimeBuckets.COUNT) + 100);
  }

  /** Reads the tally, moves the window, and fills {@code f}'s counts, rates and times. */
  void tick(PoolTally tally, long nanos, PoolFigures f) {
    tally.read(now, nanos);
    now.waitMax = Math.max(now.waitMax, carriedWaitMax);
    now.serviceMax = Math.max(now.serviceMax, carriedServiceMax);
    if (++ticks % stride == 0) {
      newest = (newest + 1) % ring.length;
      ring[newest].copyFrom(now);
      filled = Math.min(filled + 1, ring.length);
      carriedWaitMax = carriedServiceMax = 0;
    } else {
      carriedWaitMax = now.waitMax;
      carriedServiceMax = now.serviceMax;
    }
    int oldest = (newest - filled + 1 + ring.length) % ring.length;
    PoolTally.Totals base = ring[oldest];
    long waitMax = now.waitMax, serviceMax = now.serviceMax;
    for (int k = 1, i = (oldest + 1) % ring.length; k < filled; k++, i = (i + 1) % ring.length) {
      waitMax = Math.max(waitMax, ring[i].waitMax);
      serviceMax = Math.max(serviceMax, ring[i].serviceMax);
    }
    figures(now, base, waitMax, serviceMax, f);
  }

  /**
   * The figures of the period between {@code base} and {@code now}. L is Little's law as the agent
   * documents it, L = λ·(Wq + S) with λ the arrival rate, not the completion rate: while a queue
   * grows, completions lag arrivals and the product with them reads low.
   */
  static void figures(
      PoolTally.Totals now, PoolTally.Totals base, long waitMax, long serviceMax, PoolFigures f) {
    f.arrivals = now.arrivals;
    f.completed = now.completed;
    f.rejected = now.rejected;
    f.failed = now.failed;
    double secs = Math.max(1e-9, (now.nanos - base.nanos) / 1e9);
    f.windowSeconds = secs;
    f.windowArrivals = now.arrivals - base.arrivals;
    f.windowCompleted = now.completed - base.completed;
    f.windowRejected = now.rejected - base.rejected;
    f.arrivalRate = f.windowArrivals / secs;
    f.retirementRate = f.windowCompleted / secs;
    long timed = now.timed - base.timed;
    f.timedTasks = timed;
    if (timed > 0) {
      long w = now.waitNanos - base.waitNanos, s = now.serviceNanos - base.serviceNanos;
      f.serviceMs = s / 1e6 / timed;
      f.waitMs = w / 1e6 / timed;
      f.responseMs = f.serviceMs + f.waitMs;
      // λ counts accepted arrivals: a rejected task never waits nor runs
      double accepted = (f.windowArrivals - f.windowRejected) / secs;
      f.littlesL = accepted * f.responseMs / 1000.0;
      f.deadTimeRatio = w + s == 0 ? 0 : (double) w / (w + s);
      // a percentile interpolated inside its bucket can pass the exact maximum: never shown above
      f.waitMaxMs = waitMax / 1e6;
      f.waitP50Ms = atMost(TimeBuckets.percentile(now.wait, base.wait, 50) / 1e6, f.waitMaxMs);
      f.waitP90Ms = atMost(TimeBuckets.percentile(now.wait, base.wait, 90) / 1e6, f.waitMaxMs);
      f.waitP99Ms = atMost(TimeBuckets.percentile(now.wait, base.wait, 99) / 1e6, f.waitMaxMs);
      f.serviceMaxMs = serviceMax / 1e6;
      f.serviceP50Ms =
          atMost(TimeBuckets.percentile(now.service, base.service, 50) / 1e6, f.serviceMaxMs);
      f.serviceP90Ms =
          atMost(TimeBuckets.percentile(now.service, base.service, 90) / 1e6, f.serviceMaxMs);
      f.serviceP99Ms =
          atMost(TimeBuckets.percentile(now.service, base.service, 99) / 1e6, f.serviceMaxMs);
    }
    f.totalTimed = now.timed;
    f.totalWaitSeconds = now.waitNanos / 1e9;
    f.totalServiceSeconds = now.serviceNanos / 1e9;
  }

  private static double atMost(double p, double max) {
    return max > 0 ? Math.min(p, max) : p;
  }
}

package dev.tine.executor;

import java.util.Locale;

/**
 * A {@link PoolMeter}'s measurements over time: the bucket being filled (the current tick), a ring
 * of the last completed ticks (the sliding window), and the total since start. Each tick the
 * current bucket moves into the total and the ring. Not thread-safe; the meter's lock guards it.
 */
final class MeasurementWindow {
  private final long startNanos;
  private final long tickNanos;

  /** Every completed tick since start. */
  private final MeasurementBucket total;

  /** The last completed ticks; {@code ring[next]} is the oldest, overwritten by the next tick. */
  private final MeasurementBucket[] ring;

  private int next;

  /** The tick in progress: harvests add to it. */
  final MeasurementBucket current;

  MeasurementWindow(long now, long tickNanos, long windowNanos) {
    this.startNanos = now;
    this.tickNanos = tickNanos;
    this.total = new MeasurementBucket(now);
    this.ring = new MeasurementBucket[(int) Math.max(1, windowNanos / tickNanos)];
    for (int i = 0; i < ring.length; i++) ring[i] = new MeasurementBucket(now);
    this.current = new MeasurementBucket(now);
  }

  /** Ends the current tick at {@code now} (after its last harvest) and starts the next. */
  void rotate(long now) {
    current.endNanos = now;
    total.add(current);
    ring[next].reset(now);
    ring[next].add(current);
    next = (next + 1) % ring.length;
    current.reset(now);
  }

  /** Everything since start, up to {@code now} (the current tick included). */
  MeasurementBucket sinceStart(long now) {
    MeasurementBucket b = new MeasurementBucket(startNanos);
    b.add(total);
    b.add(current);
    b.startNanos = startNanos;
    b.endNanos = now;
    return b;
  }

  /** The sliding window: the ring's ticks and the current one, up to {@code now}. */
  MeasurementBucket window(long now) {
    MeasurementBucket b = new MeasurementBucket(now);
    for (MeasurementBucket r : ring) {
      if (r.covers()) b.add(r);
    }
    b.add(current);
    b.startNanos = Math.max(startNanos, b.startNanos);
    b.endNanos = now;
    return b;
  }

  /** The last {@code ticks} completed ticks (at most the window's). */
  MeasurementBucket recent(int ticks, long now) {
    MeasurementBucket b = new MeasurementBucket(now);
    for (int k = 1; k <= Math.min(ticks, ring.length); k++) {
      MeasurementBucket r = ring[(next - k + ring.length) % ring.length];
      if (r.covers()) b.add(r);
    }
    return b;
  }

  /** "last 10 s" for a 10 s window. */
  String windowLabel() {
    return String.format(Locale.ROOT, "last %.0f s", (double) tickNanos * ring.length / 1e9);
  }
}

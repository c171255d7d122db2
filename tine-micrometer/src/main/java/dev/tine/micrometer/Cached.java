package dev.tine.micrometer;

import java.time.Duration;
import java.util.function.Function;

/**
 * The last value read from a source, read again once it is older than {@code maxAge}: one scrape
 * reads many meters of one pool, and each read of a snapshot costs (a pool's {@code stats()} asks
 * the ThreadMXBean about every worker; an executor's {@code snapshot()} merges histograms).
 *
 * <p>Holds the value only, never the source, so a meter's weak reference to its pool still lets the
 * pool be collected.
 */
final class Cached<T, V> {
  private final Function<? super T, ? extends V> read;
  private final long maxAgeNanos;
  private V value;
  private long readAt;

  Cached(Function<? super T, ? extends V> read, Duration maxAge) {
    this.read = read;
    this.maxAgeNanos = maxAge.toNanos();
  }

  synchronized V get(T source) {
    long now = System.nanoTime();
    if (value == null || now - readAt >= maxAgeNanos) {
      value = read.apply(source);
      readAt = now;
    }
    return value;
  }
}

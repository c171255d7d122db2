package dev.tine.executor;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** Configures a {@link PoolMeter}: {@code PoolMeter.builder()...build()}. */
public final class PoolMeterBuilder {
  String name;
  Duration tick = Duration.ofSeconds(1);
  Duration window = Duration.ofSeconds(10);
  int sampling = 1;
  int processors = Runtime.getRuntime().availableProcessors();
  boolean ownTicker = true;
  PoolMeter.Gauges gauges;
  Consumer<PoolMeter> onTick;
  Supplier<TaskTimings> newTimings = TaskTimings::new;

  PoolMeterBuilder() {}

  /**
   * Names the meter and its ticker thread (default {@code pool-meter-<n>}).
   *
   * @param name the name, not blank
   * @return this builder
   */
  public PoolMeterBuilder name(String name) {
    if (name == null || name.isBlank())
      throw new IllegalArgumentException("name must not be blank");
    this.name = name;
    return this;
  }

  /**
   * How often the meter harvests (default 1 s, at least 10 ms).
   *
   * @param tick how often the meter harvests (default 1 s, at least 10 ms)
   * @return this builder
   */
  public PoolMeterBuilder tick(Duration tick) {
    if (tick.toMillis() < 10) throw new IllegalArgumentException("tick must be at least 10 ms");
    this.tick = tick;
    return this;
  }

  /**
   * Length of the sliding window of {@link PoolMeter#windowSnapshot()} (default 10 s), in ticks.
   *
   * @param window length of the sliding window of {@link PoolMeter#windowSnapshot()} (default 10
   *     s), in ticks
   * @return this builder
   */
  public PoolMeterBuilder window(Duration window) {
    if (window.isNegative() || window.isZero())
      throw new IllegalArgumentException("window must be positive");
    this.window = window;
    return this;
  }

  /**
   * Time one task in {@code n}, chosen at random (default 1: every task). Counts stay exact; means
   * and percentiles of wait, service and response come from the timed tasks.
   *
   * @param n one task in {@code n} is timed, at least 1
   * @return this builder
   */
  public PoolMeterBuilder sampling(int n) {
    if (n <= 0) throw new IllegalArgumentException("sampling must be positive, was " + n);
    this.sampling = n;
    return this;
  }

  /**
   * Processors the per-CPU figures and utilizations divide by (default: available processors).
   *
   * @param n processors the per-CPU figures and utilizations divide by (default: available
   *     processors)
   * @return this builder
   */
  public PoolMeterBuilder processors(int n) {
    if (n <= 0) throw new IllegalArgumentException("processors must be positive, was " + n);
    this.processors = n;
    return this;
  }

  /**
   * Whether the meter ticks itself on a daemon thread of its own (default true), or the owner calls
   * {@link PoolMeter#tick()}.
   *
   * @param own false when the owner calls {@link PoolMeter#tick()} itself
   * @return this builder
   */
  public PoolMeterBuilder ownTicker(boolean own) {
    this.ownTicker = own;
    return this;
  }

  /**
   * Pool size and queue length, for the snapshots and the queue-length samples (default none: -1).
   *
   * @param gauges pool size and queue length, for the snapshots and the queue-length samples
   *     (default none: -1)
   * @return this builder
   */
  public PoolMeterBuilder gauges(PoolMeter.Gauges gauges) {
    this.gauges = Objects.requireNonNull(gauges);
    return this;
  }

  /**
   * Runs after each tick's harvest with the meter, on the ticking thread, outside the meter's lock
   * (ticks never overlap); what it throws counts as a tick failure. The meter's own ticker may run
   * it before {@link #build()} has returned to the owner, hence the argument.
   *
   * @param listener called with the meter after each harvest
   * @return this builder
   */
  public PoolMeterBuilder onTick(Consumer<PoolMeter> listener) {
    this.onTick = Objects.requireNonNull(listener);
    return this;
  }

  /** For tests: how recorders' timing sets are made (to simulate a full heap). */
  PoolMeterBuilder timings(Supplier<TaskTimings> newTimings) {
    this.newTimings = Objects.requireNonNull(newTimings);
    return this;
  }

  /** {@return a meter, ticking already if it has its own ticker} */
  public PoolMeter build() {
    return new PoolMeter(this);
  }
}

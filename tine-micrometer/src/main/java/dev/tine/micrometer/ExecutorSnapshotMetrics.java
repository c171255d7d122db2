package dev.tine.micrometer;

import dev.tine.executor.ExecutorSnapshot;
import dev.tine.executor.MeasuredExecutor;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Meters for any pool that describes itself with {@link ExecutorSnapshot}s: a {@link
 * MeasuredExecutor} ({@link #of(MeasuredExecutor)}), or another source, such as a pool measured by
 * an agent, through {@link #builder}: a source object, the function that reads its figures since
 * start, and optionally its sliding-window figures and a few live gauges.
 *
 * <p>Names follow Micrometer's executor meters where one exists: {@code executor.completed}, {@code
 * executor.queued}, {@code executor.active}, {@code executor.pool.size}, {@code
 * executor.pool.core}, {@code executor.pool.max}, the queue-wait timer {@code executor.idle} and
 * the run-time timer {@code executor}; the rest are named in the same style, with base units. Every
 * meter is tagged {@code name} and {@code type}, plus any tags given.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>kind</th><th>unit</th><th>from</th></tr>
 *   <tr><td>executor.completed</td><td>function counter</td><td>tasks</td><td>since start: completed</td></tr>
 *   <tr><td>executor.failed</td><td>function counter</td><td>tasks</td><td>since start: failed (threw)</td></tr>
 *   <tr><td>executor.rejected</td><td>function counter</td><td>tasks</td><td>since start: rejected</td></tr>
 *   <tr><td>executor.idle</td><td>function timer</td><td>seconds</td>
 *       <td>since start: time tasks waited in the queue (count: completed; total: mean wait × completed)</td></tr>
 *   <tr><td>executor</td><td>function timer</td><td>seconds</td>
 *       <td>since start: time tasks ran (service time), as above</td></tr>
 *   <tr><td>executor.queued</td><td>gauge</td><td>tasks</td><td>queue length now</td></tr>
 *   <tr><td>executor.pool.size</td><td>gauge</td><td>threads</td><td>worker threads now</td></tr>
 *   <tr><td>executor.pool.core, executor.pool.max, executor.active</td><td>gauge</td><td>threads</td>
 *       <td>where the source provides them ({@link Builder#poolCore}, {@link Builder#poolMax},
 *       {@link Builder#active})</td></tr>
 *   <tr><td>executor.littles.l</td><td>gauge</td><td>tasks</td>
 *       <td>window: Little's law L = throughput × mean response time, the mean number of tasks in
 *       the executor (queued and running)</td></tr>
 *   <tr><td>executor.dead.time</td><td>gauge</td><td>ratio</td>
 *       <td>window: wait / (wait + service), 0..1</td></tr>
 *   <tr><td>executor.idle.percentile (tag {@code phi} 0.5, 0.9, 0.99), executor.idle.max</td>
 *       <td>time gauge</td><td>seconds</td><td>window: queue-wait percentiles and maximum</td></tr>
 *   <tr><td>executor.percentile (tag {@code phi} 0.5, 0.9, 0.99), executor.max</td>
 *       <td>time gauge</td><td>seconds</td><td>window: service-time percentiles and maximum</td></tr>
 * </table>
 *
 * <p>"Window" figures come from the window function, or from the since-start one if none is given.
 * The percentiles are the source's own (HdrHistogram, 3 significant digits), published as gauges
 * named and tagged the way Micrometer publishes a timer's client-side percentiles. Each snapshot
 * function is called at most once per {@code maxAge} (default 1 s), whatever the number of meters.
 * The meters hold the source weakly, as Micrometer's own binders do: keep a reference to it.
 *
 * @param <T> the type of the source
 */
public final class ExecutorSnapshotMetrics<T> implements MeterBinder {
  /** The {@code type} tag's value for a {@link MeasuredExecutor}. */
  public static final String MEASURED_TYPE = "measured";

  private static final double[] PHIS = {0.5, 0.9, 0.99};

  private final Builder<T> b;

  private ExecutorSnapshotMetrics(Builder<T> b) {
    this.b = b;
  }

  /**
   * Meters for a {@link MeasuredExecutor}: its {@code snapshot()} since start, its {@code
   * windowSnapshot()} for the window figures, {@code poolSize()} as {@code executor.pool.core}, and
   * {@code executor.active} estimated as accepted − completed − queued tasks (every accepted task
   * is completed, running or queued). Tagged with the executor's name and {@code type=measured}.
   *
   * @param executor the executor to measure
   * @return its binder
   */
  public static ExecutorSnapshotMetrics<MeasuredExecutor> of(MeasuredExecutor executor) {
    return of(executor, Tags.empty());
  }

  /**
   * As {@link #of(MeasuredExecutor)}, with extra tags.
   *
   * @param executor the executor to measure
   * @param tags extra tags for every meter
   * @return its binder
   */
  public static ExecutorSnapshotMetrics<MeasuredExecutor> of(
      MeasuredExecutor executor, Iterable<Tag> tags) {
    Builder<MeasuredExecutor> b =
        builder(executor.name(), MEASURED_TYPE, executor, MeasuredExecutor::snapshot)
            .window(MeasuredExecutor::windowSnapshot)
            .poolCore(MeasuredExecutor::poolSize)
            .tags(tags);
    return b.build();
  }

  /**
   * A builder for meters of {@code source}, named {@code name} and of type {@code type} (the tags'
   * values), whose figures since start {@code sinceStart} reads.
   *
   * @param name the {@code name} tag's value
   * @param type the {@code type} tag's value, such as {@value #MEASURED_TYPE}
   * @param source the object measured; the meters hold it weakly
   * @param sinceStart reads the source's figures since it started
   * @param <T> the type of the source
   * @return a builder
   */
  public static <T> Builder<T> builder(
      String name, String type, T source, Function<? super T, ExecutorSnapshot> sinceStart) {
    return new Builder<>(name, type, source, sinceStart);
  }

  /**
   * Configures {@link ExecutorSnapshotMetrics}.
   *
   * @param <T> the type of the source
   */
  public static final class Builder<T> {
    private final String name;
    private final String type;
    private final T source;
    private final Function<? super T, ExecutorSnapshot> sinceStart;
    private Function<? super T, ExecutorSnapshot> window;
    private ToDoubleFunction<? super T> poolCore;
    private ToDoubleFunction<? super T> poolMax;
    private ToDoubleFunction<? super T> active;
    private Tags tags = Tags.empty();
    private Duration maxAge = Duration.ofSeconds(1);

    private Builder(
        String name, String type, T source, Function<? super T, ExecutorSnapshot> sinceStart) {
      this.name = Objects.requireNonNull(name, "name");
      this.type = Objects.requireNonNull(type, "type");
      this.source = Objects.requireNonNull(source, "source");
      this.sinceStart = Objects.requireNonNull(sinceStart, "sinceStart");
    }

    /**
     * The sliding-window figures (percentiles, Little's L, dead-time ratio).
     *
     * @param window reads the source's figures over its recent window
     * @return this builder
     */
    public Builder<T> window(Function<? super T, ExecutorSnapshot> window) {
      this.window = Objects.requireNonNull(window, "window");
      return this;
    }

    /**
     * {@code executor.pool.core}: the number of threads the pool keeps.
     *
     * @param poolCore reads it from the source
     * @return this builder
     */
    public Builder<T> poolCore(ToDoubleFunction<? super T> poolCore) {
      this.poolCore = Objects.requireNonNull(poolCore, "poolCore");
      return this;
    }

    /**
     * {@code executor.pool.max}: the most threads the pool may have.
     *
     * @param poolMax reads it from the source
     * @return this builder
     */
    public Builder<T> poolMax(ToDoubleFunction<? super T> poolMax) {
      this.poolMax = Objects.requireNonNull(poolMax, "poolMax");
      return this;
    }

    /**
     * {@code executor.active}: threads running tasks now. If not given, it is estimated from the
     * since-start figures as accepted − completed − queued tasks (see {@link
     * #of(MeasuredExecutor)}).
     *
     * @param active reads it from the source
     * @return this builder
     */
    public Builder<T> active(ToDoubleFunction<? super T> active) {
      this.active = Objects.requireNonNull(active, "active");
      return this;
    }

    /**
     * Extra tags for every meter.
     *
     * @param tags the tags
     * @return this builder
     */
    public Builder<T> tags(Iterable<Tag> tags) {
      this.tags = this.tags.and(tags);
      return this;
    }

    /**
     * How old a snapshot may be before a meter reads a new one (default 1 s; {@link Duration#ZERO}:
     * never reused).
     *
     * @param maxAge the age
     * @return this builder
     */
    public Builder<T> maxAge(Duration maxAge) {
      this.maxAge = Objects.requireNonNull(maxAge, "maxAge");
      return this;
    }

    /**
     * The binder; {@link #bindTo} registers its meters.
     *
     * @return the binder
     */
    public ExecutorSnapshotMetrics<T> build() {
      return new ExecutorSnapshotMetrics<>(this);
    }
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Tags tags = Tags.of("name", b.name, "type", b.type).and(b.tags);
    Cached<T, ExecutorSnapshot> total = new Cached<>(b.sinceStart, b.maxAge);
    Cached<T, ExecutorSnapshot> window =
        b.window == null ? total : new Cached<>(b.window, b.maxAge);
    T s = b.source;

    counter(
        registry,
        tags,
        "executor.completed",
        "Tasks that finished, normally or not",
        t -> total.get(t).completed());
    counter(registry, tags, "executor.failed", "Tasks that threw", t -> total.get(t).failed());
    counter(
        registry,
        tags,
        "executor.rejected",
        "Tasks refused (bounded queue full, or shut down)",
        t -> total.get(t).rejected());

    FunctionTimer.builder(
            "executor.idle",
            s,
            t -> total.get(t).completed(),
            t -> total.get(t).avgWaitMs() * total.get(t).completed(),
            TimeUnit.MILLISECONDS)
        .tags(tags)
        .description("Time tasks waited in the queue before they ran")
        .register(registry);
    FunctionTimer.builder(
            "executor",
            s,
            t -> total.get(t).completed(),
            t -> total.get(t).avgServiceMs() * total.get(t).completed(),
            TimeUnit.MILLISECONDS)
        .tags(tags)
        .description("Time tasks ran (service time)")
        .register(registry);

    gauge(
        registry,
        tags,
        "executor.queued",
        BaseUnits.TASKS,
        "Tasks in the queue",
        t -> total.get(t).queueLength());
    gauge(
        registry,
        tags,
        "executor.pool.size",
        BaseUnits.THREADS,
        "Worker threads",
        t -> total.get(t).poolSize());
    if (b.poolCore != null) {
      gauge(
          registry,
          tags,
          "executor.pool.core",
          BaseUnits.THREADS,
          "Threads the pool keeps",
          b.poolCore);
    }
    if (b.poolMax != null) {
      gauge(
          registry,
          tags,
          "executor.pool.max",
          BaseUnits.THREADS,
          "Most threads the pool may have",
          b.poolMax);
    }
    ToDoubleFunction<? super T> active =
        b.active != null ? b.active : t -> activeEstimate(total.get(t));
    gauge(registry, tags, "executor.active", BaseUnits.THREADS, "Threads running tasks", active);

    gauge(
        registry,
        tags,
        "executor.littles.l",
        BaseUnits.TASKS,
        "Little's law over the window: throughput x mean response time, the mean number of tasks"
            + " in the executor (queued and running)",
        t -> window.get(t).littlesL());
    gauge(
        registry,
        tags,
        "executor.dead.time",
        "ratio",
        "Over the window: time tasks waited / (waited + ran), 0..1",
        t -> window.get(t).deadTimeRatio());

    for (double phi : PHIS) {
      Tags q = tags.and("phi", Double.toString(phi));
      timeGauge(
          registry,
          q,
          "executor.idle.percentile",
          "Queue wait over the window, percentile phi",
          t -> waitPercentile(window.get(t), phi));
      timeGauge(
          registry,
          q,
          "executor.percentile",
          "Service time over the window, percentile phi",
          t -> servicePercentile(window.get(t), phi));
    }
    timeGauge(
        registry,
        tags,
        "executor.idle.max",
        "Longest queue wait over the window",
        t -> window.get(t).maxWaitMs());
    timeGauge(
        registry,
        tags,
        "executor.max",
        "Longest service time over the window",
        t -> window.get(t).maxServiceMs());
  }

  /** Accepted − completed − queued, within [0, pool size]; exact while nothing moves. */
  private static double activeEstimate(ExecutorSnapshot s) {
    long running = s.arrivals() - s.rejected() - s.completed() - s.queueLength();
    return Math.max(0, Math.min(s.poolSize(), running));
  }

  private static double waitPercentile(ExecutorSnapshot s, double phi) {
    return phi == 0.5 ? s.p50WaitMs() : phi == 0.9 ? s.p90WaitMs() : s.p99WaitMs();
  }

  private static double servicePercentile(ExecutorSnapshot s, double phi) {
    return phi == 0.5 ? s.p50ServiceMs() : phi == 0.9 ? s.p90ServiceMs() : s.p99ServiceMs();
  }

  private void counter(
      MeterRegistry registry, Tags tags, String name, String description, ToDoubleFunction<T> f) {
    FunctionCounter.builder(name, b.source, f)
        .tags(tags)
        .baseUnit(BaseUnits.TASKS)
        .description(description)
        .register(registry);
  }

  private void gauge(
      MeterRegistry registry,
      Tags tags,
      String name,
      String unit,
      String description,
      ToDoubleFunction<? super T> f) {
    Gauge.builder(name, b.source, f::applyAsDouble)
        .tags(tags)
        .baseUnit(unit)
        .description(description)
        .register(registry);
  }

  private void timeGauge(
      MeterRegistry registry, Tags tags, String name, String description, ToDoubleFunction<T> f) {
    TimeGauge.builder(name, b.source, TimeUnit.MILLISECONDS, f)
        .tags(tags)
        .description(description)
        .register(registry);
  }
}

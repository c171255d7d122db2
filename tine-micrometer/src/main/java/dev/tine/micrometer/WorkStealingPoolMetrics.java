package dev.tine.micrometer;

import dev.tine.PoolStats;
import dev.tine.WorkStealingPool;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Meters for a {@link WorkStealingPool}, named as Micrometer names a {@code ForkJoinPool}'s ({@code
 * executor.steals}, {@code executor.queued}, {@code executor.active}, {@code executor.parallelism},
 * {@code executor.pool.size}) and a {@code ThreadPoolExecutor}'s ({@code executor.completed}), plus
 * Tine's own counters in the same style. Every meter is tagged {@code name} (the pool's name) and
 * {@code type=work-stealing}, plus any tags given.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>kind</th><th>unit</th><th>from</th></tr>
 *   <tr><td>executor.completed</td><td>function counter</td><td>tasks</td>
 *       <td>{@link PoolStats#tasksExecuted()}: every task run, forks and inline joins included</td></tr>
 *   <tr><td>executor.steals</td><td>function counter</td><td>tasks</td><td>{@link PoolStats#steals()}</td></tr>
 *   <tr><td>executor.forks</td><td>function counter</td><td>tasks</td><td>{@link PoolStats#forks()}</td></tr>
 *   <tr><td>executor.promotions</td><td>function counter</td><td>tasks</td>
 *       <td>{@link PoolStats#promotions()}: latent forks moved to a deque for a hungry worker</td></tr>
 *   <tr><td>executor.joins</td><td>function counter</td><td></td><td>{@link PoolStats#joins()}</td></tr>
 *   <tr><td>executor.joins.blocked</td><td>function counter</td><td></td>
 *       <td>{@link PoolStats#joinsBlocked()}</td></tr>
 *   <tr><td>executor.parks</td><td>function counter</td><td></td><td>{@link PoolStats#parks()}</td></tr>
 *   <tr><td>executor.queued</td><td>gauge</td><td>tasks</td><td>{@link WorkStealingPool#queuedTasks()}</td></tr>
 *   <tr><td>executor.active</td><td>gauge</td><td>threads</td>
 *       <td>workers started and not asleep (running or looking for work)</td></tr>
 *   <tr><td>executor.pool.size</td><td>gauge</td><td>threads</td><td>{@link WorkStealingPool#poolSize()}</td></tr>
 *   <tr><td>executor.parallelism</td><td>gauge</td><td>threads</td>
 *       <td>{@link WorkStealingPool#parallelism()}</td></tr>
 * </table>
 *
 * <p>The counters come from one {@link WorkStealingPool#stats()} per {@code maxAge} (default 1 s),
 * shared by all of them; they count from the pool's start or its last {@link
 * WorkStealingPool#resetStats()}, which a monitoring system sees as a counter reset. The meters
 * hold the pool weakly, as Micrometer's own binders do.
 */
public final class WorkStealingPoolMetrics implements MeterBinder {
  /** The {@code type} tag's value. */
  public static final String TYPE = "work-stealing";

  private final WorkStealingPool pool;
  private final Tags tags;
  private final Duration maxAge;

  /**
   * Meters for {@code pool}, tagged with its name and type only.
   *
   * @param pool the pool to measure
   */
  public WorkStealingPoolMetrics(WorkStealingPool pool) {
    this(pool, Tags.empty());
  }

  /**
   * Meters for {@code pool}, tagged with its name, its type and {@code tags}.
   *
   * @param pool the pool to measure
   * @param tags extra tags for every meter
   */
  public WorkStealingPoolMetrics(WorkStealingPool pool, Iterable<Tag> tags) {
    this(pool, tags, Duration.ofSeconds(1));
  }

  /**
   * Meters for {@code pool}; the counters read one {@code stats()} snapshot at most once per {@code
   * maxAge} ({@link Duration#ZERO}: at every read).
   *
   * @param pool the pool to measure
   * @param tags extra tags for every meter
   * @param maxAge how long one {@code stats()} snapshot serves the counters
   */
  public WorkStealingPoolMetrics(WorkStealingPool pool, Iterable<Tag> tags, Duration maxAge) {
    this.pool = Objects.requireNonNull(pool, "pool");
    this.tags = Tags.of("name", pool.name(), "type", TYPE).and(tags);
    this.maxAge = Objects.requireNonNull(maxAge, "maxAge");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Cached<WorkStealingPool, PoolStats> stats = new Cached<>(WorkStealingPool::stats, maxAge);
    counter(
        registry,
        "executor.completed",
        BaseUnits.TASKS,
        "Tasks run by the pool's workers, forks and inline joins of latent forks included",
        p -> stats.get(p).tasksExecuted());
    counter(
        registry,
        "executor.steals",
        BaseUnits.TASKS,
        "Tasks a worker took from another worker's deque",
        p -> stats.get(p).steals());
    counter(
        registry,
        "executor.forks",
        BaseUnits.TASKS,
        "Forks, latent or eager",
        p -> stats.get(p).forks());
    counter(
        registry,
        "executor.promotions",
        BaseUnits.TASKS,
        "Latent forks moved to a deque because a worker was hungry",
        p -> stats.get(p).promotions());
    counter(
        registry,
        "executor.joins",
        null,
        "Joins by workers of tasks not yet complete",
        p -> stats.get(p).joins());
    counter(
        registry,
        "executor.joins.blocked",
        null,
        "Joins that had to block at least once",
        p -> stats.get(p).joinsBlocked());
    counter(
        registry,
        "executor.parks",
        null,
        "Times a worker went to sleep",
        p -> stats.get(p).parks());
    gauge(
        registry,
        "executor.queued",
        BaseUnits.TASKS,
        "Tasks waiting in the external queue and the workers' deques (approximate while running)",
        WorkStealingPool::queuedTasks);
    gauge(
        registry,
        "executor.active",
        BaseUnits.THREADS,
        "Workers started and not asleep: running tasks or looking for work",
        p -> Math.max(0, p.poolSize() - p.sleepingWorkers()));
    gauge(
        registry,
        "executor.pool.size",
        BaseUnits.THREADS,
        "Workers started (they start on demand and retire after the keep-alive)",
        WorkStealingPool::poolSize);
    gauge(
        registry,
        "executor.parallelism",
        BaseUnits.THREADS,
        "The configured number of workers",
        WorkStealingPool::parallelism);
  }

  private void counter(
      MeterRegistry registry,
      String name,
      String unit,
      String description,
      ToDoubleFunction<WorkStealingPool> f) {
    FunctionCounter.builder(name, pool, f)
        .tags(tags)
        .baseUnit(unit)
        .description(description)
        .register(registry);
  }

  private void gauge(
      MeterRegistry registry,
      String name,
      String unit,
      String description,
      ToDoubleFunction<WorkStealingPool> f) {
    Gauge.builder(name, pool, f)
        .tags(tags)
        .baseUnit(unit)
        .description(description)
        .register(registry);
  }
}

package dev.tine.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.PoolStats;
import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.executor.ExecutorSnapshot;
import dev.tine.executor.MeasuredExecutor;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Binds Tine's pools to a {@link PrometheusMeterRegistry}, runs a workload whose counts are known,
 * and reads the scrape: names (with Prometheus' unit suffixes), tags and values.
 */
class PrometheusScrapeTest {

  /** Lea's fib: forks n-2, computes n-1 directly, so every call with n >= 2 forks once. */
  static final class Fib extends Task<Long> {
    final int n;

    Fib(int n) {
      this.n = n;
    }

    @Override
    protected Long compute() {
      if (n < 2) {
        return (long) n;
      }
      Fib f1 = new Fib(n - 2);
      f1.fork();
      return new Fib(n - 1).compute() + f1.join();
    }
  }

  /** Calls of Fib.compute for n, and of those the ones that fork (n >= 2). */
  static long calls(int n) {
    return n < 2 ? 1 : 1 + calls(n - 1) + calls(n - 2);
  }

  @Test
  void workStealingPool() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (WorkStealingPool pool =
        WorkStealingPool.builder().name("fj-test").parallelism(2).registerMXBean(false).build()) {
      new WorkStealingPoolMetrics(pool, Tags.of("app", "scrape-test"), Duration.ZERO)
          .bindTo(registry);
      Map<String, String> tags =
          Map.of("name", "fj-test", "type", "work-stealing", "app", "scrape-test");

      assertEquals(0.0, value(registry.scrape(), "executor_completed_tasks_total", tags));

      AtomicInteger ran = new AtomicInteger();
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        futures.add(pool.submit(ran::incrementAndGet));
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
      assertEquals(610L, pool.invoke(new Fib(15)));
      long forks = (calls(15) - 1) / 2; // every call with n >= 2 forks once: 986
      // Workers count a park when they go to sleep after the work: wait until all are asleep.
      await(() -> pool.sleepingWorkers() == pool.poolSize(), "every worker asleep: " + pool);

      String text = registry.scrape();
      PoolStats stats = pool.stats();
      // 100 submitted tasks, the root task, and every fork run once
      assertEquals(100 + 1 + forks, value(text, "executor_completed_tasks_total", tags));
      assertEquals(forks, value(text, "executor_forks_tasks_total", tags));
      assertEquals(stats.steals(), value(text, "executor_steals_tasks_total", tags));
      assertEquals(stats.promotions(), value(text, "executor_promotions_tasks_total", tags));
      assertEquals(stats.joins(), value(text, "executor_joins_total", tags));
      assertEquals(stats.joinsBlocked(), value(text, "executor_joins_blocked_total", tags));
      assertEquals(stats.parks(), value(text, "executor_parks_total", tags));
      assertEquals(2.0, value(text, "executor_parallelism_threads", tags));
      assertEquals(pool.poolSize(), value(text, "executor_pool_size_threads", tags));
      assertEquals(0.0, value(text, "executor_queued_tasks", tags));
      double active = value(text, "executor_active_threads", tags);
      assertTrue(active >= 0 && active <= 2, "active " + active);
      assertTrue(text.contains("# TYPE executor_completed_tasks_total counter"), text);
      assertTrue(text.contains("# TYPE executor_queued_tasks gauge"), text);
    }
  }

  /**
   * A one-thread executor, every figure against what the test measured: counts exactly; Little's L
   * and the dead-time ratio within the bounds the test's own clock readings put on them ({@link
   * SerialTaskBounds}: a stall anywhere only widens them); percentiles as the executor reports
   * them.
   */
  @Test
  void measuredExecutor() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    int n = 10;
    long[] before = new long[n], after = new long[n], started = new long[n], ended = new long[n];
    long beforeBuild = System.nanoTime();
    // the window far longer than the test, whatever the load: it holds every task
    try (MeasuredExecutor ex =
        MeasuredExecutor.builder()
            .name("api-test")
            .poolSize(1)
            .queueCapacity(2)
            .tick(Duration.ofMinutes(10))
            .window(Duration.ofMinutes(20))
            .registerMXBean(false)
            .build()) {
      long built = System.nanoTime();
      ExecutorSnapshotMetrics.builder(
              ex.name(), ExecutorSnapshotMetrics.MEASURED_TYPE, ex, MeasuredExecutor::snapshot)
          .window(MeasuredExecutor::windowSnapshot)
          .poolCore(MeasuredExecutor::poolSize)
          .maxAge(Duration.ZERO)
          .build()
          .bindTo(registry);
      Map<String, String> tags = Map.of("name", "api-test", "type", "measured");

      // One task holds the only thread for 200 ms; two wait in the queue; a fourth is rejected.
      CountDownLatch started0 = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      futures.add(
          submit(
              ex,
              0,
              before,
              after,
              started,
              ended,
              () -> {
                started0.countDown();
                release.await();
              }));
      assertTrue(started0.await(60, TimeUnit.SECONDS));
      futures.add(submit(ex, 1, before, after, started, ended, () -> {}));
      futures.add(submit(ex, 2, before, after, started, ended, () -> {}));
      assertThrows(RejectedExecutionException.class, () -> ex.submit(() -> {}));

      String busy = registry.scrape();
      assertEquals(2.0, value(busy, "executor_queued_tasks", tags));
      assertEquals(1.0, value(busy, "executor_active_threads", tags));
      assertEquals(1.0, value(busy, "executor_pool_size_threads", tags));
      assertEquals(1.0, value(busy, "executor_pool_core_threads", tags));
      assertEquals(1.0, value(busy, "executor_rejected_tasks_total", tags));
      assertEquals(0.0, value(busy, "executor_completed_tasks_total", tags));

      Thread.sleep(200);
      release.countDown();
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
      // Then 7 more tasks, one at a time (the queue holds 2), one of which throws.
      int failures = 0;
      for (int k = 3; k < n; k++) {
        boolean planted = k == 6;
        try {
          submit(
                  ex,
                  k,
                  before,
                  after,
                  started,
                  ended,
                  () -> {
                    if (planted) throw new IllegalStateException("planted");
                  })
              .get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          failures++;
        }
      }
      assertEquals(1, failures);
      // A future is done before its thread counts the task as completed: wait for the count.
      await(() -> ex.snapshot().completed() == n, "10 tasks completed");
      long done = System.nanoTime();

      String text = registry.scrape();
      long scraped = System.nanoTime();
      ExecutorSnapshot window = ex.windowSnapshot();
      assertEquals(10.0, value(text, "executor_completed_tasks_total", tags));
      assertEquals(1.0, value(text, "executor_failed_tasks_total", tags));
      assertEquals(1.0, value(text, "executor_rejected_tasks_total", tags));
      assertEquals(0.0, value(text, "executor_queued_tasks", tags));
      assertEquals(0.0, value(text, "executor_active_threads", tags));
      // queue wait: 10 tasks, two of which waited behind the 200 ms one
      assertEquals(10.0, value(text, "executor_idle_seconds_count", tags));
      double waited = value(text, "executor_idle_seconds_sum", tags);
      assertTrue(waited >= 0.39, "total wait " + waited + " s");
      assertTrue(value(text, "executor_idle_max_seconds", tags) >= 0.195);
      // service time: the 200 ms task
      assertEquals(10.0, value(text, "executor_seconds_count", tags));
      assertTrue(value(text, "executor_seconds_sum", tags) >= 0.195);
      assertTrue(value(text, "executor_max_seconds", tags) >= 0.195);
      // window figures, as the executor reports them (the window holds every task)
      assertEquals(
          window.p99WaitMs() / 1000,
          value(text, "executor_idle_percentile_seconds", with(tags, "phi", "0.99")),
          1e-3);
      assertEquals(
          window.p50WaitMs() / 1000,
          value(text, "executor_idle_percentile_seconds", with(tags, "phi", "0.5")),
          1e-3);
      assertEquals(
          window.p90ServiceMs() / 1000,
          value(text, "executor_percentile_seconds", with(tags, "phi", "0.9")),
          1e-3);
      // Ground truth from the test's own clock: the ten tasks ran one after another on the one
      // thread, so their waits and responses lie within the bounds of the readings around them.
      SerialTaskBounds b = new SerialTaskBounds(before, after, started, ended, done);
      double waitLo = SerialTaskBounds.sum(b.waitLo), waitHi = SerialTaskBounds.sum(b.waitHi);
      double respLo = SerialTaskBounds.sum(b.responseLo);
      double respHi = SerialTaskBounds.sum(b.responseHi);
      double dead = value(text, "executor_dead_time_ratio", tags);
      SerialTaskBounds.assertWithin(
          "dead-time ratio", waitLo / respHi, waitHi / respLo, dead, text);
      // Little's L = completed / period × mean response = Σ response / period, the period running
      // from inside build() to inside the scrape
      double l = value(text, "executor_littles_l_tasks", tags);
      double periodLoMs = (done - built) / 1e6, periodHiMs = (scraped - beforeBuild) / 1e6;
      SerialTaskBounds.assertWithin(
          "Little's L", respLo / periodHiMs, respHi / periodLoMs, l, text);
      assertTrue(text.contains("# TYPE executor_idle_seconds summary"), text);
    }
  }

  interface Body {
    void run() throws Exception;
  }

  /** Submits body as task k, with the test's clock readings around the submit and in the task. */
  private static Future<?> submit(
      MeasuredExecutor ex,
      int k,
      long[] before,
      long[] after,
      long[] started,
      long[] ended,
      Body body) {
    before[k] = System.nanoTime();
    Future<?> f =
        ex.submit(() -> {
          started[k] = System.nanoTime();
          try {
            body.run();
          } finally {
            ended[k] = System.nanoTime();
          }
          return null;
        });
    after[k] = System.nanoTime();
    return f;
  }

  @Test
  void bothKindsInOneRegistry() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (WorkStealingPool pool =
            WorkStealingPool.builder().name("fj").parallelism(1).registerMXBean(false).build();
        MeasuredExecutor ex =
            MeasuredExecutor.builder().name("io").poolSize(2).registerMXBean(false).build()) {
      new WorkStealingPoolMetrics(pool).bindTo(registry);
      ExecutorSnapshotMetrics.of(ex).bindTo(registry);
      pool.submit(() -> {}).get(60, TimeUnit.SECONDS);
      ex.submit(() -> {}).get(60, TimeUnit.SECONDS);
      ex.submit(() -> {}).get(60, TimeUnit.SECONDS);
      await(
          () -> ex.snapshot().completed() == 2 && pool.stats().tasksExecuted() == 1,
          "tasks counted");
      // (the meters' snapshots are cached for 1 s, but nothing has read them yet)
      String text = registry.scrape();
      assertEquals(
          1.0,
          value(
              text,
              "executor_completed_tasks_total",
              Map.of("name", "fj", "type", "work-stealing")));
      assertEquals(
          2.0,
          value(text, "executor_completed_tasks_total", Map.of("name", "io", "type", "measured")));
      assertEquals(
          2.0, value(text, "executor_pool_core_threads", Map.of("name", "io", "type", "measured")));
    }
  }

  /**
   * The third kind: a plain {@code ThreadPoolExecutor} measured from outside by a {@link
   * dev.tine.executor.PoolMeter}, as the attach agent measures the pools of a running JVM (arrival
   * counted at submission, a recorder per pool thread), bound with the builder under type "agent".
   */
  @Test
  void aPoolMeasuredFromOutsideAsTheAgentDoes() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    dev.tine.executor.PoolMeter meter =
        dev.tine.executor.PoolMeter.builder().name("jdbc").ownTicker(false).build();
    java.util.concurrent.ThreadPoolExecutor tpe =
        new java.util.concurrent.ThreadPoolExecutor(
            2, 2, 0, TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>());
    ThreadLocal<dev.tine.executor.ThreadRecorder> recorders =
        ThreadLocal.withInitial(meter::recorder);
    try {
      ExecutorSnapshotMetrics.builder("jdbc", "agent", meter, dev.tine.executor.PoolMeter::snapshot)
          .window(dev.tine.executor.PoolMeter::windowSnapshot)
          .poolCore(m -> tpe.getCorePoolSize())
          .build()
          .bindTo(registry);
      int tasks = 25;
      java.util.List<java.util.concurrent.Future<?>> fs = new java.util.ArrayList<>();
      for (int i = 0; i < tasks; i++) {
        long arrival = meter.arrive();
        fs.add(
            tpe.submit(() -> {
              long start = System.nanoTime();
              recorders.get().record(arrival, start, System.nanoTime(), false);
            }));
      }
      meter.reject(); // as the agent counts a RejectedExecutionException
      for (java.util.concurrent.Future<?> f : fs) {
        f.get(60, TimeUnit.SECONDS);
      }
      meter.tick();
      String text = registry.scrape();
      Map<String, String> tags = Map.of("name", "jdbc", "type", "agent");
      assertEquals(25.0, value(text, "executor_completed_tasks_total", tags));
      assertEquals(1.0, value(text, "executor_rejected_tasks_total", tags));
      assertEquals(2.0, value(text, "executor_pool_core_threads", tags));
    } finally {
      tpe.shutdown();
      meter.close();
    }
  }

  @Test
  void theModuleIsNamed() {
    // Surefire runs these tests on the module path, patched into the module: its descriptor is
    // used.
    Module m = WorkStealingPoolMetrics.class.getModule();
    assertTrue(m.isNamed());
    assertEquals("dev.tine.micrometer", m.getName());
    assertTrue(
        m.getDescriptor().exports().stream()
            .anyMatch(e -> e.source().equals("dev.tine.micrometer")));
    assertEquals("dev.tine", WorkStealingPool.class.getModule().getName());
    assertEquals("dev.tine.executor", MeasuredExecutor.class.getModule().getName());
  }

  /** Waits (60 s at most: a loaded box) until {@code done}. */
  private static void await(java.util.function.BooleanSupplier done, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!done.getAsBoolean()) {
      assertTrue(System.nanoTime() - deadline < 0, "timed out waiting for: " + what);
      Thread.sleep(5);
    }
  }

  private static Map<String, String> with(Map<String, String> tags, String k, String v) {
    Map<String, String> m = new TreeMap<>(tags);
    m.put(k, v);
    return m;
  }

  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** The value of the sample named {@code name} whose labels are exactly {@code tags}. */
  static double value(String scrape, String name, Map<String, String> tags) {
    Double found = null;
    Matcher m = SAMPLE.matcher(scrape);
    while (m.find()) {
      if (!m.group(1).equals(name)) continue;
      Map<String, String> labels = new TreeMap<>();
      Matcher l = LABEL.matcher(m.group(2));
      while (l.find()) labels.put(l.group(1), l.group(2));
      if (labels.equals(new TreeMap<>(tags))) {
        found = Double.parseDouble(m.group(3));
      }
    }
    assertNotNull(found, () -> "no sample " + name + tags + " in\n" + scrape);
    return found;
  }
}

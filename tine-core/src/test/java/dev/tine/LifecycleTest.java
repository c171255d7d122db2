package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** close/shutdown semantics, configuration errors, threads, stats and the MXBean. */
@Timeout(60)
class LifecycleTest {

  static long liveThreadsNamed(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith(prefix))
        .count();
  }

  @Test
  void badConfigurationIsRejectedWithAMessage() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> WorkStealingPool.builder().parallelism(0));
    assertTrue(e.getMessage().contains("parallelism"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> WorkStealingPool.builder().parallelism(-3));
    assertThrows(
        IllegalArgumentException.class, () -> WorkStealingPool.builder().keepAlive(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> WorkStealingPool.builder().name(" "));
    assertThrows(
        NullPointerException.class, () -> WorkStealingPool.builder().threadNamePrefix(null));
  }

  @Test
  void closeFinishesSubmittedWorkThenRejects() {
    AtomicInteger done = new AtomicInteger();
    WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build();
    for (int i = 0; i < 100; i++) {
      pool.execute(() -> {
        Programs.seqFib(18);
        done.incrementAndGet();
      });
    }
    pool.close();
    assertEquals(100, done.get(), "close() finishes submitted work");
    assertTrue(pool.isShutdown());
    assertTrue(pool.isTerminated());
    RejectedExecutionException r =
        assertThrows(RejectedExecutionException.class, () -> pool.submit(() -> 1));
    assertTrue(r.getMessage().contains(pool.name()), r.getMessage());
    assertThrows(RejectedExecutionException.class, () -> pool.invoke(new Programs.Fib(3)));
    assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> {}));
    pool.close(); // idempotent
  }

  @Test
  void noWorkerThreadRemainsAfterClose() {
    String prefix = "lifecycle-threads-";
    for (int round = 0; round < 5; round++) {
      WorkStealingPool pool =
          WorkStealingPool.builder().parallelism(4).threadNamePrefix(prefix).build();
      assertEquals(Programs.seqFib(22), pool.invoke(new Programs.Fib(22)));
      assertTrue(liveThreadsNamed(prefix) > 0);
      pool.close();
      assertEquals(0, liveThreadsNamed(prefix), "worker threads after close, round " + round);
    }
  }

  @Test
  void nonDaemonWorkersAlsoEnd() {
    String prefix = "lifecycle-nondaemon-";
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(2).daemon(false).threadNamePrefix(prefix).build()) {
      assertEquals(Programs.seqFib(20), pool.invoke(new Programs.Fib(20)));
    }
    assertEquals(0, liveThreadsNamed(prefix));
  }

  @Test
  void shutdownDrainsThenTerminates() throws Exception {
    WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build();
    CountDownLatch release = new CountDownLatch(1);
    Future<Integer> slow =
        pool.submit(() -> {
          release.await();
          return 1;
        });
    Future<Long> queued = pool.submit(new Programs.Fib(20));
    pool.shutdown();
    assertThrows(RejectedExecutionException.class, () -> pool.submit(() -> 2));
    assertFalse(pool.awaitTermination(50, TimeUnit.MILLISECONDS));
    release.countDown();
    assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    assertEquals(1, slow.get());
    assertEquals(Programs.seqFib(20), queued.get());
  }

  @Test
  void shutdownNowReturnsUnstartedAndCancelsThem() throws Exception {
    String prefix = "lifecycle-now-";
    WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(1).threadNamePrefix(prefix).build();
    CountDownLatch started = new CountDownLatch(1);
    Future<?> running =
        pool.submit(() -> {
          started.countDown();
          Thread.sleep(60_000); // interrupted by shutdownNow
          return null;
        });
    assertTrue(started.await(10, TimeUnit.SECONDS));
    AtomicInteger ran = new AtomicInteger();
    Runnable r1 = ran::incrementAndGet, r2 = ran::incrementAndGet;
    pool.execute(r1);
    pool.execute(r2);
    List<Runnable> unstarted = pool.shutdownNow();
    assertEquals(List.of(r1, r2), unstarted);
    assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    pool.close();
    assertEquals(0, ran.get());
    assertThrows(
        java.util.concurrent.ExecutionException.class, running::get, "interrupted task failed");
    assertEquals(0, liveThreadsNamed(prefix));
  }

  @Test
  void shutdownNowCancelsQueuedSubmittedTasks() throws Exception {
    WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build();
    CountDownLatch started = new CountDownLatch(1), release = new CountDownLatch(1);
    pool.submit(() -> {
      started.countDown();
      release.await();
      return null;
    });
    assertTrue(started.await(10, TimeUnit.SECONDS));
    Future<Integer> queued = pool.submit(() -> 1);
    List<Runnable> unstarted = pool.shutdownNow();
    assertEquals(1, unstarted.size());
    assertTrue(queued.isCancelled());
    assertThrows(CancellationException.class, queued::get);
    release.countDown();
    pool.close();
  }

  @Test
  void idleWorkersRetireAfterKeepAliveAndComeBack() throws Exception {
    String prefix = "lifecycle-keepalive-";
    try (WorkStealingPool pool =
        WorkStealingPool.builder()
            .parallelism(2)
            .threadNamePrefix(prefix)
            .keepAlive(Duration.ofMillis(50))
            .build()) {
      assertEquals(Programs.seqFib(20), pool.invoke(new Programs.Fib(20)));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (pool.poolSize() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertEquals(0, pool.poolSize(), "all workers retired");
      assertEquals(Programs.seqFib(21), pool.invoke(new Programs.Fib(21)));
      assertTrue(pool.stats().tasksExecuted() > 0);
    }
    assertEquals(0, liveThreadsNamed(prefix));
  }

  /**
   * An idle pool parks its workers: once every worker is asleep (a bounded wait for that event, not
   * a fixed pause, so a loaded box cannot fail it), their CPU time stays flat. The bound is loose
   * on purpose (10% of one core over 500 ms): a spinning worker, such as one whose park returns at
   * once because of a leftover interrupt, uses close to 100%.
   */
  @Test
  void idlePoolUsesAlmostNoCpu() throws Exception {
    ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
    if (!tmx.isThreadCpuTimeSupported()) {
      return;
    }
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(4).build()) {
      for (int i = 0; i < 4; i++) pool.submit(new Programs.Fib(20)).get();
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
      while (pool.sleepingWorkers() < pool.poolSize() && System.nanoTime() < deadline) {
        Thread.sleep(5); // past the spin and yield phases, however slow the box
      }
      assertEquals(pool.poolSize(), pool.sleepingWorkers(), "every worker went to sleep: " + pool);
      long before = pool.stats().cpuNanos();
      long t0 = System.nanoTime();
      Thread.sleep(500);
      long cpu = pool.stats().cpuNanos() - before;
      long wall = System.nanoTime() - t0;
      System.out.printf(
          "idle pool of 4 workers: %.3f ms CPU in %.0f ms wall (%.4f%% of one core)%n",
          cpu / 1e6, wall / 1e6, 100.0 * cpu / wall);
      assertTrue(
          cpu < wall / 10, "idle workers used " + cpu / 1e6 + " ms CPU in " + wall / 1e6 + " ms");
    }
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "eager forks: {0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void statsCountWhatHappened(boolean eager) {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(2).eagerForks(eager).build()) {
      pool.invoke(new Programs.Fib(20));
      PoolStats s = pool.stats();
      long forks = Programs.seqFib(21) - 1; // fib(n) forks: one per internal node
      assertEquals(forks, s.forks(), s.toString());
      assertEquals(forks + 1, s.tasksExecuted(), "every fork run once, plus the root");
      assertTrue(s.joins() <= forks);
      if (eager) {
        assertEquals(0, s.latentForks());
        assertEquals(0, s.promotions());
        assertEquals(
            forks, s.localPops() + s.steals(), "every fork taken once, by its owner or a thief");
      } else {
        assertEquals(forks, s.latentForks());
        assertTrue(s.steals() <= s.promotions(), "only promoted forks can be stolen");
        assertEquals(s.steals(), s.promotedStolen());
        assertEquals(
            forks,
            s.inlineJoins() + s.localPops() + s.steals(),
            "every latent fork joined inline, taken back by its owner, or stolen: " + s);
      }
      assertEquals(2, s.workers().size());
      String table = s.toString();
      assertTrue(table.contains("steals") && table.contains("total"), table);

      pool.resetStats();
      assertEquals(0, pool.stats().forks());
      pool.invoke(new Programs.Fib(10));
      assertEquals(Programs.seqFib(11) - 1, pool.stats().forks());
    }
  }

  @Test
  void statsOffRecordsNothingButComputes() {
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(2).recordStats(false).build()) {
      assertEquals(Programs.seqFib(20), pool.invoke(new Programs.Fib(20)));
      assertEquals(0, pool.stats().forks());
    }
  }

  @Test
  void mxBeanIsRegisteredWhileRunning() throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).name("jmx-test").build();
    ObjectName on = pool.mxBeanName();
    assertNotNull(on);
    assertEquals(new ObjectName("dev.tine:type=WorkStealingPool,name=\"jmx-test\""), on);
    assertTrue(server.isRegistered(on));
    pool.invoke(new Programs.Fib(15));
    assertEquals(Programs.seqFib(16) - 1, (Long) server.getAttribute(on, "Forks"));
    assertEquals(2, (Integer) server.getAttribute(on, "Parallelism"));
    server.invoke(on, "resetStats", null, null);
    assertEquals(0L, (Long) server.getAttribute(on, "Forks"));
    // a second pool with the same name gets its own bean
    try (WorkStealingPool twin =
        WorkStealingPool.builder().parallelism(1).name("jmx-test").build()) {
      assertTrue(server.isRegistered(twin.mxBeanName()));
      assertFalse(on.equals(twin.mxBeanName()));
    }
    pool.close();
    assertFalse(server.isRegistered(on), "unregistered at close");
  }

  @Test
  void commonPoolIgnoresShutdown() {
    WorkStealingPool common = WorkStealingPool.commonPool();
    common.shutdown();
    common.close();
    assertFalse(common.isShutdown());
    assertEquals(Programs.seqFib(15), common.invoke(new Programs.Fib(15)));
  }
}

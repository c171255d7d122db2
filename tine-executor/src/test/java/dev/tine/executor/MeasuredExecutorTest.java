package dev.tine.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class MeasuredExecutorTest {

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void measuresWaitServiceAndLittlesLaw() throws Exception {
    try (MeasuredExecutor ex = MeasuredExecutor.builder().name("t-measure").poolSize(1).build()) {
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < 5; i++) fs.add(ex.submit(() -> sleep(20)));
      for (Future<?> f : fs) f.get();
      // a task is recorded just after its Future completes: allow the last record to land
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (ex.snapshot().completed() < 5 && System.nanoTime() < deadline) sleep(1);
      ExecutorSnapshot s = ex.snapshot();
      assertEquals(5, s.arrivals());
      assertEquals(5, s.completed());
      assertEquals(0, s.failed());
      assertTrue(s.avgServiceMs() >= 19.5 && s.avgServiceMs() < 200, s.toString());
      // one thread, five 20 ms tasks at once: they waited 0, 20, 40, 60, 80 ms: mean 40
      assertTrue(s.avgWaitMs() >= 35, s.toString());
      assertTrue(s.maxWaitMs() >= 75, s.toString());
      assertEquals(s.avgServiceMs() + s.avgWaitMs(), s.avgResponseMs(), 1e-9);
      assertEquals(s.retirementRate() * s.avgResponseMs() / 1000, s.littlesL(), 1e-9);
      assertTrue(s.deadTimeRatio() > 0.5 && s.deadTimeRatio() < 1, s.toString());
      assertEquals(s.littlesL() / s.processors(), s.lPerCpu(), 1e-12);
      assertTrue(s.p90WaitMs() >= s.p50WaitMs());
      assertNotNull(ex.windowSnapshot());
    }
  }

  /** Queue lengths are sampled at arrival (one arrival in eight): 200 arrivals behind a blocked task. */
  @Test
  void queueLengthPercentiles() throws Exception {
    try (MeasuredExecutor ex = MeasuredExecutor.builder().poolSize(1).build()) {
      CountDownLatch release = new CountDownLatch(1);
      ex.execute(() -> {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      for (int i = 0; i < 200; i++) ex.execute(() -> {});
      ExecutorSnapshot s = ex.snapshot();
      assertEquals(200, s.queueLength());
      assertEquals(201, s.arrivals(), "accepted = completed + running + queued");
      assertTrue(s.maxQueueLength() >= 100 && s.maxQueueLength() <= 200, s.toString());
      assertTrue(s.p50QueueLength() <= s.p90QueueLength());
      release.countDown();
    }
  }

  /** Sampling times one task in N; counts and failures stay exact. */
  @Test
  void samplingKeepsCountsExact() throws Exception {
    try (MeasuredExecutor ex = MeasuredExecutor.builder().poolSize(2).sampling(4).build()) {
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < 2000; i++) {
        int k = i;
        fs.add(ex.submit(() -> {
          if (k % 100 == 0) throw new IllegalStateException("planned");
          return k;
        }));
      }
      for (Future<?> f : fs) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException expected) {
          // 20 planned failures
        }
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (ex.snapshot().completed() < 2000 && System.nanoTime() < deadline) sleep(1);
      ExecutorSnapshot s = ex.snapshot();
      assertEquals(2000, s.completed());
      assertEquals(2000, s.arrivals());
      assertEquals(20, s.failed());
      assertTrue(s.avgServiceMs() > 0 && s.maxServiceMs() >= s.p50ServiceMs(), "sampled timings present: " + s);
    }
  }

  @Test
  void countsFailures() throws Exception {
    try (MeasuredExecutor ex = MeasuredExecutor.builder().poolSize(2).build()) {
      Future<?> bad = ex.submit(() -> {
        throw new IllegalStateException("boom");
      });
      Future<?> good = ex.submit(() -> 1);
      assertThrows(java.util.concurrent.ExecutionException.class, bad::get);
      good.get();
      CountDownLatch ran = new CountDownLatch(1);
      ex.execute(() -> {
        ran.countDown();
        throw new IllegalStateException("uncaught");
      });
      assertTrue(ran.await(5, TimeUnit.SECONDS));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (ex.snapshot().completed() < 3 && System.nanoTime() < deadline) sleep(5);
      ExecutorSnapshot s = ex.snapshot();
      assertEquals(3, s.completed());
      assertEquals(2, s.failed());
    }
  }

  /** A bounded queue under overload: every task either runs or is rejected and counted. */
  @Test
  void overloadRejectsAndCountsNothingLost() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    int offered = 200, rejected = 0;
    try (MeasuredExecutor ex = MeasuredExecutor.builder().poolSize(1).queueCapacity(5).build()) {
      for (int i = 0; i < offered; i++) {
        try {
          ex.execute(() -> {
            sleep(1);
            ran.incrementAndGet();
          });
        } catch (RejectedExecutionException e) {
          assertTrue(e.getMessage().contains("queue full"), e.getMessage());
          rejected++;
        }
      }
      ex.shutdown();
      assertTrue(ex.awaitTermination(30, TimeUnit.SECONDS));
      ExecutorSnapshot s = ex.snapshot();
      assertTrue(rejected > 0);
      assertEquals(rejected, s.rejected());
      assertEquals(offered, s.arrivals());
      assertEquals(offered - rejected, ran.get(), "every accepted task ran");
      assertEquals(offered - rejected, s.completed());
    }
  }

  @Test
  void shutdownDrainsAndShutdownNowReturnsUnstarted() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    MeasuredExecutor ex = MeasuredExecutor.builder().poolSize(1).build();
    for (int i = 0; i < 10; i++) ex.execute(() -> {
      sleep(5);
      ran.incrementAndGet();
    });
    ex.shutdown();
    assertThrows(RejectedExecutionException.class, () -> ex.execute(() -> {}));
    assertTrue(ex.awaitTermination(10, TimeUnit.SECONDS));
    assertEquals(10, ran.get(), "shutdown drains the queue");

    MeasuredExecutor ex2 = MeasuredExecutor.builder().poolSize(1).build();
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    ex2.execute(() -> {
      started.countDown();
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        interrupted.set(true);
      }
    });
    assertTrue(started.await(5, TimeUnit.SECONDS));
    Runnable a = () -> {}, b = () -> {};
    ex2.execute(a);
    ex2.execute(b);
    List<Runnable> unstarted = ex2.shutdownNow();
    assertEquals(List.of(a, b), unstarted, "the tasks as submitted");
    assertTrue(ex2.awaitTermination(10, TimeUnit.SECONDS));
    assertTrue(interrupted.get());
  }

  @Test
  void mxBeanLifecycle() throws Exception {
    var server = ManagementFactory.getPlatformMBeanServer();
    MeasuredExecutor ex = MeasuredExecutor.builder().name("t-jmx").poolSize(2).build();
    assertTrue(server.isRegistered(ex.mxBeanName()));
    ex.submit(() -> sleep(2)).get();
    assertEquals(1L, server.getAttribute(ex.mxBeanName(), "Completed"));
    ex.close();
    assertFalse(server.isRegistered(ex.mxBeanName()));
  }

  @Test
  void threadsGoneAfterClose() {
    MeasuredExecutor ex = MeasuredExecutor.builder().name("t-threads").poolSize(4).build();
    for (int i = 0; i < 20; i++) ex.execute(() -> sleep(1));
    ex.close();
    sleep(50);
    long left = Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("t-threads")).count();
    assertEquals(0, left);
  }

  /**
   * Ten closed-loop clients of sleeping (I/O-like) tasks: self-sizing grows from 1 toward ten
   * within a few ticks, never exceeds the maximum, and then holds still.
   */
  @Test
  void selfSizingConvergesWithoutOscillating() throws Exception {
    int clients = 10, max = 16;
    try (MeasuredExecutor ex = MeasuredExecutor.builder().name("t-adaptive").poolSize(1)
        .selfSizing(1, max).tick(Duration.ofMillis(200)).build()) {
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> ts = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        Thread t = new Thread(() -> {
          while (!stop.get()) {
            try {
              ex.submit(() -> sleep(10)).get();
            } catch (Exception e) {
              return;
            }
          }
        });
        t.start();
        ts.add(t);
      }
      Thread.sleep(3000);
      stop.set(true);
      for (Thread t : ts) t.join();
      List<Integer> h = ex.sizeHistory();
      assertTrue(h.stream().allMatch(n -> n <= max), "never above max: " + h);
      int last = h.get(h.size() - 1);
      assertTrue(last >= clients - 2 && last <= clients + 2, "converged near " + clients + ": " + h);
      List<Integer> tail = h.subList(Math.max(0, h.size() - 5), h.size());
      int spread = tail.stream().mapToInt(i -> i).max().getAsInt() - tail.stream().mapToInt(i -> i).min().getAsInt();
      assertTrue(spread <= 2, "no oscillation at the end: " + h);
    }
  }
}

package dev.tine.agent.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What users count after a resize: the tasks that actually run at once, against the JDK's own
 * behaviour in the same test (raising only a fixed pool's maximum runs no more of them).
 */
class SizeControlTest {
  /** Tasks that hold their thread until released; counts how many run at once. */
  static final class Blockers {
    final AtomicInteger running = new AtomicInteger(), peak = new AtomicInteger();
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger done = new AtomicInteger();

    void submit(ExecutorService p, int n) {
      for (int i = 0; i < n; i++)
        p.execute(() -> {
          peak.accumulateAndGet(running.incrementAndGet(), Math::max);
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            running.decrementAndGet();
            done.incrementAndGet();
          }
        });
    }

    /** Waits until {@code n} run at once (the pool started its threads); fails past 60 s. */
    void awaitRunning(int n) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (running.get() < n && System.nanoTime() < deadline) Thread.sleep(5);
      assertEquals(n, running.get(), "tasks running at once");
    }

    /** The running count stays at {@code n} while the queue still holds tasks to start. */
    void assertStaysAt(int n, ThreadPoolExecutor p) throws InterruptedException {
      // a thread that would start takes a queued task at once: give the pool's idle ones time to
      // take one, measured by the pool's own count of started workers
      for (int i = 0; i < 20; i++) {
        Thread.sleep(5);
        assertEquals(n, running.get(), "running at once, " + p);
      }
      assertTrue(p.getQueue().size() > 0, "tasks still queued: " + p);
    }
  }

  @Test
  void aFixedPoolGrowsByItsCoreAndMaximumAndRunsThatManyTasksAtOnce() throws Throwable {
    ThreadPoolExecutor jdk = (ThreadPoolExecutor) Executors.newFixedThreadPool(2);
    ThreadPoolExecutor p = (ThreadPoolExecutor) Executors.newFixedThreadPool(2);
    Blockers bj = new Blockers(), b = new Blockers();
    try {
      bj.submit(jdk, 8);
      b.submit(p, 8);
      bj.awaitRunning(2);
      b.awaitRunning(2);
      // the JDK: the maximum alone changes nothing, the unbounded queue never refuses a task
      jdk.setMaximumPoolSize(6);
      bj.assertStaysAt(2, jdk);

      SizeControl c = SizeControl.of(p);
      assertEquals(SizeControl.Effective.CORE, c.effective());
      assertEquals("pool size (core = maximum)", c.setting());
      c.set(6);
      assertEquals(6, p.getCorePoolSize());
      assertEquals(6, p.getMaximumPoolSize());
      assertEquals(6, c.size());
      b.awaitRunning(6);
      b.assertStaysAt(6, p);
      // shrink: core first (a maximum below the core throws)
      c.set(1);
      assertEquals(1, p.getCorePoolSize());
      assertEquals(1, p.getMaximumPoolSize());
      b.release.countDown();
      bj.release.countDown();
      p.shutdown();
      jdk.shutdown();
      assertTrue(p.awaitTermination(60, TimeUnit.SECONDS));
      assertTrue(jdk.awaitTermination(60, TimeUnit.SECONDS));
      assertEquals(8, b.done.get(), "no task lost");
      assertEquals(6, b.peak.get(), "never more at once than the size set");
    } finally {
      p.shutdownNow();
      jdk.shutdownNow();
    }
  }

  @Test
  void aHandOffPoolIsSizedByItsMaximum() throws Throwable {
    ThreadPoolExecutor p =
        new ThreadPoolExecutor(1, 2, 60, TimeUnit.SECONDS, new SynchronousQueue<>());
    Blockers b = new Blockers();
    try {
      b.submit(p, 2);
      b.awaitRunning(2);
      assertThrows(
          java.util.concurrent.RejectedExecutionException.class, () -> b.submit(p, 1), "full");
      SizeControl c = SizeControl.of(p);
      assertEquals(SizeControl.Effective.MAX, c.effective());
      c.set(5);
      assertEquals(1, p.getCorePoolSize(), "the core stays");
      assertEquals(5, p.getMaximumPoolSize());
      b.submit(p, 3);
      b.awaitRunning(5);
      // below the core: the core follows it down, set first
      c.set(1);
      assertEquals(1, p.getMaximumPoolSize());
      SizeControl.of(p).setPair(3, 4);
      assertEquals(3, p.getCorePoolSize());
      c.set(2); // core 3 > 2: the core goes to 2 first, then the maximum
      assertEquals(2, p.getCorePoolSize());
      assertEquals(2, p.getMaximumPoolSize());
    } finally {
      b.release.countDown();
      p.shutdownNow();
    }
  }

  @Test
  void aBoundedQueuesPoolIsSizedByItsMaximumAndAnUnboundedOnesByItsCore() throws Throwable {
    ThreadPoolExecutor bounded =
        new ThreadPoolExecutor(1, 2, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(4));
    ThreadPoolExecutor unbounded =
        new ThreadPoolExecutor(2, 8, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
    ScheduledThreadPoolExecutor scheduled = new ScheduledThreadPoolExecutor(2);
    try {
      assertEquals(SizeControl.Effective.MAX, SizeControl.of(bounded).effective());
      SizeControl u = SizeControl.of(unbounded);
      assertEquals(SizeControl.Effective.CORE, u.effective());
      u.set(5); // not fixed: the maximum stays
      assertEquals(5, unbounded.getCorePoolSize());
      assertEquals(8, unbounded.getMaximumPoolSize());
      u.set(10); // beyond the maximum: the maximum first
      assertEquals(10, unbounded.getCorePoolSize());
      assertEquals(10, unbounded.getMaximumPoolSize());
      SizeControl s = SizeControl.of(scheduled);
      assertEquals(SizeControl.Effective.CORE, s.effective());
      s.set(4);
      assertEquals(4, scheduled.getCorePoolSize());
      assertEquals(Integer.MAX_VALUE, scheduled.getMaximumPoolSize(), "unused, untouched");
    } finally {
      bounded.shutdownNow();
      unbounded.shutdownNow();
      scheduled.shutdownNow();
    }
  }
}

package dev.tine.agent.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
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
  void aBoundedOrUnboundedQueuesPoolIsSizedByItsCore() throws Throwable {
    ThreadPoolExecutor bounded =
        new ThreadPoolExecutor(1, 2, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(4));
    ThreadPoolExecutor unbounded =
        new ThreadPoolExecutor(2, 8, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
    ScheduledThreadPoolExecutor scheduled = new ScheduledThreadPoolExecutor(2);
    try {
      assertEquals(SizeControl.Effective.CORE, SizeControl.of(bounded).effective());
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

  /**
   * A pool of 2 (maximum 4) over a bounded queue with room for its backlog, grown to 8: 8 tasks run
   * at once. The JDK starts threads above the core only when the queue is full, so raising the
   * maximum alone (the earlier rule: "maximum pool size 4 → 8") left 2 running and 18 queued.
   */
  @Test
  void aBoundedQueuesPoolGrownRunsThatManyTasksAtOnce() throws Throwable {
    ThreadPoolExecutor p =
        new ThreadPoolExecutor(2, 4, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(100));
    Blockers b = new Blockers();
    try {
      b.submit(p, 20);
      b.awaitRunning(2);
      b.assertStaysAt(2, p); // the JDK's own behaviour: the queue has room, no thread above 2
      SizeControl c = SizeControl.of(p);
      c.set(8);
      assertEquals(8, c.size(), "the size read back");
      b.awaitRunning(8); // the JDK's setCorePoolSize starts threads for the queued tasks
      b.assertStaysAt(8, p);
    } finally {
      b.release.countDown();
      p.shutdown();
      assertTrue(p.awaitTermination(60, TimeUnit.SECONDS));
      assertEquals(20, b.done.get(), "no task lost");
    }
  }

  /**
   * Shrinking a pool whose unbounded queue holds a backlog: once the tasks running at the shrink
   * end, no more than the new size run at once. The JDK ends a thread above the core only after it
   * idles for keepAliveTime, and under a backlog it never idles: lowering the core alone (the
   * maximum left at 8) left all 4 threads taking queued tasks. Against the JDK's fixed pool shrunk
   * the same way (core = maximum), which drops at once.
   */
  @Test
  void aShrunkPoolWithABacklogRunsNoMoreThanItsNewSize() throws Throwable {
    ThreadPoolExecutor fixed = (ThreadPoolExecutor) Executors.newFixedThreadPool(4);
    ThreadPoolExecutor elastic =
        new ThreadPoolExecutor(4, 8, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
    ScheduledThreadPoolExecutor scheduled = new ScheduledThreadPoolExecutor(4);
    try {
      for (ThreadPoolExecutor p : List.of(fixed, elastic, scheduled)) {
        Gated g = new Gated();
        g.submit(p, 40);
        g.awaitRunning(4);
        SizeControl.of(p).set(2);
        assertEquals(2, SizeControl.of(p).size(), "the size read back, " + p);
        g.gate.release(4); // the 4 tasks running at the shrink end
        // the threads left either take queued tasks (4 run again) or end (2 left)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline
            && !(g.done.get() >= 4 && (g.running.get() >= 3 || p.getPoolSize() == 2)))
          Thread.sleep(5);
        assertEquals(4, g.done.get(), "the released tasks ended, " + p);
        assertEquals(2, p.getPoolSize(), "threads once the running tasks ended, " + p);
        g.gate.release(1000);
        p.shutdown();
        assertTrue(p.awaitTermination(60, TimeUnit.SECONDS));
        assertEquals(40, g.done.get(), "no task lost, " + p);
      }
    } finally {
      fixed.shutdownNow();
      elastic.shutdownNow();
      scheduled.shutdownNow();
    }
  }

  /** Tasks that each wait for one permit of {@code gate}; counts how many run at once. */
  static final class Gated {
    final AtomicInteger running = new AtomicInteger(), done = new AtomicInteger();
    final java.util.concurrent.Semaphore gate = new java.util.concurrent.Semaphore(0);

    void submit(ExecutorService p, int n) {
      for (int i = 0; i < n; i++)
        p.execute(() -> {
          running.incrementAndGet();
          try {
            gate.acquire();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            running.decrementAndGet();
            done.incrementAndGet();
          }
        });
    }

    void awaitRunning(int n) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (running.get() < n && System.nanoTime() < deadline) Thread.sleep(5);
      assertEquals(n, running.get(), "tasks running at once");
    }
  }

  /**
   * A pool whose maximum is unbounded (newCachedThreadPool: a hand-off queue, maximum
   * Integer.MAX_VALUE) never refuses a task; a maximum set on it makes the application's own {@code
   * execute} throw RejectedExecutionException (the JDK's AbortPolicy) as soon as that many are
   * busy, shown here on a second pool set through SizeControl. The agent refuses it unless forced,
   * as a single-thread pool, and still does after a forced change (judged on the originals).
   */
  @Test
  void aPoolWithAnUnboundedMaximumIsNotBoundedUnlessForced() throws Throwable {
    ThreadPoolExecutor jdk = (ThreadPoolExecutor) Executors.newCachedThreadPool();
    ThreadPoolExecutor cached = (ThreadPoolExecutor) Executors.newCachedThreadPool();
    Blockers b = new Blockers();
    try {
      SizeControl.of(jdk).set(2);
      b.submit(jdk, 2);
      assertThrows(
          java.util.concurrent.RejectedExecutionException.class,
          () -> b.submit(jdk, 1),
          "the application's execute, once bounded");
      Registry reg = new Registry(HOST);
      PoolState st = reg.getOrCreate(cached, Kind.THREAD_POOL);
      Sizing s = PoolSizing.of(st, cached);
      assertTrue(s.unlessForced(), "refused unless forced: " + s);
      assertTrue(s.refusal().contains("RejectedExecutionException"), s.refusal());
      // forced: set, and the next look judges on the sizes before it
      synchronized (st.sizes) {
        st.sizes.originalCore = cached.getCorePoolSize();
        st.sizes.originalMax = cached.getMaximumPoolSize();
        st.sizes.originalSize = cached.getMaximumPoolSize();
      }
      s.control().set(4);
      assertEquals(4, cached.getMaximumPoolSize());
      assertTrue(PoolSizing.of(st, cached).unlessForced(), "still a judgement once forced");
      // a hand-off pool with a bound of its own is resizable
      ThreadPoolExecutor bounded =
          new ThreadPoolExecutor(1, 2, 60, TimeUnit.SECONDS, new SynchronousQueue<>());
      try {
        Sizing h = PoolSizing.of(reg.getOrCreate(bounded, Kind.THREAD_POOL), bounded);
        assertEquals(null, h.refusal(), "a bounded hand-off pool");
      } finally {
        bounded.shutdownNow();
      }
    } finally {
      b.release.countDown();
      jdk.shutdownNow();
      cached.shutdownNow();
    }
  }

  private static final Host HOST =
      new Host() {
        private final AtomicInteger recorders = new AtomicInteger();

        @Override
        public dev.tine.agent.AgentConfig config() {
          return dev.tine.agent.AgentConfig.DEFAULT;
        }

        @Override
        public void failed(Throwable t) {}

        @Override
        public void wakeTicker() {}

        @Override
        public AtomicInteger recorders() {
          return recorders;
        }

        @Override
        public int processors() {
          return 2;
        }
      };
}

package dev.tine.executor;

import static dev.tine.executor.SerialTaskBounds.assertWithin;
import static dev.tine.executor.SerialTaskBounds.assertWithinHistogram;
import static dev.tine.executor.SerialTaskBounds.mean;
import static dev.tine.executor.SerialTaskBounds.rank;
import static dev.tine.executor.SerialTaskBounds.sum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class MeasuredExecutorTest {

  static void awaitGate(CountDownLatch gate) {
    try {
      gate.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The meter's figures against the times each task records itself: one thread, five 20 ms tasks
   * submitted at once, so they wait about 0, 20, 40, 60, 80 ms. Every figure must lie within the
   * bounds the test's own clock readings put on it ({@link SerialTaskBounds}): a stall of any
   * length between the meter's stamps and the test's (a loaded box) widens the bounds, never breaks
   * them.
   */
  @Test
  void measuresWaitServiceAndLittlesLaw() throws Exception {
    int n = 5;
    long[] before = new long[n], after = new long[n], started = new long[n], ended = new long[n];
    long beforeBuild = System.nanoTime();
    // ticks and window far longer than the test: the window holds every task, whatever the load
    try (MeasuredExecutor ex =
        MeasuredExecutor.builder()
            .name("t-measure")
            .poolSize(1)
            .tick(Duration.ofMinutes(10))
            .window(Duration.ofMinutes(20))
            .build()) {
      long built = System.nanoTime();
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int k = i;
        before[k] = System.nanoTime();
        fs.add(
            ex.submit(() -> {
              started[k] = System.nanoTime();
              sleep(20);
              ended[k] = System.nanoTime();
            }));
        after[k] = System.nanoTime();
      }
      for (Future<?> f : fs) f.get(); // happens-before: the tasks' stamps are visible
      // a task is recorded just after its Future completes: allow the last record to land
      awaitQuiet(() -> ex.snapshot().completed() == n);
      long done = System.nanoTime();
      ExecutorSnapshot s = ex.snapshot();
      long snapped = System.nanoTime();
      assertEquals(n, s.arrivals(), s.toString());
      assertEquals(n, s.completed(), s.toString());
      assertEquals(n, s.timedTasks(), s.toString());
      assertEquals(0, s.failed(), s.toString());

      SerialTaskBounds b = new SerialTaskBounds(before, after, started, ended, done);
      assertWithin("mean service", mean(b.serviceLo), mean(b.serviceHi), s.avgServiceMs(), s);
      assertWithin("mean wait", mean(b.waitLo), mean(b.waitHi), s.avgWaitMs(), s);
      assertWithin("mean response", mean(b.responseLo), mean(b.responseHi), s.avgResponseMs(), s);
      // nearest rank, as HdrHistogram: of five, the 3rd smallest is p50, the 5th p90 and max
      assertWithinHistogram("max wait", rank(b.waitLo, 5), rank(b.waitHi, 5), s.maxWaitMs(), s);
      assertWithinHistogram("p50 wait", rank(b.waitLo, 3), rank(b.waitHi, 3), s.p50WaitMs(), s);
      assertWithinHistogram("p90 wait", rank(b.waitLo, 5), rank(b.waitHi, 5), s.p90WaitMs(), s);
      assertWithinHistogram(
          "p50 service", rank(b.serviceLo, 3), rank(b.serviceHi, 3), s.p50ServiceMs(), s);
      // the sleeps themselves: whatever the load, a task ran at least its 20 ms
      assertTrue(rank(b.serviceLo, 1) >= 20 * 0.999, "the tasks' own readings: " + s);
      // the period: from inside build() to inside snapshot()
      assertWithin("period", (done - built) / 1e9, (snapped - beforeBuild) / 1e9, s.seconds(), s);
      // Little's L: the mean number of tasks in the pool over the period, which these five tasks
      // (all inside it) make Σ response / period length
      double ms = s.seconds() * 1000;
      assertWithin("Little's L", sum(b.responseLo) / ms, sum(b.responseHi) / ms, s.littlesL(), s);
      assertWithin(
          "dead-time ratio",
          sum(b.waitLo) / sum(b.responseHi),
          sum(b.waitHi) / sum(b.responseLo),
          s.deadTimeRatio(),
          s);

      ExecutorSnapshot w = ex.windowSnapshot();
      assertEquals(n, w.completed(), "the window holds every task: " + w);
      assertEquals(n, w.arrivals(), w.toString());
      assertWithin("window mean wait", mean(b.waitLo), mean(b.waitHi), w.avgWaitMs(), w);
    }
  }

  /**
   * Queue lengths are sampled at arrival (one arrival in eight): 200 arrivals behind a blocked
   * task.
   */
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
      // a random eighth of the lengths 0..199 the arrivals found: its median is well inside them
      // (outside [10, 190] with a chance under 1e-8)
      assertTrue(s.p50QueueLength() >= 10 && s.p50QueueLength() <= 190, s.toString());
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
        fs.add(
            ex.submit(() -> {
              // at least 10 µs by the task's own clock: a timed mean has a floor to check
              for (long t0 = System.nanoTime(); System.nanoTime() - t0 < 10_000; )
                Thread.onSpinWait();
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
      awaitQuiet(() -> ex.snapshot().completed() == 2000);
      ExecutorSnapshot s = ex.snapshot();
      assertEquals(2000, s.completed());
      assertEquals(2000, s.arrivals());
      assertEquals(20, s.failed());
      // one task in four timed, at random: 500 of 2000 on average (σ ≈ 19), never 0 or all
      assertTrue(s.timedTasks() >= 300 && s.timedTasks() <= 700, "one in four timed: " + s);
      assertTrue(s.avgServiceMs() >= 0.01, "sampled timings, each at least 10 µs: " + s);
    }
  }

  /**
   * Failed tasks are counted; an exception thrown by an {@code execute}d task reaches the thread's
   * uncaught-exception handler, as with the JDK's ThreadPoolExecutor (caught here, so that a
   * passing run prints no stack trace).
   */
  @Test
  void countsFailures() throws Exception {
    Thread.UncaughtExceptionHandler old = Thread.getDefaultUncaughtExceptionHandler();
    List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
    try {
      countFailures();
      awaitQuiet(() -> !uncaught.isEmpty());
      assertEquals(
          1, uncaught.size(), "the execute()d task's exception was delivered: " + uncaught);
      assertEquals("uncaught", uncaught.get(0).getMessage());
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(old);
    }
  }

  private void countFailures() throws Exception {
    try (MeasuredExecutor ex = MeasuredExecutor.builder().poolSize(2).build()) {
      Future<?> bad =
          ex.submit(() -> {
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
      assertTrue(ran.await(30, TimeUnit.SECONDS));
      awaitQuiet(() -> ex.snapshot().completed() == 3);
      ExecutorSnapshot s = ex.snapshot();
      assertEquals(3, s.completed());
      assertEquals(2, s.failed());
    }
  }

  /**
   * A bounded queue under overload: every task either runs or is rejected and counted. The first
   * task holds the only thread until half the offers are made, so at most 6 of those 100 (one
   * running, five queued) are accepted whatever the scheduling; the second half races the drain.
   */
  @Test
  void overloadRejectsAndCountsNothingLost() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    int offered = 200, rejected = 0;
    CountDownLatch gate = new CountDownLatch(1);
    try (MeasuredExecutor ex = MeasuredExecutor.builder().poolSize(1).queueCapacity(5).build()) {
      for (int i = 0; i < offered; i++) {
        if (i == offered / 2) gate.countDown();
        boolean first = i == 0;
        try {
          ex.execute(() -> {
            if (first) awaitGate(gate);
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
      assertTrue(rejected >= offered / 2 - 6, "rejected " + rejected + " of " + offered);
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
    for (int i = 0; i < 10; i++)
      ex.execute(() -> {
        sleep(5);
        ran.incrementAndGet();
      });
    ex.shutdown();
    assertThrows(RejectedExecutionException.class, () -> ex.execute(() -> {}));
    assertTrue(ex.awaitTermination(30, TimeUnit.SECONDS));
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
    assertTrue(started.await(30, TimeUnit.SECONDS));
    Runnable a = () -> {}, b = () -> {};
    ex2.execute(a);
    ex2.execute(b);
    List<Runnable> unstarted = ex2.shutdownNow();
    assertEquals(List.of(a, b), unstarted, "the tasks as submitted");
    assertTrue(ex2.awaitTermination(30, TimeUnit.SECONDS));
    assertTrue(interrupted.get());
  }

  @Test
  void mxBeanLifecycle() throws Exception {
    var server = ManagementFactory.getPlatformMBeanServer();
    MeasuredExecutor ex = MeasuredExecutor.builder().name("t-jmx").poolSize(2).build();
    assertTrue(server.isRegistered(ex.mxBeanName()));
    assertEquals(Set.of(ex.mxBeanName()), beansNamed("t-jmx"));
    ex.submit(() -> sleep(2)).get();
    // a task is recorded (afterExecute) just after its Future completes: let the record land
    awaitQuiet(() -> ex.snapshot().completed() == 1);
    assertEquals(1L, server.getAttribute(ex.mxBeanName(), "Completed"));
    ex.close();
    assertFalse(server.isRegistered(ex.mxBeanName()));
    assertEquals(Set.of(), beansNamed("t-jmx"));
  }

  /** Two executors with one name: two beans, each reading its own executor; none after close. */
  @Test
  void sameNameGetsTwoBeans() throws Exception {
    var server = ManagementFactory.getPlatformMBeanServer();
    try (MeasuredExecutor a = MeasuredExecutor.builder().name("t-twin").poolSize(1).build();
        MeasuredExecutor b = MeasuredExecutor.builder().name("t-twin").poolSize(1).build()) {
      assertFalse(a.mxBeanName().equals(b.mxBeanName()), a.mxBeanName() + " " + b.mxBeanName());
      assertEquals(Set.of(a.mxBeanName(), b.mxBeanName()), beansNamed("t-twin"));
      b.submit(() -> {}).get();
      awaitQuiet(() -> b.snapshot().completed() == 1);
      assertEquals(0L, server.getAttribute(a.mxBeanName(), "Completed"));
      assertEquals(1L, server.getAttribute(b.mxBeanName(), "Completed"));
    }
    assertEquals(Set.of(), beansNamed("t-twin"), "unregistered at close");
  }

  /** The MeasuredExecutor beans whose name is {@code name} or {@code name#k}. */
  private static Set<javax.management.ObjectName> beansNamed(String name) throws Exception {
    Set<javax.management.ObjectName> all =
        ManagementFactory.getPlatformMBeanServer()
            .queryNames(new javax.management.ObjectName("dev.tine:type=MeasuredExecutor,*"), null);
    all.removeIf(on -> {
      String n = javax.management.ObjectName.unquote(on.getKeyProperty("name"));
      return !n.equals(name) && !n.startsWith(name + "#");
    });
    return all;
  }

  @Test
  void threadsGoneAfterClose() {
    MeasuredExecutor ex = MeasuredExecutor.builder().name("t-threads").poolSize(4).build();
    for (int i = 0; i < 20; i++) ex.execute(() -> sleep(1));
    ex.close();
    // close() returns once the workers have left their loop; a thread is dead a moment later,
    // which on a loaded machine can be well after a fixed sleep.
    java.util.function.LongSupplier left =
        () ->
            Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("t-threads"))
                .count();
    awaitQuiet(() -> left.getAsLong() == 0);
    assertEquals(0, left.getAsLong());
  }

  /** The last five size samples are all within two of {@code target}. */
  private static boolean settledNear(List<Integer> h, int target) {
    if (h.size() < 5) return false;
    return h.subList(h.size() - 5, h.size()).stream()
        .allMatch(n -> n >= target - 2 && n <= target + 2);
  }

  /**
   * Ten closed-loop clients of sleeping (I/O-like) tasks: self-sizing grows from 1 toward ten
   * within a few ticks, never exceeds the maximum, and then holds still.
   */
  @Test
  void selfSizingConvergesWithoutOscillating() throws Exception {
    int clients = 10, max = 16;
    try (MeasuredExecutor ex =
        MeasuredExecutor.builder()
            .name("t-adaptive")
            .poolSize(1)
            .selfSizing(1, max)
            .tick(Duration.ofMillis(200))
            .build()) {
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> ts = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        Thread t =
            new Thread(() -> {
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
      // Wait for the event, not for a fixed time (a loaded box ticks late): five ticks in a row
      // within two of the client count. Bounded, so a pool that never settles fails.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      List<Integer> h = ex.sizeHistory();
      while (!settledNear(h, clients) && System.nanoTime() < deadline) {
        Thread.sleep(50);
        h = ex.sizeHistory();
      }
      stop.set(true);
      for (Thread t : ts) t.join();
      assertTrue(settledNear(h, clients), "converged near " + clients + " and held still: " + h);
      assertTrue(
          ex.sizeHistory().stream().allMatch(n -> n <= max),
          "never above max: " + ex.sizeHistory());
    }
  }

  /** Thrown by tasks that end their pool thread on purpose (no stack trace: 300 of them). */
  static final class Planned extends RuntimeException {
    Planned() {
      super("planned", null, false, false);
    }
  }

  /** A thread that could not be created (the pool's ThreadFactory threw). */
  static final class CreationFailed extends RuntimeException {
    CreationFailed() {
      super("simulated: thread creation failed", null, false, false);
    }
  }

  interface Body {
    void run() throws Exception;
  }

  /**
   * Runs body with what pool threads die of collected rather than printed; returns the throwables
   * that {@code expected} does not accept.
   */
  static List<Throwable> unexpectedDeaths(Predicate<Throwable> expected, Body body)
      throws Exception {
    List<Throwable> unexpected = new CopyOnWriteArrayList<>();
    Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
      if (!expected.test(e)) unexpected.add(e);
    });
    try {
      body.run();
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(before);
    }
    return unexpected;
  }

  /** Polls (bounded) until done holds; the assertions that follow say what was wrong if not. */
  static void awaitQuiet(java.util.function.BooleanSupplier done) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!done.getAsBoolean() && System.nanoTime() < deadline) sleep(5);
  }

  /**
   * Fails if tasks are left after a generous wait, first dropping them (else close() waits
   * forever).
   */
  /**
   * Holds all {@code pool} threads on a gate, queues {@code queued} tasks behind them (every {@code
   * plainEvery}-th returns normally, the others throw {@link Planned}), opens the gate, and waits
   * until every task ran and the pool is back to {@code pool} threads.
   */
  static void runFailuresBehindGate(MeasuredExecutor ex, int pool, int queued, int plainEvery)
      throws InterruptedException {
    CountDownLatch ran = new CountDownLatch(pool + queued);
    CountDownLatch gate = new CountDownLatch(1);
    for (int i = 0;
        i < pool;
        i++) { // every thread busy: the rest queue, and threads die only later
      ex.execute(() -> {
        try {
          gate.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        ran.countDown();
      });
    }
    for (int i = 0; i < queued; i++) {
      ex.execute(
          i % plainEvery == plainEvery - 1
              ? ran::countDown
              : () -> {
                ran.countDown();
                throw new Planned();
              });
    }
    gate.countDown();
    assertAllRan(ran, ex);
    awaitQuiet(
        () -> ex.snapshot().completed() == pool + queued && ex.snapshot().poolSize() == pool);
  }

  static void assertAllRan(CountDownLatch ran, MeasuredExecutor ex) throws InterruptedException {
    if (ran.await(30, TimeUnit.SECONDS)) return;
    String state = ran.getCount() + " tasks never ran: " + ex;
    ex.shutdownNow();
    throw new AssertionError(state);
  }

  /**
   * Failure 11: a task that throws from execute() ends its pool thread, which ThreadPoolExecutor
   * replaces; the dead thread's recorder (six histograms, ~1.1 MB) stayed in the executor's thread
   * list for good. It must be released, its figures folded into the totals and window.
   */
  @Test
  void threadsEndedByThrowingTasksReleaseTheirRecordersAndStayCounted() throws Exception {
    int pool = 2, tasks = 300;
    List<Throwable> unexpected =
        unexpectedDeaths(
            e -> e instanceof Planned,
            () -> {
              try (MeasuredExecutor ex =
                  MeasuredExecutor.builder()
                      .name("t-dying")
                      .poolSize(pool)
                      .window(Duration.ofSeconds(30))
                      .build()) {
                CountDownLatch ran = new CountDownLatch(tasks);
                ex.execute(() -> { // its time must outlive its thread
                  sleep(30);
                  ran.countDown();
                  throw new Planned();
                });
                for (int i = 1; i < tasks; i++) {
                  ex.execute(() -> {
                    ran.countDown();
                    throw new Planned();
                  });
                }
                assertTrue(
                    ran.await(30, TimeUnit.SECONDS), ran.getCount() + " tasks never ran: " + ex);
                // the last threads to end may still be ending
                awaitQuiet(() -> ex.snapshot().completed() == tasks && ex.recorderCount() <= pool);
                assertTrue(
                    ex.recorderCount() <= pool,
                    "recorders retained after "
                        + tasks
                        + " threads ended, pool size "
                        + pool
                        + ": "
                        + ex.recorderCount());
                ExecutorSnapshot s = ex.snapshot();
                assertEquals(tasks, s.arrivals(), s.toString()); // counted at execute(), exactly
                assertEquals(tasks, s.completed(), s.toString());
                assertEquals(tasks, s.failed(), s.toString());
                assertTrue(s.maxServiceMs() >= 29, "an ended thread's timings are kept: " + s);
                ExecutorSnapshot w = ex.windowSnapshot();
                assertEquals(tasks, w.failed(), w.toString());
                assertTrue(w.maxServiceMs() >= 29, w.toString());
              }
            });
    assertEquals(List.of(), unexpected, "pool threads died only of the planned failures");
  }

  /**
   * The reported end state under -Xmx256m, "0 threads and 95 queued tasks that never run": the
   * recorder of a replacement thread did not fit in the heap, the OutOfMemoryError escaped the
   * thread factory, and ThreadPoolExecutor lost the thread. Simulated: the heap fits the timings of
   * two recorders (two sets each); later recorders count without timing.
   */
  @Test
  void aRecorderTheHeapCannotSpareCostsTimingsNotThreads() throws Exception {
    int pool = 2, throwing = 300, plain = 100, tasks = pool + throwing + plain;
    AtomicInteger made = new AtomicInteger();
    Supplier<TaskTimings> heapFull =
        () -> {
          if (made.incrementAndGet() > 2 * pool)
            throw new OutOfMemoryError("simulated: Java heap space");
          return new TaskTimings();
        };
    List<Throwable> unexpected =
        unexpectedDeaths(
            e -> e instanceof Planned,
            () -> {
              try (MeasuredExecutor ex =
                  MeasuredExecutor.builder()
                      .name("t-heap-full")
                      .poolSize(pool)
                      .timings(heapFull)
                      .build()) {
                runFailuresBehindGate(ex, pool, throwing + plain, 4);
                ExecutorSnapshot s = ex.snapshot();
                assertEquals(tasks, s.completed(), s.toString());
                assertEquals(throwing, s.failed(), s.toString());
                assertEquals(pool, s.poolSize(), "the pool keeps its size: " + s);
                assertTrue(ex.recorderCount() <= pool, "recorders: " + ex.recorderCount());
              }
            });
    assertEquals(List.of(), unexpected, "pool threads died only of the planned failures");
  }

  /**
   * When a replacement thread cannot be created at all, ThreadPoolExecutor tries again only on the
   * next execute(); the ticker restores the pool's size, so queued tasks do not wait for one.
   */
  @Test
  void threadsThatCouldNotBeReplacedAreRestartedForQueuedTasks() throws Exception {
    int pool = 2, throwing = 20, plain = 20, tasks = pool + throwing + plain;
    AtomicInteger made = new AtomicInteger();
    Runnable failsTwice =
        () -> {
          int n = made.incrementAndGet();
          // the two creations after the first threads fail: replacements of threads that died (or a
          // tick's restarts), so the pool runs short, to no thread at all when both were
          // replacements
          if (n == pool + 1 || n == pool + 2) throw new CreationFailed();
        };
    List<Throwable> unexpected =
        unexpectedDeaths(
            e -> e instanceof Planned || e instanceof CreationFailed,
            () -> {
              try (MeasuredExecutor ex =
                  MeasuredExecutor.builder()
                      .name("t-unreplaced")
                      .poolSize(pool)
                      .tick(Duration.ofMillis(20))
                      .window(Duration.ofMillis(200))
                      .onNewThread(failsTwice)
                      .build()) {
                runFailuresBehindGate(ex, pool, throwing + plain, 2);
                ExecutorSnapshot s = ex.snapshot();
                assertEquals(tasks, s.completed(), s.toString());
                assertEquals(throwing, s.failed(), s.toString());
                assertEquals(pool, s.poolSize(), s.toString());
                assertTrue(
                    made.get() >= pool + 4,
                    "two creations failed, then two succeeded: " + made.get());
              }
            });
    assertEquals(List.of(), unexpected);
  }

  /** A time over the histograms' range (an hour) must not throw from the task wrapper. */
  @Test
  void timesBeyondAnHourAreRecordedAsAnHour() {
    try (PoolMeter meter = PoolMeter.builder().ownTicker(false).build()) {
      ThreadRecorder r = meter.recorder();
      long arrival = 1_000;
      long start = arrival + TimeUnit.HOURS.toNanos(2);
      r.record(arrival, start, start + TimeUnit.MILLISECONDS.toNanos(1), false);
      TaskTimings i = new TaskTimings();
      r.harvestTimingsInto(i);
      assertEquals(1, i.timed);
      assertEquals(
          TimeUnit.HOURS.toMicros(1), i.wait.getMaxValue(), TimeUnit.HOURS.toMicros(1) / 1000.0);
      assertEquals(
          TimeUnit.HOURS.toMicros(1),
          i.response.getMaxValue(),
          TimeUnit.HOURS.toMicros(1) / 1000.0);
    }
  }

  /**
   * A tick that throws (here a planted hook in the tick listener) was swallowed: now it is counted
   * in the snapshots and the MXBean, the last one is kept, and the executor keeps measuring: new
   * tasks are counted, and the window keeps moving (it empties once the tasks are older than it).
   */
  @Test
  void failedTicksAreCountedAndMeasuringGoesOn() throws Exception {
    var server = ManagementFactory.getPlatformMBeanServer();
    try (MeasuredExecutor ex =
        MeasuredExecutor.builder()
            .name("t-tick-failures")
            .poolSize(2)
            .tick(Duration.ofMillis(20))
            .window(Duration.ofMillis(200))
            .tickHook(() -> {
              throw new IllegalStateException("planted tick failure");
            })
            .build()) {
      awaitQuiet(() -> ex.tickFailures() >= 3);
      assertTrue(ex.tickFailures() >= 3, "failed ticks counted: " + ex.tickFailures());
      assertEquals("planted tick failure", ex.lastTickFailure().getMessage());
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < 10; i++) fs.add(ex.submit(() -> sleep(1)));
      for (Future<?> f : fs) f.get();
      awaitQuiet(() -> ex.snapshot().completed() == 10);
      ExecutorSnapshot s = ex.snapshot();
      assertEquals(10, s.completed(), s.toString());
      assertEquals(10, s.arrivals(), s.toString());
      assertTrue(s.tickFailures() >= 3, s.toString());
      assertTrue((long) server.getAttribute(ex.mxBeanName(), "TickFailures") >= 3);
      assertTrue(
          ((String) server.getAttribute(ex.mxBeanName(), "LastTickFailure")).contains("planted"));
      long failed = ex.tickFailures();
      // ticks go on (and go on failing): the window rotates the tasks out
      awaitQuiet(() -> ex.windowSnapshot().completed() == 0 && ex.tickFailures() > failed + 10);
      assertEquals(
          0, ex.windowSnapshot().completed(), "the window moved on: " + ex.windowSnapshot());
      assertTrue(ex.tickFailures() > failed + 10, "ticks went on: " + ex.tickFailures());
      assertEquals(10, ex.snapshot().completed(), "still counted since start");
    }
  }
}

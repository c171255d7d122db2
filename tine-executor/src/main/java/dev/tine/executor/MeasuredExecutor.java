package dev.tine.executor;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import javax.management.ObjectName;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * A thread pool that measures itself: for every task the time it arrived, waited in the queue
 * ("dead time"), ran (service), and the whole response time; from them seed 004's figures —
 * arrival and retirement rates, Little's law {@code L = λ·W}, the dead-time ratio, L per CPU —
 * with p50/p90/p99/max of wait, service and response times, queue-length percentiles and process
 * CPU utilization, since start and over a sliding window. Optionally it sizes itself from those
 * figures ({@link Builder#selfSizing}).
 *
 * <pre>{@code
 * try (MeasuredExecutor ex = MeasuredExecutor.builder().name("api").poolSize(8).build()) {
 *   ex.submit(() -> handle(request));
 *   System.out.println(ex.snapshot());          // since start
 *   System.out.println(ex.windowSnapshot());    // the last 10 s
 * }
 * }</pre>
 *
 * <p><b>How it measures without a global lock</b> (seed 004's instrumented pool used a
 * ConcurrentHashMap per task and a synchronized block): the arrival time travels in the task
 * wrapper; each pool thread records into its own {@link LegacyThreadRecorder}; submitters add to
 * count rejections in a {@link LongAdder} and sample the queue length of one arrival in eight into
 * a {@link Recorder}. A ticker thread harvests everything once per tick into the since-start
 * totals and a ring of per-tick buckets (the window). Cost per task: three {@code nanoTime} reads
 * (~28 ns each here), a wrapper object, two uncontended atomics and three histogram increments —
 * about 150 ns, which is under 5% of a task from about 3 µs up.
 *
 * <p>Runs on a {@link ThreadPoolExecutor}; a bounded queue rejects (counted, and the submitter
 * gets {@link RejectedExecutionException}) rather than losing work silently.
 */
public final class MeasuredExecutor extends AbstractExecutorService implements AutoCloseable {
  private static final AtomicInteger SEQ = new AtomicInteger();

  private final String name;
  private final ThreadPoolExecutor pool;
  private final int processors = Runtime.getRuntime().availableProcessors();
  private final Supplier<LegacyThreadRecorder> newRecorder;
  /**
   * The running pool threads, an intrusive list (through {@code PoolThread.prev/next}) guarded by
   * this executor's monitor. A thread links itself when it starts and unlinks itself as it ends, so
   * the list never holds a dead thread's recorder, and linking allocates nothing (cannot fail).
   */
  private PoolThread threads;
  /** Failures counted by threads that have ended; guarded by this executor's monitor. */
  private long retiredFailures;
  private final int sampling;
  private final LongAdder rejected = new LongAdder();
  /** One arrival in QUEUE_SAMPLE records the queue length it found (percentiles need no more). */
  static final int QUEUE_SAMPLE = 8;
  private final Recorder queueLengths = new Recorder(3);
  private final Histogram queueScratch = new Histogram(3);
  private final ScheduledExecutorService ticker;
  private final long startNanos = System.nanoTime();
  private final long tickNanos;
  private final Bucket total;
  private final Bucket[] ring;
  private int ringIndex;
  private final SelfSizing sizing;
  private final ObjectName mxBeanName;
  private final List<Integer> sizeHistory = new ArrayList<>();

  /** One period's accumulated measurements. */
  static final class Bucket {
    final LegacyThreadRecorder.Interval interval = new LegacyThreadRecorder.Interval();
    final Histogram queue = new Histogram(3);
    long arrivals, rejected, completed, failed, cpuNanos = -1, startNanos, endNanos;

    void reset(long now) {
      interval.reset();
      queue.reset();
      arrivals = rejected = completed = failed = 0;
      cpuNanos = -1;
      startNanos = endNanos = now;
    }

    void add(Bucket b) {
      interval.wait.add(b.interval.wait);
      interval.service.add(b.interval.service);
      interval.response.add(b.interval.response);
      interval.waitNanos += b.interval.waitNanos;
      interval.serviceNanos += b.interval.serviceNanos;
      interval.timed += b.interval.timed;
      completed += b.completed;
      failed += b.failed;
      queue.add(b.queue);
      arrivals += b.arrivals;
      rejected += b.rejected;
      if (b.cpuNanos >= 0) cpuNanos = Math.max(0, cpuNanos) + b.cpuNanos;
      startNanos = Math.min(startNanos, b.startNanos);
      endNanos = Math.max(endNanos, b.endNanos);
    }
  }

  private long lastAccepted, lastRejected, lastCompleted, lastFailed, lastCpu = processCpuNanos();
  private long lastTick;
  private final Bucket current = new Bucket();

  private MeasuredExecutor(Builder b) {
    this.name = b.name != null ? b.name : "measured-" + SEQ.incrementAndGet();
    BlockingQueue<Runnable> queue =
        b.queueCapacity > 0 ? new ArrayBlockingQueue<>(b.queueCapacity) : new LinkedBlockingQueue<>();
    AtomicInteger threadSeq = new AtomicInteger();
    this.newRecorder = b.newRecorder;
    int initial = b.selfSizing ? Math.max(1, Math.min(b.poolSize, b.maxPoolSize)) : b.poolSize;
    this.pool =
        new ThreadPoolExecutor(initial, initial, b.keepAlive.toNanos(), TimeUnit.NANOSECONDS, queue,
            r -> {
              PoolThread t = new PoolThread(r, name + "-" + threadSeq.incrementAndGet(), this, newRecorder());
              t.setDaemon(b.daemon);
              return t;
            }) {
          @Override
          protected void afterExecute(Runnable r, Throwable t) {
            // Failures are counted for every task, timed or not, without a clock read.
            Runnable inner = r instanceof Timed tm ? tm.task : r;
            if ((t != null || inner instanceof Future<?> f && f.state() == Future.State.FAILED)
                && Thread.currentThread() instanceof PoolThread pt) {
              pt.failures++;
            }
          }

          @Override
          protected void terminated() {
            super.terminated();
            onTerminated();
          }
        };
    this.tickNanos = b.tick.toNanos();
    this.sampling = b.sampling;
    int buckets = (int) Math.max(1, b.window.toNanos() / tickNanos);
    long now = System.nanoTime();
    this.total = new Bucket();
    total.reset(now);
    this.ring = new Bucket[buckets];
    for (int i = 0; i < buckets; i++) {
      ring[i] = new Bucket();
      ring[i].reset(now);
    }
    current.reset(now);
    this.lastTick = now;
    this.sizing = b.selfSizing ? new SelfSizing(b.minPoolSize, b.maxPoolSize, b.targetCpuUtilization, processors) : null;
    this.ticker = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, name + "-ticker");
      t.setDaemon(true);
      return t;
    });
    ticker.scheduleAtFixedRate(this::tick, tickNanos, tickNanos, TimeUnit.NANOSECONDS);
    this.mxBeanName = b.registerMXBean ? registerMXBean() : null;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * A pool thread: owns its recorder, so recording needs no lookup and no shared state. While it
   * runs it is linked into its executor's list; when it ends (a task threw from {@code execute},
   * the pool shrank or shut down) it folds its figures into the executor and lets go of its
   * recorder, so threads that ThreadPoolExecutor replaces leave nothing behind.
   */
  static final class PoolThread extends Thread {
    private final MeasuredExecutor owner;
    /**
     * Null when it could not be allocated (the owner's {@code newRecorder()}) and after the thread
     * ended. Written at construction and by the owner's {@code retire} (this thread, under the
     * owner's monitor); read by this thread and by harvests under the owner's monitor.
     */
    LegacyThreadRecorder recorder;
    /** Tasks that threw; written by this thread only, read (racily, it only grows) by harvests. */
    volatile long failures;
    /** Links of the owner's thread list; guarded by the owner's monitor. */
    PoolThread prev, next;

    PoolThread(Runnable r, String name, MeasuredExecutor owner, LegacyThreadRecorder recorder) {
      super(r, name);
      this.owner = owner;
      this.recorder = recorder;
    }

    @Override
    public void run() {
      // Linked here rather than in the thread factory: a thread that is created but never started
      // (the pool shut down meanwhile, or start() failed) must not stay in the list.
      owner.register(this);
      try {
        super.run();
      } finally {
        owner.retire(this);
      }
    }
  }

  /**
   * A recorder for a new pool thread, or null if the heap cannot spare one (six histograms, about
   * 1 MB): the thread then runs its tasks untimed (still counted) rather than not being created,
   * which would leave ThreadPoolExecutor short of a thread and queued tasks with no one to run them.
   */
  private LegacyThreadRecorder newRecorder() {
    try {
      return newRecorder.get();
    } catch (OutOfMemoryError e) {
      return null;
    }
  }

  private synchronized void register(PoolThread t) {
    t.next = threads;
    if (threads != null) threads.prev = t;
    threads = t;
  }

  /** On the ending thread, after its last task: nothing records into its recorder any more. */
  private synchronized void retire(PoolThread t) {
    if (t.prev != null) t.prev.next = t.next;
    else threads = t.next;
    if (t.next != null) t.next.prev = t.prev;
    t.prev = t.next = null;
    // Into the current bucket, so the figures reach the totals and the window at the next tick;
    // failures move to retiredFailures, so the harvested sum never goes backwards.
    if (t.recorder != null) t.recorder.harvestInto(current.interval);
    retiredFailures += t.failures;
    t.recorder = null;
  }

  /** Recorders held for running threads (at most the pool size once replaced threads have ended). */
  synchronized int recorderCount() {
    int n = 0;
    for (PoolThread t = threads; t != null; t = t.next) {
      if (t.recorder != null) n++;
    }
    return n;
  }

  /** The task wrapper: carries the arrival time; times and records the run. */
  private final class Timed implements Runnable {
    final Runnable task;
    final long arrival;

    Timed(Runnable task, long arrival) {
      this.task = task;
      this.arrival = arrival;
    }

    @Override
    public void run() {
      long start = System.nanoTime();
      try {
        task.run();
      } finally {
        long end = System.nanoTime();
        if (Thread.currentThread() instanceof PoolThread t && t.recorder instanceof LegacyThreadRecorder rec) {
          rec.record(start - arrival, end - start);
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Executor

  @Override
  public void execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    var rnd = java.util.concurrent.ThreadLocalRandom.current();
    if (rnd.nextInt(QUEUE_SAMPLE) == 0) {
      queueLengths.recordValue(pool.getQueue().size());
    }
    try {
      pool.execute(sampling == 1 || rnd.nextInt(sampling) == 0 ? new Timed(task, System.nanoTime()) : task);
    } catch (RejectedExecutionException e) {
      rejected.increment();
      throw new RejectedExecutionException("executor " + name + " rejected a task ("
          + (pool.isShutdown() ? "shut down" : "queue full: " + pool.getQueue().size() + " queued") + ")", e);
    }
  }

  @Override
  public void shutdown() {
    pool.shutdown();
  }

  /** Stops, interrupts running tasks, and returns the tasks that never started (as submitted). */
  @Override
  public List<Runnable> shutdownNow() {
    List<Runnable> unstarted = new ArrayList<>();
    for (Runnable r : pool.shutdownNow()) {
      unstarted.add(r instanceof Timed t ? t.task : r);
    }
    return unstarted;
  }

  @Override
  public boolean isShutdown() {
    return pool.isShutdown();
  }

  @Override
  public boolean isTerminated() {
    return pool.isTerminated();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return pool.awaitTermination(timeout, unit);
  }

  /** Shuts down, waits for queued work to finish, and stops the ticker. */
  @Override
  public void close() {
    shutdown();
    boolean interrupted = false;
    while (!isTerminated()) {
      try {
        awaitTermination(1, TimeUnit.DAYS);
      } catch (InterruptedException e) {
        interrupted = true;
        shutdownNow();
      }
    }
    onTerminated();
    if (interrupted) Thread.currentThread().interrupt();
  }

  private void onTerminated() {
    ticker.shutdownNow();
    if (mxBeanName != null) {
      try {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean(mxBeanName);
      } catch (javax.management.JMException e) {
        // already gone
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Measurement

  private static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** Harvests every recorder into the current bucket; caller holds the lock. */
  private void harvest(long now) {
    long failedNow = retiredFailures;
    for (PoolThread t = threads; t != null; t = t.next) {
      if (t.recorder != null) t.recorder.harvestInto(current.interval);
      failedNow += t.failures;
    }
    long completedNow = pool.getCompletedTaskCount(); // exact, timed or not
    current.completed += completedNow - lastCompleted;
    current.failed += failedNow - lastFailed;
    lastCompleted = completedNow;
    lastFailed = failedNow;
    queueLengths.getIntervalHistogramInto(queueScratch); // replaces the target's contents
    current.queue.add(queueScratch);
    // Arrivals are not counted on the submit path: every accepted task is completed, running or
    // queued, so accepted = completed + active + queued (exact up to tasks moving meanwhile).
    long accepted = completedNow + pool.getActiveCount() + pool.getQueue().size();
    long rj = rejected.sum();
    current.arrivals += Math.max(0, accepted - lastAccepted) + (rj - lastRejected);
    current.rejected += rj - lastRejected;
    lastAccepted = Math.max(lastAccepted, accepted);
    lastRejected = rj;
    long cpu = processCpuNanos();
    if (cpu >= 0 && lastCpu >= 0) {
      current.cpuNanos = Math.max(0, current.cpuNanos) + (cpu - lastCpu);
    }
    lastCpu = cpu;
    current.endNanos = now;
  }

  private synchronized void tick() {
    try {
      long now = System.nanoTime();
      harvest(now);
      total.add(current);
      ring[ringIndex].reset(now);
      ring[ringIndex].add(current);
      ringIndex = (ringIndex + 1) % ring.length;
      current.reset(now);
      lastTick = now;
      // Restore threads that could not be replaced (their creation failed): ThreadPoolExecutor
      // retries only on the next execute(), and queued tasks would wait for it. A pool still
      // filling up (lazily, one thread per execute) is left alone.
      int core = pool.getCorePoolSize();
      if (!pool.isShutdown() && pool.getPoolSize() < core
          && (pool.getLargestPoolSize() >= core || !pool.getQueue().isEmpty())) {
        pool.prestartAllCoreThreads();
      }
      if (sizing != null && !pool.isShutdown()) {
        Bucket recent = new Bucket();
        recent.reset(now);
        for (int k = 1; k <= Math.min(2, ring.length); k++) {
          recent.add(ring[(ringIndex - k + ring.length) % ring.length]);
        }
        int next = sizing.decide(toSnapshot("recent", recent), pool.getCorePoolSize());
        resize(next);
      }
      sizeHistory.add(pool.getCorePoolSize());
      if (sizeHistory.size() > 3600) sizeHistory.remove(0);
    } catch (RuntimeException | OutOfMemoryError e) {
      // a failed tick must not kill the ticker (a periodic task that throws is never run again);
      // the next one tries again
    }
  }

  private void resize(int n) {
    int cur = pool.getCorePoolSize();
    if (n == cur) return;
    if (n > cur) {
      pool.setMaximumPoolSize(n);
      pool.setCorePoolSize(n);
      pool.prestartAllCoreThreads();
    } else {
      pool.setCorePoolSize(n);
      pool.setMaximumPoolSize(n);
    }
  }

  /** Figures since the executor was built. */
  public synchronized ExecutorSnapshot snapshot() {
    long now = System.nanoTime();
    harvest(now);
    Bucket b = new Bucket();
    b.reset(startNanos);
    b.add(total);
    b.add(current);
    b.arrivals = Math.max(b.arrivals, b.completed + b.rejected); // never fewer than happened
    b.startNanos = startNanos;
    b.endNanos = now;
    return toSnapshot("since start", b);
  }

  /** Figures over the sliding window (the last {@code window} of the builder, default 10 s). */
  public synchronized ExecutorSnapshot windowSnapshot() {
    long now = System.nanoTime();
    harvest(now);
    Bucket b = new Bucket();
    b.reset(now);
    for (Bucket r : ring) {
      if (r.endNanos > r.startNanos) b.add(r);
    }
    b.add(current);
    b.startNanos = Math.max(startNanos, b.startNanos);
    b.endNanos = now;
    return toSnapshot(String.format(java.util.Locale.ROOT, "last %.0f s", (double) tickNanos * ring.length / 1e9), b);
  }

  private ExecutorSnapshot toSnapshot(String period, Bucket b) {
    LegacyThreadRecorder.Interval i = b.interval;
    double secs = Math.max(1e-9, (b.endNanos - b.startNanos) / 1e9);
    long completed = b.completed;
    long arrivals = b.arrivals; // every offer, accepted or rejected
    double retire = completed / secs;
    double svc = i.timed == 0 ? 0 : i.serviceNanos / 1e6 / i.timed; // means over the timed tasks
    double wait = i.timed == 0 ? 0 : i.waitNanos / 1e6 / i.timed;
    double resp = svc + wait;
    double l = retire * resp / 1000.0;
    double dead = i.waitNanos + i.serviceNanos == 0 ? 0 : (double) i.waitNanos / (i.waitNanos + i.serviceNanos);
    double cpu = b.cpuNanos < 0 ? -1 : b.cpuNanos / (secs * 1e9 * processors);
    return new ExecutorSnapshot(period, secs, arrivals, b.rejected, completed, b.failed, arrivals / secs, retire,
        svc, wait, resp, l, dead, l / processors,
        ms(i.wait, 50), ms(i.wait, 90), ms(i.wait, 99), i.wait.getMaxValue() / 1000.0,
        ms(i.service, 50), ms(i.service, 90), ms(i.service, 99), i.service.getMaxValue() / 1000.0,
        ms(i.response, 50), ms(i.response, 90), ms(i.response, 99), i.response.getMaxValue() / 1000.0,
        b.queue.getValueAtPercentile(50), b.queue.getValueAtPercentile(90), b.queue.getValueAtPercentile(99),
        b.queue.getMaxValue(), cpu, processors, pool.getPoolSize(), pool.getQueue().size(), -1, 0);
  }

  private static double ms(Histogram h, double p) {
    return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(p) / 1000.0;
  }

  // ---------------------------------------------------------------------------------------------
  // Introspection

  public String name() {
    return name;
  }

  /** Current number of pool threads allowed (the core size). */
  public int poolSize() {
    return pool.getCorePoolSize();
  }

  /** Largest number of threads the pool has had. */
  public int largestPoolSize() {
    return pool.getLargestPoolSize();
  }

  /** The pool size after each tick (most recent last), for seeing how self-sizing moved. */
  public synchronized List<Integer> sizeHistory() {
    return List.copyOf(sizeHistory);
  }

  public boolean selfSizing() {
    return sizing != null;
  }

  /** Sets the pool size (fixed-size executors). */
  public synchronized void setPoolSize(int n) {
    if (n <= 0) throw new IllegalArgumentException("pool size must be positive, was " + n);
    resize(n);
  }

  public ObjectName mxBeanName() {
    return mxBeanName;
  }

  @Override
  public String toString() {
    return "MeasuredExecutor[" + name + ", pool " + pool.getPoolSize() + "/" + pool.getCorePoolSize()
        + ", queue " + pool.getQueue().size() + (sizing != null ? ", self-sizing" : "") + "]";
  }

  private ObjectName registerMXBean() {
    var server = ManagementFactory.getPlatformMBeanServer();
    MeasuredExecutorMXBean bean = new Bean();
    for (int attempt = 0; ; attempt++) {
      String n = attempt == 0 ? name : name + "#" + (attempt + 1);
      try {
        ObjectName on = new ObjectName("dev.tine:type=MeasuredExecutor,name=" + ObjectName.quote(n));
        server.registerMBean(bean, on);
        return on;
      } catch (javax.management.InstanceAlreadyExistsException e) {
        // try the next suffix
      } catch (javax.management.JMException e) {
        return null;
      }
    }
  }

  private final class Bean implements MeasuredExecutorMXBean {
    private ExecutorSnapshot w() {
      return windowSnapshot();
    }

    @Override public String getName() { return name; }
    @Override public int getPoolSize() { return pool.getPoolSize(); }
    @Override public int getQueueLength() { return pool.getQueue().size(); }
    @Override public long getArrivals() { return snapshot().arrivals(); }
    @Override public long getCompleted() { return snapshot().completed(); }
    @Override public long getFailed() { return snapshot().failed(); }
    @Override public long getRejected() { return rejected.sum(); }
    @Override public double getArrivalRate() { return w().arrivalRate(); }
    @Override public double getRetirementRate() { return w().retirementRate(); }
    @Override public double getAverageServiceTimeMillis() { return w().avgServiceMs(); }
    @Override public double getAverageTimeWaitingInPoolMillis() { return w().avgWaitMs(); }
    @Override public double getAverageResponseTimeMillis() { return w().avgResponseMs(); }
    @Override public double getEstimatedAverageNumberOfActiveRequests() { return w().littlesL(); }
    @Override public double getRatioOfDeadTimeToResponseTime() { return w().deadTimeRatio(); }
    @Override public double getEstimatedAverageNumberOfActiveRequestsPerCpu() { return w().lPerCpu(); }
    @Override public double getP90WaitMillis() { return w().p90WaitMs(); }
    @Override public double getP99ResponseMillis() { return w().p99ResponseMs(); }
    @Override public double getCpuUtilization() { return w().cpuUtilization(); }
    @Override public boolean isSelfSizing() { return sizing != null; }
  }

  // ---------------------------------------------------------------------------------------------

  /** Configures a {@link MeasuredExecutor}. */
  public static final class Builder {
    private String name;
    private int poolSize = Runtime.getRuntime().availableProcessors();
    private int queueCapacity;
    private boolean daemon = true;
    private Duration keepAlive = Duration.ofSeconds(60);
    private Duration window = Duration.ofSeconds(10);
    private Duration tick = Duration.ofSeconds(1);
    private boolean selfSizing;
    private int minPoolSize = 1;
    private int maxPoolSize = 256;
    private double targetCpuUtilization = 0.9;
    private boolean registerMXBean = true;
    private int sampling = 1;
    private Supplier<LegacyThreadRecorder> newRecorder = LegacyThreadRecorder::new;

    private Builder() {}

    /** For tests: how pool threads' recorders are made (to simulate running out of heap). */
    Builder recorders(Supplier<LegacyThreadRecorder> newRecorder) {
      this.newRecorder = Objects.requireNonNull(newRecorder);
      return this;
    }

    /**
     * Time one task in {@code n} (chosen at random; default 1: every task). Counts, rates and
     * failures stay exact; means and percentiles of wait, service and response come from the
     * timed tasks. Timing costs three clock reads and a wrapper per task (about 150 ns here), so
     * tasks shorter than a few microseconds are better sampled.
     */
    public Builder sampling(int n) {
      if (n <= 0) throw new IllegalArgumentException("sampling must be positive, was " + n);
      this.sampling = n;
      return this;
    }

    public Builder name(String name) {
      if (name == null || name.isBlank()) throw new IllegalArgumentException("name must not be blank");
      this.name = name;
      return this;
    }

    /** Threads (fixed size), or the starting size when self-sizing. */
    public Builder poolSize(int n) {
      if (n <= 0) throw new IllegalArgumentException("pool size must be positive, was " + n);
      this.poolSize = n;
      return this;
    }

    /** Bounded queue of this many tasks (0: unbounded, the default); when full, tasks are rejected. */
    public Builder queueCapacity(int capacity) {
      if (capacity < 0) throw new IllegalArgumentException("queue capacity must not be negative, was " + capacity);
      this.queueCapacity = capacity;
      return this;
    }

    public Builder daemon(boolean daemon) {
      this.daemon = daemon;
      return this;
    }

    /** Length of the sliding window of {@link #windowSnapshot()} (default 10 s). */
    public Builder window(Duration window) {
      if (window.isNegative() || window.isZero()) throw new IllegalArgumentException("window must be positive");
      this.window = window;
      return this;
    }

    /** How often measurements are harvested and self-sizing decides (default 1 s). */
    public Builder tick(Duration tick) {
      if (tick.toMillis() < 10) throw new IllegalArgumentException("tick must be at least 10 ms");
      this.tick = tick;
      return this;
    }

    /**
     * Adjust the pool size every tick from the live measurements (Little's law for the demand,
     * Goetz's formula with the measured CPU share for what the CPUs can take), between {@code
     * min} and {@code max}; see {@link SelfSizing}.
     */
    public Builder selfSizing(int min, int max) {
      if (min <= 0 || max < min) throw new IllegalArgumentException("need 0 < min <= max, was " + min + ", " + max);
      this.selfSizing = true;
      this.minPoolSize = min;
      this.maxPoolSize = max;
      return this;
    }

    /** CPU utilization self-sizing aims not to exceed (default 0.9). */
    public Builder targetCpuUtilization(double u) {
      if (!(u > 0 && u <= 1)) throw new IllegalArgumentException("target utilization must be in (0, 1], was " + u);
      this.targetCpuUtilization = u;
      return this;
    }

    public Builder registerMXBean(boolean register) {
      this.registerMXBean = register;
      return this;
    }

    public MeasuredExecutor build() {
      return new MeasuredExecutor(this);
    }
  }
}

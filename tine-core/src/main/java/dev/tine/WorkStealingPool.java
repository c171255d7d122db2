package dev.tine;

import dev.tine.stats.WorkerCounters;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A work-stealing fork/join pool (Lea, "A Java Fork/Join Framework", 2000), written from scratch.
 *
 * <pre>{@code
 * try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
 *   long fib = pool.invoke(new Fib(40));
 *   System.out.println(pool.stats());
 * }
 * }</pre>
 *
 * <h2>Implementation overview</h2>
 *
 * <p><b>Queues.</b> Each worker owns a {@code WorkDeque} (Chase–Lev ring): it pushes forks and
 * pops them at the top, LIFO, with no atomic read-modify-write except on the last element;
 * thieves take the oldest task at the base with one CAS. Threads that are not workers submit to
 * one lock-free external queue ({@link ConcurrentLinkedQueue}); tasks forked from a worker go to
 * its own deque.
 *
 * <p><b>Scheduling.</b> A worker runs its own deque first, then scans: the external queue, then
 * the other deques from a random start (random victims spread thieves; oldest-first steals take
 * the biggest pieces of a divide-and-conquer tree). A join helps rather than waits: it runs the
 * joiner's own pending forks, then steals from the target's thief (and that thief's thief), and
 * blocks only as a last resort, with a timed wait after which it helps again. See {@link Worker}.
 *
 * <p><b>Sleep and wake.</b> An idle worker spins, then yields, then registers in the sleeper
 * count ({@code ctl}, low half), rescans, and parks. Producers read {@code ctl} after publishing:
 * a worker's push does so only when its deque was (nearly) empty, since a non-empty deque was
 * either seen by the sleeper's rescan or already signalled; an external submission always does.
 * A thief that leaves work behind in its victim wakes another sleeper, so wake-ups propagate.
 * Liveness never depends on a wake-up for a worker's own forks: the owner always drains its deque.
 *
 * <p><b>Workers</b> start lazily, when work is signalled and fewer than {@code parallelism} are
 * live ({@code ctl}, high half), and retire after {@code keepAlive} asleep. Thread creation,
 * retirement and termination take {@link #lock}; nothing on the task path does.
 *
 * <p><b>Shutdown.</b> After {@link #shutdown}, the last worker to fall asleep with every queue
 * empty terminates the pool (every live worker asleep and no queued work means no task can
 * create more). {@link #close} is shutdown plus waiting for every worker thread to end.
 *
 * <p><b>Counters</b> are per worker, plain fields written by their owner and padded apart, so
 * recording them adds no shared writes; {@link #stats()} sums them.
 */
public final class WorkStealingPool extends AbstractExecutorService implements AutoCloseable {

  // runState
  private static final int RUNNING = 0, SHUTDOWN = 1, STOP = 2, TERMINATED = 3;

  private static final VarHandle CTL;
  private static final VarHandle RUN_STATE;
  private static final VarHandle HUNGRY;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      CTL = l.findVarHandle(WorkStealingPool.class, "ctl", long.class);
      RUN_STATE = l.findVarHandle(WorkStealingPool.class, "runState", int.class);
      HUNGRY = l.findVarHandle(WorkStealingPool.class, "hungry", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static final AtomicInteger POOL_SEQ = new AtomicInteger();
  private static final long LIVE_UNIT = 1L << 32;

  final String name;
  final String threadNamePrefix;
  final boolean daemon;
  final long keepAliveNanos;
  private final int parallelism;
  private final Thread.UncaughtExceptionHandler handler;
  private final boolean recordStats;
  private final boolean common;
  final boolean latentForks;

  /**
   * Workers looking for work: idle ones, joiners with nothing to help with, and worker slots not
   * started (a promotion's signal starts them). Busy workers read
   * it at each fork (a read-mostly word: written only when a worker's hunger changes, never per
   * task) and promote latent forks while it is non-zero.
   */
  volatile int hungry;

  /** Worker slots; a null slot has no live worker. Written under {@link #lock}. */
  volatile Worker[] workers;

  /** Per-slot counters: they outlive a retired worker so totals never go backwards. */
  private final WorkerCounters[] counters;

  /** Per-slot CPU time of workers that have exited, so a slot's CPU total survives retirement. */
  private final long[] exitedCpuNanos;

  private final ConcurrentLinkedQueue<Task<?>> external = new ConcurrentLinkedQueue<>();

  /** High 32 bits: live workers; low 32 bits: sleeping workers. */
  @SuppressWarnings("unused")
  private volatile long ctl;

  private volatile int runState;

  private final Object lock = new Object();

  /** Worker threads started and not yet seen dead; close() joins them. Guarded by lock. */
  private final List<Worker> started = new ArrayList<>();

  private long[][] statsBaseline;
  private final ObjectName mxBeanName;
  private final int wakeCursorMask;
  private int wakeCursor; // racy rotation of the first slot a waker looks at

  private WorkStealingPool(Builder b, boolean common) {
    this.parallelism = b.parallelism;
    this.common = common;
    int seq = POOL_SEQ.incrementAndGet();
    this.name = b.name != null ? b.name : common ? "tine-common" : "tine-pool-" + seq;
    this.threadNamePrefix = b.threadNamePrefix != null ? b.threadNamePrefix : name + "-worker-";
    this.daemon = b.daemon;
    this.handler = b.handler;
    this.keepAliveNanos = b.keepAlive.toNanos();
    this.recordStats = b.recordStats;
    this.latentForks = !b.eagerForks;
    this.hungry = parallelism; // every slot is unstarted, hence hungry
    this.workers = new Worker[parallelism];
    this.counters = new WorkerCounters[parallelism];
    this.exitedCpuNanos = new long[parallelism];
    for (int i = 0; i < parallelism; i++) {
      counters[i] = new WorkerCounters();
    }
    this.wakeCursorMask = Integer.highestOneBit(Math.max(1, parallelism)) * 2 - 1;
    if (b.threadContentionMonitoring) {
      ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
      if (tmx.isThreadContentionMonitoringSupported()) {
        tmx.setThreadContentionMonitoringEnabled(true);
      }
    }
    this.mxBeanName = b.registerMXBean ? registerMXBean() : null;
  }

  /** A builder with the defaults: parallelism = available processors, daemon workers. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The shared pool used by {@link Task#fork()} and {@link Task#invoke()} outside any pool. Its
   * parallelism is the number of available processors; shutdown and close do nothing to it.
   */
  public static WorkStealingPool commonPool() {
    return CommonPool.POOL;
  }

  private static final class CommonPool {
    static final WorkStealingPool POOL = new WorkStealingPool(new Builder().daemon(true), true);
  }

  // ---------------------------------------------------------------------------------------------
  // Submission

  /**
   * Runs {@code task} in this pool and returns its result; from a worker of this pool, runs it in
   * place. Exceptions are reported as by {@link Task#join()}.
   */
  public <V> V invoke(Task<V> task) {
    Objects.requireNonNull(task, "task");
    if (Thread.currentThread() instanceof Worker w && w.pool == this) {
      return task.invoke();
    }
    externalPush(task);
    return task.join();
  }

  /** Schedules a task for asynchronous execution and returns it (it is its own Future). */
  public <V> Task<V> submit(Task<V> task) {
    Objects.requireNonNull(task, "task");
    externalPush(task);
    return task;
  }

  @Override
  public <T> Task<T> submit(Callable<T> callable) {
    Task<T> t = new Adapters.CallableTask<>(Objects.requireNonNull(callable, "callable"));
    externalPush(t);
    return t;
  }

  @Override
  public Task<?> submit(Runnable runnable) {
    Task<?> t = new Adapters.RunnableTask<>(Objects.requireNonNull(runnable, "runnable"), null);
    externalPush(t);
    return t;
  }

  @Override
  public <T> Task<T> submit(Runnable runnable, T result) {
    Task<T> t = new Adapters.RunnableTask<>(Objects.requireNonNull(runnable, "runnable"), result);
    externalPush(t);
    return t;
  }

  /**
   * Runs {@code runnable} asynchronously. Nobody can observe its exception, so one that escapes
   * goes to the builder's uncaught-exception handler (or the thread's default one).
   */
  @Override
  public void execute(Runnable runnable) {
    Objects.requireNonNull(runnable, "runnable");
    externalPush(new Adapters.ExecuteTask(runnable, this));
  }

  @Override
  protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
    return new Adapters.CallableTask<>(callable);
  }

  @Override
  protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
    return new Adapters.RunnableTask<>(runnable, value);
  }

  /** From a worker of this pool: push on its deque; otherwise the external queue. */
  void externalPush(Task<?> task) {
    if (runState != RUNNING) {
      throw new RejectedExecutionException(
          "pool " + name + " is " + stateName() + ": it accepts no new tasks");
    }
    if (Thread.currentThread() instanceof Worker w && w.pool == this) {
      w.push(task);
      return;
    }
    external.offer(task); // CAS: a volatile write, ordered before the ctl read in signalWork
    signalWork();
    if (runState >= STOP && external.remove(task)) {
      throw new RejectedExecutionException("pool " + name + " stopped during submission");
    }
  }

  Task<?> pollExternal() {
    return external.poll();
  }

  void reportUncaught(Throwable ex) {
    Thread t = Thread.currentThread();
    Thread.UncaughtExceptionHandler h = handler;
    if (h == null) {
      h = Thread.getDefaultUncaughtExceptionHandler();
    }
    if (h != null) {
      h.uncaughtException(t, ex);
    } else {
      System.err.print("Exception in " + t.getName() + " (task run by execute()): ");
      ex.printStackTrace();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Sleep, wake, start, retire

  void addHungry(int delta) {
    HUNGRY.getAndAdd(this, delta);
  }

  void addSleepers(int delta) {
    CTL.getAndAdd(this, (long) delta);
  }

  /** Wake a sleeping worker, or start one if fewer than parallelism are live. */
  void signalWork() {
    long c = ctl;
    if ((int) c != 0) {
      Worker[] ws = workers;
      int n = ws.length;
      int start = (wakeCursor++ & wakeCursorMask) % n;
      for (int i = 0; i < n; i++) {
        Worker w = ws[(start + i) % n];
        if (w != null && w.sleepState == Worker.SLEEPING && w.tryClaim(Worker.AWAKE)) {
          addSleepers(-1);
          LockSupport.unpark(w);
          return;
        }
      }
      c = ctl;
    }
    if ((int) (c >>> 32) < parallelism && runState < STOP) {
      tryStartWorker();
    }
  }

  private void tryStartWorker() {
    synchronized (lock) {
      long c = ctl;
      if ((int) (c >>> 32) >= parallelism || runState >= STOP) {
        return;
      }
      Worker[] ws = workers;
      int slot = -1;
      for (int i = 0; i < ws.length; i++) {
        if (ws[i] == null) {
          slot = i;
          break;
        }
      }
      if (slot < 0) {
        return; // a retiring worker still holds its slot; it will be free in a moment
      }
      started.removeIf(t -> !t.isAlive());
      Worker w = new Worker(this, slot, counters[slot], recordStats);
      Worker[] next = ws.clone();
      next[slot] = w;
      workers = next;
      CTL.getAndAdd(this, LIVE_UNIT);
      addHungry(-1); // the slot is filled; the new worker looks for work at once
      started.add(w);
      try {
        w.start();
      } catch (Throwable t) { // e.g. OutOfMemoryError: unable to create native thread
        next = workers.clone();
        next[slot] = null;
        workers = next;
        CTL.getAndAdd(this, -LIVE_UNIT);
        addHungry(1);
        started.remove(w);
        throw t;
      }
    }
  }

  /** A sleeper whose keep-alive expired leaves, unless a waker claimed it first. */
  boolean tryRetire(Worker w) {
    synchronized (lock) {
      if (!w.tryClaim(Worker.RETIRED)) {
        return false;
      }
      CTL.getAndAdd(this, -LIVE_UNIT - 1L); // one fewer live worker, one fewer sleeper
      return true;
    }
  }

  /** Called by each worker thread as its last action. */
  void workerExited(Worker w, Throwable failure) {
    recordExitedCpu(w);
    synchronized (lock) {
      Worker[] ws = workers;
      if (ws[w.index] == w) {
        Worker[] next = ws.clone();
        next[w.index] = null;
        workers = next;
      }
      if (w.sleepState != Worker.RETIRED) {
        CTL.getAndAdd(this, -LIVE_UNIT);
      }
      addHungry(1); // the slot is vacant again
      if (runState >= STOP && (int) (ctl >>> 32) == 0) {
        setTerminated();
      }
    }
    if (failure != null) {
      reportUncaught(failure);
    }
    if (runState < STOP && failure != null) {
      signalWork(); // replace the failed worker if work is waiting
    }
  }

  boolean hasVisibleWork() {
    if (!external.isEmpty()) {
      return true;
    }
    for (Worker w : workers) {
      if (w != null && w.deque.hasWork()) {
        return true;
      }
    }
    return false;
  }

  boolean isStopping() {
    return runState >= STOP;
  }

  /**
   * After shutdown: terminate if every live worker is asleep and no queue holds work. Called by a
   * worker that has just registered as sleeping, and by shutdown().
   */
  boolean tryTerminateIfQuiescent() {
    long c = ctl;
    if ((int) c == (int) (c >>> 32) && !hasVisibleWork() && runState == SHUTDOWN) {
      stopWorkers();
      return true;
    }
    return false;
  }

  private void stopWorkers() {
    synchronized (lock) {
      if (runState < STOP) {
        RUN_STATE.setVolatile(this, STOP);
      }
      for (Worker w : workers) {
        if (w != null) {
          LockSupport.unpark(w);
        }
      }
      if ((int) (ctl >>> 32) == 0) {
        setTerminated();
      }
    }
  }

  private void setTerminated() {
    synchronized (lock) {
      if (runState == TERMINATED) {
        return;
      }
      runState = TERMINATED;
      lock.notifyAll();
    }
    unregisterMXBean();
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  /**
   * Stops accepting new tasks. Tasks already submitted, and the tasks they fork, still run; the
   * workers end once the pool is quiescent. Does nothing to the common pool.
   */
  @Override
  public void shutdown() {
    if (common) {
      return;
    }
    synchronized (lock) {
      if (runState == RUNNING) {
        RUN_STATE.setVolatile(this, SHUTDOWN);
      }
    }
    tryTerminateIfQuiescent();
  }

  /**
   * Stops accepting tasks, cancels every queued task, interrupts the workers, and returns the
   * tasks that were submitted with {@code submit}/{@code execute} and never started. Does nothing
   * to the common pool.
   */
  @Override
  public List<Runnable> shutdownNow() {
    if (common) {
      return List.of();
    }
    synchronized (lock) {
      if (runState < STOP) {
        RUN_STATE.setVolatile(this, STOP);
      }
    }
    List<Runnable> unstarted = new ArrayList<>();
    for (Task<?> t; (t = external.poll()) != null; ) {
      drained(t, unstarted);
    }
    for (Worker w : workers) {
      if (w != null) {
        for (Task<?> t; (t = w.deque.steal()) != null; ) {
          drained(t, unstarted);
        }
      }
    }
    synchronized (lock) {
      for (Worker w : workers) {
        if (w != null) {
          w.interrupt();
        }
      }
    }
    stopWorkers();
    return unstarted;
  }

  private static void drained(Task<?> t, List<Runnable> unstarted) {
    if (t.cancel() && t instanceof Adapters.Submitted s) {
      unstarted.add(s.original());
    }
  }

  @Override
  public boolean isShutdown() {
    return runState >= SHUTDOWN;
  }

  @Override
  public boolean isTerminated() {
    return runState == TERMINATED;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    synchronized (lock) {
      while (runState != TERMINATED) {
        long left = deadline - System.nanoTime();
        if (left <= 0L) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
    }
    return true;
  }

  /**
   * Shuts down, waits for submitted work to finish, and waits until every worker thread has
   * ended. Afterwards submissions throw {@link RejectedExecutionException}. If interrupted while
   * waiting, cancels the remaining work ({@link #shutdownNow}) and keeps waiting, then restores
   * the interrupt. Does nothing to the common pool.
   */
  @Override
  public void close() {
    if (common) {
      return;
    }
    boolean interrupted = false;
    shutdown();
    while (!isTerminated()) {
      try {
        awaitTermination(1, TimeUnit.DAYS);
      } catch (InterruptedException e) {
        if (!interrupted) {
          shutdownNow();
          interrupted = true;
        }
      }
    }
    List<Worker> toJoin;
    synchronized (lock) {
      toJoin = new ArrayList<>(started);
      started.clear();
    }
    for (Worker w : toJoin) {
      while (w.isAlive()) {
        try {
          w.join();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private String stateName() {
    return switch (runState) {
      case RUNNING -> "running";
      case SHUTDOWN -> "shut down";
      case STOP -> "stopping";
      default -> "terminated";
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Introspection

  /** Whether forks are latent (the default) rather than eager. */
  public boolean latentForks() {
    return latentForks;
  }

  /** The configured number of workers. */
  public int parallelism() {
    return parallelism;
  }

  /** This pool's name (used in thread names and the MXBean's ObjectName). */
  public String name() {
    return name;
  }

  /** Workers currently started (they start on demand and retire after the keep-alive). */
  public int poolSize() {
    return (int) (ctl >>> 32);
  }

  /** Workers currently asleep. */
  public int sleepingWorkers() {
    return (int) ctl;
  }

  /** Tasks waiting in the external queue and the worker deques (approximate while running). */
  public long queuedTasks() {
    long n = external.size();
    for (Worker w : workers) {
      if (w != null) {
        n += w.deque.size();
      }
    }
    return n;
  }

  /**
   * An immutable snapshot of the counters, totals and per worker, since the pool was built or the
   * last {@link #resetStats()}, with each live worker's CPU time and BLOCKED/WAITING figures from
   * {@link ThreadMXBean}.
   */
  public PoolStats stats() {
    long[][] now = new long[parallelism][WorkerCounters.COUNT];
    for (int i = 0; i < parallelism; i++) {
      counters[i].read(now[i]);
    }
    long[][] base;
    synchronized (lock) {
      base = statsBaseline;
    }
    ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
    Worker[] ws = workers;
    List<PoolStats.WorkerStats> rows = new ArrayList<>(parallelism);
    for (int i = 0; i < parallelism; i++) {
      long[] c = now[i].clone();
      if (base != null) {
        for (int k = 0; k < c.length; k++) {
          c[k] -= base[i][k];
        }
      }
      Worker w = ws[i];
      long cpu = -1, blockedN = -1, blockedMs = -1, waitedN = -1, waitedMs = -1;
      String threadName = null;
      if (w != null && w.isAlive()) {
        threadName = w.getName();
        long id = w.threadId();
        if (tmx.isThreadCpuTimeSupported() && tmx.isThreadCpuTimeEnabled()) {
          cpu = tmx.getThreadCpuTime(id);
        }
      }
      synchronized (exitedCpuNanos) {
        if (exitedCpuNanos[i] > 0) {
          cpu = Math.max(cpu, 0L) + exitedCpuNanos[i];
        }
      }
      if (w != null && w.isAlive()) {
        long id = w.threadId();
        ThreadInfo info = tmx.getThreadInfo(id);
        if (info != null) {
          blockedN = info.getBlockedCount();
          waitedN = info.getWaitedCount();
          blockedMs = info.getBlockedTime();
          waitedMs = info.getWaitedTime();
        }
      }
      rows.add(new PoolStats.WorkerStats(i, threadName, c, cpu, blockedN, blockedMs, waitedN, waitedMs));
    }
    return new PoolStats(name, parallelism, poolSize(), sleepingWorkers(), queuedTasks(), rows);
  }

  /** Makes the next {@link #stats()} count from now. */
  public void resetStats() {
    long[][] now = new long[parallelism][WorkerCounters.COUNT];
    for (int i = 0; i < parallelism; i++) {
      counters[i].read(now[i]);
    }
    synchronized (lock) {
      statsBaseline = now;
    }
  }

  private void recordExitedCpu(Worker w) {
    ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
    if (tmx.isCurrentThreadCpuTimeSupported() && tmx.isThreadCpuTimeEnabled()) {
      long cpu = tmx.getCurrentThreadCpuTime();
      synchronized (exitedCpuNanos) {
        exitedCpuNanos[w.index] += cpu;
      }
    }
  }

  @Override
  public String toString() {
    return "WorkStealingPool[" + name + ", parallelism=" + parallelism + ", size=" + poolSize()
        + ", sleeping=" + sleepingWorkers() + ", hungry=" + hungry + ", queued=" + queuedTasks() + ", "
        + stateName() + "]";
  }

  // ---------------------------------------------------------------------------------------------
  // JMX

  private ObjectName registerMXBean() {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    PoolMXBeanImpl bean = new PoolMXBeanImpl(this);
    for (int attempt = 0; ; attempt++) {
      String n = attempt == 0 ? name : name + "#" + (attempt + 1);
      try {
        ObjectName on = new ObjectName("dev.tine:type=WorkStealingPool,name=" + ObjectName.quote(n));
        server.registerMBean(bean, on);
        return on;
      } catch (javax.management.InstanceAlreadyExistsException e) {
        // another pool has this name: try the next suffix
      } catch (javax.management.JMException e) {
        return null; // JMX unavailable: the pool works without it
      }
    }
  }

  private void unregisterMXBean() {
    if (mxBeanName != null) {
      try {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean(mxBeanName);
      } catch (javax.management.JMException e) {
        // already gone
      }
    }
  }

  /** The ObjectName this pool's MXBean is registered under, or null. */
  public ObjectName mxBeanName() {
    return mxBeanName;
  }

  // ---------------------------------------------------------------------------------------------
  // Builder

  /** Configures a {@link WorkStealingPool}. */
  public static final class Builder {
    private int parallelism = Runtime.getRuntime().availableProcessors();
    private String name;
    private String threadNamePrefix;
    private boolean daemon = true;
    private Thread.UncaughtExceptionHandler handler;
    private Duration keepAlive = Duration.ofSeconds(60);
    private boolean recordStats = true;
    private boolean registerMXBean = true;
    private boolean threadContentionMonitoring;
    private boolean eagerForks;

    private Builder() {}

    /**
     * Eager forking: {@link Task#fork()} pushes every fork on the worker's deque at once, as the
     * JDK's ForkJoinPool does. Default false: forks are latent (recorded privately, run by a
     * direct call when joined, promoted to the deque only when the worker's deque is empty or
     * some worker is hungry).
     */
    public Builder eagerForks(boolean eager) {
      this.eagerForks = eager;
      return this;
    }

    /** Number of worker threads (default: available processors). */
    public Builder parallelism(int parallelism) {
      if (parallelism <= 0) {
        throw new IllegalArgumentException("parallelism must be positive, was " + parallelism);
      }
      if (parallelism > 32767) {
        throw new IllegalArgumentException("parallelism must be at most 32767, was " + parallelism);
      }
      this.parallelism = parallelism;
      return this;
    }

    /** The pool's name, for its MXBean and (by default) its thread names. */
    public Builder name(String name) {
      this.name = requireText(name, "name");
      return this;
    }

    /** Worker thread names are this prefix followed by the worker index. */
    public Builder threadNamePrefix(String prefix) {
      this.threadNamePrefix = requireText(prefix, "threadNamePrefix");
      return this;
    }

    /** Whether workers are daemon threads (default true, as in the JDK's ForkJoinPool). */
    public Builder daemon(boolean daemon) {
      this.daemon = daemon;
      return this;
    }

    /** Receives exceptions from tasks run by {@code execute()} and from failed workers. */
    public Builder uncaughtExceptionHandler(Thread.UncaughtExceptionHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /** How long an idle worker sleeps before its thread ends (default 60 s). */
    public Builder keepAlive(Duration keepAlive) {
      Objects.requireNonNull(keepAlive, "keepAlive");
      if (keepAlive.isNegative() || keepAlive.isZero()) {
        throw new IllegalArgumentException("keepAlive must be positive, was " + keepAlive);
      }
      this.keepAlive = keepAlive.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365) : keepAlive;
      return this;
    }

    /** Whether workers count events for {@link #stats()} (default true; off to measure its cost). */
    public Builder recordStats(boolean recordStats) {
      this.recordStats = recordStats;
      return this;
    }

    /** Whether to register an MXBean {@code dev.tine:type=WorkStealingPool,name=...} (default true). */
    public Builder registerMXBean(boolean register) {
      this.registerMXBean = register;
      return this;
    }

    /**
     * Enables the JVM's thread contention monitoring (a JVM-wide switch), so that {@link
     * PoolStats} has BLOCKED and WAITING times, not only counts (default false).
     */
    public Builder threadContentionMonitoring(boolean enable) {
      this.threadContentionMonitoring = enable;
      return this;
    }

    public WorkStealingPool build() {
      return new WorkStealingPool(this, false);
    }

    private static String requireText(String s, String what) {
      Objects.requireNonNull(s, what);
      if (s.isBlank()) {
        throw new IllegalArgumentException(what + " must not be blank");
      }
      return s;
    }
  }
}

package dev.tine;

import dev.tine.stats.WorkerCounters;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * retirement and termination take {@link #lock}; nothing on the task path does. A worker that
 * exits looks for visible work once its slot is free, so a submission that found every slot
 * taken by a retiring worker still gets a worker.
 *
 * <p><b>Blocking.</b> {@link #managedBlock} promotes the caller's latent forks and, while it
 * blocks, lets the pool run one more worker than {@code parallelism} per blocked worker, up to
 * {@code maxSpares}. Blocking that Tine cannot see (a latch, a queue) is covered by claims: idle
 * workers take the latent forks of a worker parked outside Tine (see {@code LatentStack}).
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
  private static final VarHandle BLOCKED;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      CTL = l.findVarHandle(WorkStealingPool.class, "ctl", long.class);
      RUN_STATE = l.findVarHandle(WorkStealingPool.class, "runState", int.class);
      HUNGRY = l.findVarHandle(WorkStealingPool.class, "hungry", int.class);
      BLOCKED = l.findVarHandle(WorkStealingPool.class, "blockedWorkers", int.class);
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
  private final int maxSpares;

  /**
   * Workers looking for work: idle ones, joiners with nothing to help with, and worker slots not
   * started (a promotion's signal starts them). Busy workers read
   * it at each fork (a read-mostly word: written only when a worker's hunger changes, never per
   * task) and promote latent forks while it is non-zero.
   */
  volatile int hungry;

  /**
   * Worker slots; a null slot has no live worker. {@code parallelism} slots, plus spare slots
   * added while workers are blocked in {@link #managedBlock}. Written under {@link #lock}.
   */
  volatile Worker[] workers;

  /** Per-slot counters: they outlive a retired worker so totals never go backwards. Grows with workers. */
  private volatile WorkerCounters[] counters;

  /** Per-slot CPU time of workers that have exited, so a slot's CPU total survives retirement. Guarded by lock. */
  private long[] exitedCpuNanos;

  /** Workers blocked in managedBlock: each lets the pool run one more worker, up to maxSpares. */
  private volatile int blockedWorkers;

  private final ConcurrentLinkedQueue<Task<?>> external = new ConcurrentLinkedQueue<>();

  /**
   * High 32 bits: live workers; low 32 bits: sleeping workers (registered sleepers, including
   * ones a waker has claimed but that have not taken themselves off yet).
   */
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
    this.maxSpares = b.maxSpares;
    this.hungry = parallelism; // every slot is unstarted, hence hungry
    this.workers = new Worker[parallelism];
    WorkerCounters[] cs = new WorkerCounters[parallelism];
    for (int i = 0; i < parallelism; i++) {
      cs[i] = new WorkerCounters();
    }
    this.counters = cs;
    this.exitedCpuNanos = new long[parallelism];
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
    // A Runnable that is already one of our futures (from submit, invokeAll) reports its own
    // outcome: run it as itself, as the JDK's pool does with a ForkJoinTask.
    externalPush(runnable instanceof Task<?> t ? t : new Adapters.ExecuteTask(runnable, this));
  }

  @Override
  protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
    return new Adapters.CallableTask<>(Objects.requireNonNull(callable, "callable"));
  }

  @Override
  protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
    return new Adapters.RunnableTask<>(Objects.requireNonNull(runnable, "runnable"), value);
  }

  /**
   * Runs every task and returns their futures, all done. A null element throws {@link
   * NullPointerException} before any task is submitted. From a worker of this pool the waiting
   * helps (the tasks may sit in the caller's own deque).
   */
  @Override
  public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
    return invokeAllUntil(tasks, 0L);
  }

  /** As {@link #invokeAll(Collection)}; tasks not done at the timeout are cancelled. */
  @Override
  public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    return invokeAllUntil(tasks, deadline == 0L ? 1L : deadline);
  }

  /** @param deadline a nanoTime, or 0 for none */
  private <T> List<Future<T>> invokeAllUntil(Collection<? extends Callable<T>> tasks, long deadline)
      throws InterruptedException {
    List<Adapters.CallableTask<T>> fs = adaptAll(tasks);
    try {
      if (deadline != 0L && Thread.currentThread() instanceof Worker w && w.pool == this) {
        // Joining would run a candidate here, and it might block past the deadline.
        if (!awaitGroup(fs, deadline, false)) {
          cancelAll(fs);
        }
        return new ArrayList<>(fs);
      }
      for (Task<T> f : fs) {
        externalPush(f);
      }
      for (Task<T> f : fs) {
        if (!f.isDone()) {
          try {
            if (deadline == 0L) {
              f.get();
            } else {
              f.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
          } catch (ExecutionException | CancellationException ignored) {
            // reported by that future
          } catch (TimeoutException e) {
            cancelAll(fs);
            break;
          }
        }
      }
      return new ArrayList<>(fs);
    } catch (Throwable t) {
      cancelAll(fs);
      throw t;
    }
  }

  /**
   * Returns the result of one task that completed normally, and cancels the others. From a worker
   * of this pool it joins the tasks in order (joins help, so the tasks run even at parallelism 1);
   * from another thread it returns whichever succeeds first.
   */
  @Override
  public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
    if (!(Thread.currentThread() instanceof Worker w && w.pool == this)) {
      return super.invokeAny(tasks);
    }
    return invokeAnyHelping(tasks);
  }

  @Override
  public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (!(Thread.currentThread() instanceof Worker w && w.pool == this)) {
      return super.invokeAny(tasks, timeout, unit);
    }
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    List<Adapters.CallableTask<T>> fs = adaptAll(tasks);
    if (fs.isEmpty()) {
      throw new IllegalArgumentException("no tasks");
    }
    try {
      // Joining would run a candidate here, and it might block past the deadline.
      awaitGroup(fs, deadline == 0L ? 1L : deadline, true);
      ExecutionException last = null;
      for (Task<T> f : fs) {
        if (f.isDone()) {
          try {
            return f.get();
          } catch (ExecutionException e) {
            last = e;
          } catch (CancellationException e) {
            last = new ExecutionException(e);
          }
        }
      }
      for (Task<T> f : fs) {
        if (!f.isDone()) {
          throw new TimeoutException("no task completed normally within " + timeout + " " + unit);
        }
      }
      throw last;
    } finally {
      cancelAll(fs);
    }
  }

  /**
   * From a worker of this pool: submits the group and waits, as a managed block (the pool runs a
   * spare worker meanwhile, so the group runs even at parallelism 1), until every task is done, or
   * with {@code any} until one completed normally, or until the deadline.
   *
   * @return false at the deadline
   */
  private <T> boolean awaitGroup(List<Adapters.CallableTask<T>> fs, long deadline, boolean any)
      throws InterruptedException {
    Thread me = Thread.currentThread();
    for (Adapters.CallableTask<T> f : fs) {
      f.waiter = me;
    }
    for (Task<T> f : fs) {
      externalPush(f);
    }
    ManagedBlocker group = new ManagedBlocker() {
      @Override
      public boolean isReleasable() {
        boolean all = true;
        for (Task<T> f : fs) {
          if (!f.isDone()) {
            all = false;
          } else if (any && !f.isCompletedAbnormally()) {
            return true;
          }
        }
        return all || deadline - System.nanoTime() <= 0L;
      }

      @Override
      public boolean block() throws InterruptedException {
        for (int i = 0; i < 64 && !isReleasable(); i++) {
          Thread.onSpinWait(); // a task that just unparked us sets its status a moment later
        }
        if (!isReleasable()) {
          LockSupport.parkNanos(this, Math.min(1_000_000L, Math.max(1L, deadline - System.nanoTime())));
        }
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        return isReleasable();
      }
    };
    managedBlock(group);
    return deadline - System.nanoTime() > 0L || allDone(fs);
  }

  private static boolean allDone(List<? extends Task<?>> fs) {
    for (Task<?> f : fs) {
      if (!f.isDone()) {
        return false;
      }
    }
    return true;
  }

  /** Untimed invokeAny from a worker: joins the tasks in order (joins help: they run at p=1 too). */
  private <T> T invokeAnyHelping(Collection<? extends Callable<T>> tasks)
      throws InterruptedException, ExecutionException {
    List<Adapters.CallableTask<T>> fs = adaptAll(tasks);
    if (fs.isEmpty()) {
      throw new IllegalArgumentException("no tasks");
    }
    try {
      for (Task<T> f : fs) {
        externalPush(f);
      }
      ExecutionException last = null;
      for (Task<T> f : fs) {
        try {
          return f.get();
        } catch (ExecutionException e) {
          last = e;
        } catch (CancellationException e) {
          last = new ExecutionException(e);
        }
      }
      throw last;
    } finally {
      cancelAll(fs);
    }
  }

  private static <T> List<Adapters.CallableTask<T>> adaptAll(Collection<? extends Callable<T>> tasks) {
    List<Adapters.CallableTask<T>> fs = new ArrayList<>(tasks.size());
    for (Callable<T> c : tasks) {
      fs.add(new Adapters.CallableTask<>(Objects.requireNonNull(c, "a task is null")));
    }
    return fs;
  }

  private static void cancelAll(List<? extends Task<?>> fs) {
    for (Task<?> f : fs) {
      f.cancel();
    }
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

  // ---------------------------------------------------------------------------------------------
  // Managed blocking

  /**
   * Code that knows it may block, written as for {@code ForkJoinPool.ManagedBlocker}: {@link
   * #isReleasable} says whether blocking is unnecessary, {@link #block} blocks (possibly
   * returning early) and returns true when no more blocking is needed.
   */
  public interface ManagedBlocker {
    boolean block() throws InterruptedException;

    boolean isReleasable();
  }

  /**
   * Blocks with {@code blocker}; on a worker of a pool, makes up for it first, as {@code
   * ForkJoinPool.managedBlock} does. The worker's latent forks are promoted (so other workers can
   * run them), and while it blocks the pool may run one more worker than its parallelism per
   * blocked worker, up to {@link Builder#maxSpares}. On any other thread it just blocks.
   */
  public static void managedBlock(ManagedBlocker blocker) throws InterruptedException {
    Objects.requireNonNull(blocker, "blocker");
    if (Thread.currentThread() instanceof Worker w) {
      w.pool.compensatedBlock(w, blocker);
    } else {
      do {
        // until released
      } while (!blocker.isReleasable() && !blocker.block());
    }
  }

  private void compensatedBlock(Worker w, ManagedBlocker blocker) throws InterruptedException {
    w.publishAll();
    if (w.pendingCount != 0) {
      w.completePending();
    }
    if (blocker.isReleasable()) {
      return;
    }
    BLOCKED.getAndAdd(this, 1);
    try {
      signalWork(); // wake a sleeper for what we published, or start a spare in our place
      do {
        // until released
      } while (!blocker.isReleasable() && !blocker.block());
    } finally {
      BLOCKED.getAndAdd(this, -1);
    }
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
          LockSupport.unpark(w); // it takes itself off the sleeper count when it wakes
          return;
        }
      }
      c = ctl;
    }
    if (live(c) < targetSize() && runState < STOP) {
      tryStartWorker();
    }
  }

  private static int live(long c) {
    return (int) (c >>> 32);
  }

  /** Workers the pool may run now: parallelism, plus one per worker blocked in managedBlock. */
  private int targetSize() {
    return parallelism + Math.min(blockedWorkers, maxSpares);
  }

  /**
   * Keeps {@link #hungry} counting the vacant slots below parallelism (unstarted workers are
   * hungry: a promotion's signal starts them). Called under the lock after the live count changed.
   */
  private void adjustVacancy(int liveBefore, int liveAfter) {
    int d = Math.max(0, parallelism - liveAfter) - Math.max(0, parallelism - liveBefore);
    if (d != 0) {
      addHungry(d);
    }
  }

  private void tryStartWorker() {
    synchronized (lock) {
      long c = ctl;
      if (live(c) >= targetSize() || runState >= STOP) {
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
        if (ws.length >= targetSize()) {
          return; // a retiring worker still holds its slot: it looks for work once it is gone
        }
        slot = ws.length; // a spare slot for a worker blocked in managedBlock
        ws = Arrays.copyOf(ws, slot + 1);
        WorkerCounters[] cs = Arrays.copyOf(counters, slot + 1);
        cs[slot] = new WorkerCounters();
        counters = cs;
        exitedCpuNanos = Arrays.copyOf(exitedCpuNanos, slot + 1); // under lock
      }
      started.removeIf(t -> !t.isAlive());
      Worker w = new Worker(this, slot, counters[slot], recordStats);
      Worker[] next = ws.clone();
      next[slot] = w;
      workers = next;
      CTL.getAndAdd(this, LIVE_UNIT);
      adjustVacancy(live(c), live(c) + 1); // the new worker looks for work at once
      started.add(w);
      try {
        w.start();
      } catch (Throwable t) { // e.g. OutOfMemoryError: unable to create native thread
        next = workers.clone();
        next[slot] = null;
        workers = next;
        long c2 = (long) CTL.getAndAdd(this, -LIVE_UNIT);
        adjustVacancy(live(c2), live(c2) - 1);
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
      long c = (long) CTL.getAndAdd(this, -LIVE_UNIT - 1L); // one fewer live worker, one fewer sleeper
      adjustVacancy(live(c), live(c) - 1);
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
        long c = (long) CTL.getAndAdd(this, -LIVE_UNIT);
        adjustVacancy(live(c), live(c) - 1);
      }
      if (runState >= STOP && live(ctl) == 0) {
        setTerminated();
      }
    }
    if (failure != null) {
      reportUncaught(failure);
    }
    // Work submitted while our slot was still taken may have found no slot to start a worker in
    // (we had retired, so we were no longer live, but still held the slot): look once more.
    if (runState < STOP && (failure != null || hasVisibleWork())) {
      signalWork();
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
    if ((int) c == live(c) && !hasVisibleWork() && runState == SHUTDOWN) {
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
      if (live(ctl) == 0) {
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
        // A worker blocked outside Tine cannot cancel its own latent forks: take them from it.
        for (Object x; w.latent.mayHaveEntries() && (x = w.latent.claimOldest(w, CANCEL_CLAIMED)) != null; ) {
          ((Task<?>) x).cancelAbandoned();
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

  /** shutdownNow's claims: a task is cancelled as itself; a primitive join's half as a job. */
  private static final dev.tine.latent.LatentStack.Promoter CANCEL_CLAIMED =
      (item, arg, kind) -> kind == dev.tine.latent.LatentStack.KIND_TASK ? item : new Jobs.Job(item, arg, kind);

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
    long nanos = unit.toNanos(timeout);
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    synchronized (lock) {
      if (nanos <= 0L) {
        return runState == TERMINATED; // no deadline arithmetic: Long.MIN_VALUE would overflow
      }
      long deadline = System.nanoTime() + nanos;
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
    return live(ctl);
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
    WorkerCounters[] cs = counters;
    int slots = cs.length;
    long[][] now = new long[slots][WorkerCounters.COUNT];
    for (int i = 0; i < slots; i++) {
      cs[i].read(now[i]);
    }
    long[][] base;
    synchronized (lock) {
      base = statsBaseline;
    }
    ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
    Worker[] ws = workers;
    List<PoolStats.WorkerStats> rows = new ArrayList<>(slots);
    for (int i = 0; i < slots; i++) {
      long[] c = now[i].clone();
      if (base != null && i < base.length) {
        for (int k = 0; k < c.length; k++) {
          c[k] -= base[i][k];
        }
      }
      Worker w = i < ws.length ? ws[i] : null;
      long cpu = -1, blockedN = -1, blockedMs = -1, waitedN = -1, waitedMs = -1;
      String threadName = null;
      if (w != null && w.isAlive()) {
        threadName = w.getName();
        long id = w.threadId();
        if (tmx.isThreadCpuTimeSupported() && tmx.isThreadCpuTimeEnabled()) {
          cpu = tmx.getThreadCpuTime(id);
        }
      }
      long exited = exitedCpu(i);
      if (exited > 0) {
        cpu = Math.max(cpu, 0L) + exited;
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
    WorkerCounters[] cs = counters;
    long[][] now = new long[cs.length][WorkerCounters.COUNT];
    for (int i = 0; i < cs.length; i++) {
      cs[i].read(now[i]);
    }
    synchronized (lock) {
      statsBaseline = now;
    }
  }

  private void recordExitedCpu(Worker w) {
    ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
    if (tmx.isCurrentThreadCpuTimeSupported() && tmx.isThreadCpuTimeEnabled()) {
      long cpu = tmx.getCurrentThreadCpuTime();
      synchronized (lock) {
        exitedCpuNanos[w.index] += cpu;
      }
    }
  }

  private long exitedCpu(int slot) {
    synchronized (lock) {
      return slot < exitedCpuNanos.length ? exitedCpuNanos[slot] : 0L;
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
    private int maxSpares = 256;

    private Builder() {}

    /**
     * How many workers beyond {@code parallelism} may run while workers are blocked in {@link
     * WorkStealingPool#managedBlock} (default 256, the JDK's default for its pools). At the bound a
     * blocked worker blocks without a replacement, and the pool runs with fewer active workers
     * until it returns.
     */
    public Builder maxSpares(int maxSpares) {
      if (maxSpares < 0) {
        throw new IllegalArgumentException("maxSpares must not be negative, was " + maxSpares);
      }
      this.maxSpares = maxSpares;
      return this;
    }

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

  // --- test hooks (jcstress) ---
  // Package-private entry points for the tests in tine-jcstress (package dev.tine); nothing in
  // the runtime calls them, and they change no behaviour.

  /**
   * jcstress only: counts {@code n} more live workers, with the vacancy bookkeeping that {@link
   * #tryStartWorker} does, but starts no thread (the test installs unstarted workers itself).
   */
  void addLiveWorkersForTest(int n) {
    synchronized (lock) {
      long c = (long) CTL.getAndAdd(this, n * LIVE_UNIT);
      adjustVacancy(live(c), live(c) + n);
    }
  }
}

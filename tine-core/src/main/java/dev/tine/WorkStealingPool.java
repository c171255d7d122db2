package dev.tine;

import dev.tine.stats.WorkerCounters;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
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
 * <p>This file is the public API (an {@code ExecutorService} plus {@code invoke}, {@code stats} and
 * {@code managedBlock}), the pool's lifecycle (run state, shutdown, termination) and the wiring of
 * the parts below; its size is those contracts and the builder's. Each protocol lives in its own
 * file:
 *
 * <table>
 *   <caption>Where each part is</caption>
 *   <tr><th>file</th><th>what</th></tr>
 *   <tr><td>{@code deque/WorkDeque}</td><td>each worker's Chase–Lev deque: the owner pushes and
 *       pops at the top (LIFO), thieves take the oldest at the base with one CAS</td></tr>
 *   <tr><td>{@link LatentStack}, {@link LatentClaims}</td><td>each worker's latent forks:
 *       recorded with plain stores, invisible to thieves until promoted; claims by idle workers
 *       while the owner is blocked</td></tr>
 *   <tr><td>{@link Worker}</td><td>the run loop and forking; rules for errors inside the
 *       runtime</td></tr>
 *   <tr><td>{@link Stealing}</td><td>the scan: external queue, random victims, claims</td></tr>
 *   <tr><td>{@link HelpingJoin}</td><td>joins that run own forks, then help the target's
 *       thieves, and block only as a last resort</td></tr>
 *   <tr><td>{@link LatentJoins}</td><td>the join's slow paths for {@link Scope} and {@link
 *       Tine}: the slow fork, promotion (when: the deque is empty, someone is hungry; how many;
 *       oldest first), taking a handed-off half back, the first half throwing, the eager
 *       twins</td></tr>
 *   <tr><td>{@code JoinKinds}, {@code PromotedJob}</td><td>the join shapes' kinds (generated
 *       from one table); a join's half once promoted</td></tr>
 *   <tr><td>{@link Sleep}</td><td>spin, yield, park; wake-ups and why none is lost; retirement</td></tr>
 *   <tr><td>{@link StallWatch}</td><td>one thread per JVM: a spare for a pool whose workers
 *       are all parked while work waits (the per-pool check is there too)</td></tr>
 *   <tr><td>{@link WorkerSlots}</td><td>worker threads: the target size, starting one in a free
 *       slot, a worker's exit</td></tr>
 *   <tr><td>{@link Compensation}</td><td>{@code managedBlock} on a worker: one more worker per
 *       blocked one, up to {@code maxSpares}</td></tr>
 *   <tr><td>{@link ExternalQueue}</td><td>submissions from threads that are not workers</td></tr>
 *   <tr><td>{@link Task}, {@link Tine}, {@link Scope}, {@code Ranges}</td><td>the fork/join APIs</td></tr>
 *   <tr><td>{@link TaskStatus}, {@link TaskWait}</td><td>a task's status word and outcome, and
 *       every rule that writes them (completion CAS, latent rules); blocking until done</td></tr>
 *   <tr><td>{@code InvokeGroup}, {@code Adapters}</td><td>{@code invokeAll}/{@code invokeAny}; callables as tasks</td></tr>
 *   <tr><td>{@code StatsTable}, {@link PoolStats}, {@code stats/WorkerCounters}</td><td>per-worker
 *       counters (plain fields, no shared writes) and their snapshots</td></tr>
 *   <tr><td>{@code PoolEvents}, {@code PoolJfr}, {@code jfr/}</td><td>JDK Flight Recorder events:
 *       periodic samples of every live pool, blocked joins (nothing loaded until JFR starts)</td></tr>
 * </table>
 *
 * <p><b>Queues.</b> Threads that are not workers submit to one lock-free external queue ({@link
 * ExternalQueue}); tasks forked or submitted from a worker go to its own deque (or its latent
 * stack).
 *
 * <p><b>Scheduling.</b> A worker runs its own work first (newest first), then scans: the external
 * queue, then the other deques from a random start (random victims spread thieves; oldest-first
 * steals take the biggest pieces of a divide-and-conquer tree).
 *
 * <p><b>Workers</b> start lazily, when work is signalled and fewer than {@code parallelism} are
 * live ({@link WorkerSlots}), and retire after {@code keepAlive} asleep. Thread creation,
 * retirement and termination take {@link #lock}; nothing on the task path does. A worker that exits
 * looks for visible work once its slot is free, so a submission that found every slot taken by a
 * retiring worker still gets a worker.
 *
 * <p><b>Hunger.</b> {@link #hungry} counts workers looking for work (idle ones, joiners with
 * nothing to help with, unstarted slots). Busy workers read it at forks and joins and promote
 * latent forks while it is non-zero; it is written only when a worker's hunger changes.
 *
 * <p><b>Blocking.</b> {@link #managedBlock} ({@link Compensation}) promotes the caller's latent
 * forks and, while it blocks, lets the pool run one more worker than {@code parallelism} per
 * blocked worker, up to {@code maxSpares}; past the bound it throws {@link
 * RejectedExecutionException}, as the JDK's pool does. Blocking that Tine cannot see (a latch, a
 * queue, a {@code CompletableFuture}) is covered by claims while some worker is idle, and by {@link
 * StallWatch} when none is: it notices a pool whose every worker is parked while their forks wait,
 * and starts a spare that runs only those forks (a pool of p never runs more than p submitted tasks
 * at once unless managedBlock, or a Tine join, says a worker is blocked).
 *
 * <p><b>Shutdown.</b> After {@link #shutdown}, the last worker to fall asleep with every queue
 * empty terminates the pool (every live worker asleep and no queued work means no task can create
 * more). {@link #close} is shutdown plus waiting for every worker thread to end.
 */
public final class WorkStealingPool extends AbstractExecutorService implements AutoCloseable {

  // runState
  private static final int RUNNING = 0, SHUTDOWN = 1, STOP = 2, TERMINATED = 3;

  private static final VarHandle RUN_STATE;
  private static final VarHandle HUNGRY;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      RUN_STATE = l.findVarHandle(WorkStealingPool.class, "runState", int.class);
      HUNGRY = l.findVarHandle(WorkStealingPool.class, "hungry", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static final AtomicInteger POOL_SEQ = new AtomicInteger();

  final String name;
  final String threadNamePrefix;
  final boolean daemon;
  final long keepAliveNanos;
  private final int parallelism;
  private final Thread.UncaughtExceptionHandler handler;
  final boolean recordStats;
  private final boolean common;
  final boolean latentForks;
  final int maxSpares;

  /**
   * Workers looking for work: idle ones, joiners with nothing to help with, and worker slots not
   * started (a promotion's signal starts them). Busy workers read it at each fork (a read-mostly
   * word: written only when a worker's hunger changes, never per task) and promote latent forks
   * while it is non-zero.
   */
  volatile int hungry;

  /**
   * Worker slots; a null slot has no live worker. {@code parallelism} slots, plus spare slots added
   * while workers are blocked in {@link #managedBlock}. Written under {@link #lock}.
   */
  volatile Worker[] workers;

  /**
   * Per-slot counters and exited workers' CPU time, from which {@link #stats()} is taken (and
   * {@link PoolEvents}' samples).
   */
  final StatsTable statsTable;

  /**
   * Workers blocked in managedBlock: each lets the pool run one more worker, up to maxSpares.
   * Written by {@link Compensation} only.
   */
  volatile int blockedWorkers;

  /**
   * Live stall spares ({@link Worker#stallSpare}), started by {@link StallWatch}; they count
   * against maxSpares with the managedBlock blockers. Written under {@link #lock} ({@link
   * WorkerSlots}).
   */
  volatile int stallSparesLive;

  /**
   * Worker threads this pool has started, spares included (for tests). Guarded by {@link #lock}.
   */
  int threadsStarted;

  /** StallWatch's state for this pool (its thread only): a stall seen at the last tick, and how. */
  boolean stallSeen;

  long stallStamp;

  /** Whether StallWatch has reported this pool's spare bound since the last stall cleared. */
  boolean stallBoundReported;

  /**
   * True while a thread that StallWatch started calls the uncaught-exception handler for this pool
   * (set by the watch, cleared by that thread): one at a time, however long a handler blocks. A
   * separate object so that the report thread holds it, and not the pool.
   */
  final java.util.concurrent.atomic.AtomicBoolean stallReporting =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** Stall reports not made because the last report's handler had not returned yet. */
  final java.util.concurrent.atomic.AtomicLong stallReportsDropped =
      new java.util.concurrent.atomic.AtomicLong();

  /** The most worker threads a pool runs, spares included (the JDK's pools have the same cap). */
  static final int MAX_WORKERS = 32767;

  /** Submissions from threads that are not this pool's workers. */
  private final ExternalQueue external = new ExternalQueue();

  /** The sleep protocol and its word: live and sleeping workers. */
  final Sleep sleep;

  private volatile int runState;

  final Object lock = new Object();

  /** Worker threads started and not yet seen dead; close() joins them. Guarded by lock. */
  final List<Worker> started = new ArrayList<>();

  private final ObjectName mxBeanName;

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
    this.maxSpares =
        b.maxSpares < 0
            ? MAX_WORKERS - parallelism
            : Math.min(b.maxSpares, MAX_WORKERS - parallelism);
    this.hungry = parallelism; // every slot is unstarted, hence hungry
    this.workers = new Worker[parallelism];
    this.statsTable = new StatsTable(parallelism);
    this.sleep = new Sleep(this, parallelism);
    if (b.threadContentionMonitoring) {
      ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
      if (tmx.isThreadContentionMonitoringSupported()) {
        tmx.setThreadContentionMonitoringEnabled(true);
      }
    }
    this.mxBeanName = b.registerMXBean ? PoolMXBeanImpl.register(this) : null;
    PoolEvents.register(this); // JFR samples; forgotten at termination
  }

  /**
   * A pool with the builder's defaults: parallelism = available processors, daemon workers, latent
   * forks. The same as {@code new ForkJoinPool()}, for code ported by renaming; {@link #builder()}
   * sets the rest.
   */
  public WorkStealingPool() {
    this(new Builder(), false);
  }

  /**
   * A pool of {@code parallelism} workers with the builder's other defaults: the same as {@code new
   * ForkJoinPool(parallelism)}, for code ported by renaming.
   *
   * @param parallelism the number of workers, 1 to 32,767
   * @throws IllegalArgumentException if {@code parallelism} is out of that range (as the JDK's)
   */
  public WorkStealingPool(int parallelism) {
    this(new Builder().parallelism(parallelism), false);
  }

  /** {@return a builder with the defaults: parallelism = available processors, daemon workers} */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The shared pool used by {@link Task#fork()} and {@link Task#invoke()} outside any pool. Its
   * parallelism is the number of available processors; shutdown and close do nothing to it.
   *
   * @return the common pool
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
   * place. Exceptions are reported as by {@link Task#join()}, except a checked exception thrown
   * sneakily, which arrives as the cause of a {@link RuntimeException}: what the JDK's {@code
   * ForkJoinPool.invoke} does (its {@code join} and {@code Task.invoke} rethrow it as itself, as
   * Tine's do).
   *
   * @param <V> the task's result type
   * @param task the task
   * @return its result
   */
  public <V> V invoke(Task<V> task) {
    try {
      return invokeTask(task);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) { // a checked exception thrown sneakily
      throw new RuntimeException(e);
    }
  }

  /** {@link #invoke(Task)} without its wrapping: for joins that enter the common pool. */
  <V> V invokeTask(Task<V> task) {
    Objects.requireNonNull(task, "task");
    if (Thread.currentThread() instanceof Worker w && w.pool == this) {
      return task.invoke();
    }
    externalPush(task);
    return task.join();
  }

  /**
   * Runs scope-passing code in this pool and returns its result: {@code body} gets the scope of the
   * worker that runs it (see {@link Scope}). From a worker of this pool, runs it in place.
   * Exceptions are reported as by {@link Task#join()}.
   *
   * <pre>{@code long r = pool.invoke(s -> fib(s, 40));}</pre>
   *
   * @param <R> the result type
   * @param body the code, given the worker's scope
   * @return what {@code body} returned
   */
  public <R> R invoke(Function<Scope, ? extends R> body) {
    Objects.requireNonNull(body, "body");
    return invokeTask(Task.of(() -> body.apply(((Worker) Thread.currentThread()).scope)));
  }

  /**
   * Schedules a task for asynchronous execution and returns it (it is its own Future).
   *
   * @param <V> the task's result type
   * @param task the task
   * @return {@code task}
   */
  public <V> Task<V> submit(Task<V> task) {
    Objects.requireNonNull(task, "task");
    externalPush(task);
    return task;
  }

  /**
   * Schedules a task for asynchronous execution, as {@code ForkJoinPool.execute(ForkJoinTask)}: its
   * outcome, an exception included, stays in the task, for whoever joins or gets it.
   *
   * @param task the task
   */
  public void execute(Task<?> task) {
    Objects.requireNonNull(task, "task");
    externalPush(task);
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
  public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks)
      throws InterruptedException {
    return InvokeGroup.invokeAll(this, tasks, 0L);
  }

  /** As {@link #invokeAll(Collection)}; tasks not done at the timeout are cancelled. */
  @Override
  public <T> List<Future<T>> invokeAll(
      Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    return InvokeGroup.invokeAll(this, tasks, deadline == 0L ? 1L : deadline);
  }

  /**
   * Returns the result of one task that completed normally; the others are cancelled, and those
   * running are interrupted, as the JDK's pool does (the interrupt never outlives the loser's run).
   * From a worker of this pool the caller waits as in {@link #managedBlock}, so the candidates run
   * even at parallelism 1.
   */
  @Override
  public <T> T invokeAny(Collection<? extends Callable<T>> tasks)
      throws InterruptedException, ExecutionException {
    try {
      return InvokeGroup.invokeAny(this, tasks, 0L);
    } catch (TimeoutException e) {
      throw new AssertionError(e); // no deadline
    }
  }

  /** As {@link #invokeAny(Collection)}, giving up at the timeout. */
  @Override
  public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    return InvokeGroup.invokeAny(this, tasks, deadline == 0L ? 1L : deadline);
  }

  /** From a worker of this pool: push on its deque; otherwise the external queue. */
  void externalPush(Task<?> task) {
    if (Thread.currentThread() instanceof Worker w && w.pool == this) {
      // A running task's own submission goes to its deque as a fork does, and is accepted after
      // shutdown() as forks are (the JDK's pool does the same): the worker is awake, so the pool
      // cannot terminate before the task runs. After shutdownNow() nothing is accepted.
      if (runState >= STOP) {
        throw new RejectedExecutionException(
            "pool " + name + " is " + stateName() + ": it accepts no new tasks");
      }
      w.push(task);
      return;
    }
    if (runState != RUNNING) {
      throw new RejectedExecutionException(
          "pool " + name + " is " + stateName() + ": it accepts no new tasks");
    }
    external.offer(task); // CAS: a volatile write, ordered before the ctl read in signalWork
    sleep.signalWork();
    if (runState >= STOP && external.remove(task)) {
      throw new RejectedExecutionException("pool " + name + " stopped during submission");
    }
  }

  /** The oldest external submission, for {@link StallWatch}'s stamp (a racy read). */
  Task<?> externalHead() {
    return external.peek();
  }

  Task<?> pollExternal() {
    return external.poll();
  }

  /** Removes {@code task} from the external queue if it is there (by identity); true if removed. */
  boolean removeExternal(Task<?> task) {
    return external.remove(task);
  }

  // ---------------------------------------------------------------------------------------------
  // Managed blocking

  /**
   * Code that knows it may block, written as for {@code ForkJoinPool.ManagedBlocker}: {@link
   * #isReleasable} says whether blocking is unnecessary, {@link #block} blocks (possibly returning
   * early) and returns true when no more blocking is needed.
   */
  public interface ManagedBlocker {
    /**
     * Blocks, possibly returning early.
     *
     * @return true when no more blocking is needed
     * @throws InterruptedException if interrupted while blocking
     */
    boolean block() throws InterruptedException;

    /** {@return true if blocking is unnecessary now} */
    boolean isReleasable();
  }

  /**
   * Blocks with {@code blocker}; on a worker of a pool, makes up for it first, as {@code
   * ForkJoinPool.managedBlock} does. The worker's latent forks are promoted (so other workers can
   * run them), and while it blocks the pool may run one more worker than its parallelism per
   * blocked worker, up to {@link Builder#maxSpares}. On any other thread it just blocks.
   *
   * @param blocker the blocking code
   * @throws InterruptedException if {@code blocker} was interrupted
   * @throws RejectedExecutionException if the pool would need a spare worker beyond {@link
   *     Builder#maxSpares} (and no worker is idle): as the JDK's pool, it fails rather than block
   *     with nobody left to run the work the blocker may wait for
   */
  public static void managedBlock(ManagedBlocker blocker) throws InterruptedException {
    Objects.requireNonNull(blocker, "blocker");
    if (Thread.currentThread() instanceof Worker w) {
      Compensation.block(w, blocker);
    } else {
      do {
        // until released
      } while (!blocker.isReleasable() && !blocker.block());
    }
  }

  void reportUncaught(Throwable ex) {
    reportUncaught(handler, name, ex);
  }

  /** The handler given to the builder, or null (the default handler is looked up per report). */
  Thread.UncaughtExceptionHandler handler() {
    return handler;
  }

  /** The pool's handler (or else the default) hears of {@code ex}; no reference to the pool. */
  static void reportUncaught(Thread.UncaughtExceptionHandler handler, String name, Throwable ex) {
    Thread t = Thread.currentThread();
    Thread.UncaughtExceptionHandler h = handler;
    if (h == null) {
      h = Thread.getDefaultUncaughtExceptionHandler();
    }
    if (h != null) {
      h.uncaughtException(t, ex);
    } else {
      // What the JVM prints for an uncaught exception, naming the pool: this is a task run by
      // execute(), a worker that failed, or a stall past the spare bound.
      System.err.print("Exception in thread \"" + t.getName() + "\" (pool " + name + "): ");
      ex.printStackTrace();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Work and workers (starting and ending worker threads is WorkerSlots', sleeping is Sleep's)

  /**
   * Workers in {@code helpQuiesce} that found nothing to run and only watch for work: they count as
   * idle for {@link #isQuiescent()} (Quiescence), and leave the count before they take a task.
   */
  final AtomicInteger idleQuiescers = new AtomicInteger();

  void addHungry(int delta) {
    HUNGRY.getAndAdd(this, delta);
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
    long c = sleep.ctl();
    if (Sleep.sleepers(c) == Sleep.live(c) && !hasVisibleWork() && runState == SHUTDOWN) {
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
      if (Sleep.live(sleep.ctl()) == 0) {
        setTerminated();
      }
    }
  }

  void setTerminated() {
    synchronized (lock) {
      if (runState == TERMINATED) {
        return;
      }
      runState = TERMINATED;
      lock.notifyAll();
    }
    PoolMXBeanImpl.unregister(mxBeanName);
    PoolEvents.terminated(this);
    StallWatch.forget(this);
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  /**
   * Stops accepting new tasks from outside the pool. Tasks already submitted, the tasks they fork,
   * and the tasks they submit to this pool themselves (as on the JDK's pool) still run; the workers
   * end once the pool is quiescent. Does nothing to the common pool.
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
   * Stops accepting tasks, cancels every queued task, interrupts the workers, and returns the tasks
   * that were submitted with {@code submit}/{@code execute} and never started. Does nothing to the
   * common pool.
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
        for (Object x;
            w.latent.mayHaveEntries()
                && (x = w.latent.claimOldest(w, PromotedJob.PROMOTER)) != null; ) {
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
   * Shuts down, waits for submitted work to finish, and waits until every worker thread has ended.
   * Afterwards submissions throw {@link RejectedExecutionException}. If interrupted while waiting,
   * cancels the remaining work ({@link #shutdownNow}) and keeps waiting, then restores the
   * interrupt. Does nothing to the common pool.
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

  /** {@return whether forks are latent (the default) rather than eager} */
  public boolean latentForks() {
    return latentForks;
  }

  /** {@return the configured number of workers} */
  public int parallelism() {
    return parallelism;
  }

  /** {@return this pool's name (used in thread names and the MXBean's ObjectName)} */
  public String name() {
    return name;
  }

  /** {@return workers currently started (they start on demand and retire after the keep-alive)} */
  public int poolSize() {
    return Sleep.live(sleep.ctl());
  }

  /** {@return workers currently asleep} */
  public int sleepingWorkers() {
    return Sleep.sleepers(sleep.ctl());
  }

  /**
   * {@return tasks waiting in the external queue and the worker deques (approximate while running)}
   */
  public long queuedTasks() {
    long n = external.size();
    for (Worker w : workers) {
      if (w != null) {
        n += w.deque.size();
      }
    }
    return n;
  }

  // ---------------------------------------------------------------------------------------------
  // ForkJoinPool's names, for code ported by renaming (WorkStealingPoolPortingTest checks each
  // against the JDK's pool)

  /**
   * {@return the configured number of workers, as {@code ForkJoinPool.getParallelism}}
   *
   * @see #parallelism()
   */
  public int getParallelism() {
    return parallelism;
  }

  /** {@return the common pool's parallelism, as {@code ForkJoinPool.getCommonPoolParallelism}} */
  public static int getCommonPoolParallelism() {
    return commonPool().parallelism;
  }

  /**
   * {@return workers started and not yet retired, as {@code ForkJoinPool.getPoolSize}}
   *
   * @see #poolSize()
   */
  public int getPoolSize() {
    return poolSize();
  }

  /**
   * {@return an estimate of the workers running or looking for tasks (those not asleep), as {@code
   * ForkJoinPool.getActiveThreadCount}}
   */
  public int getActiveThreadCount() {
    long c = sleep.ctl();
    return Math.max(0, Sleep.live(c) - Sleep.sleepers(c));
  }

  /**
   * {@return an estimate of the workers running or looking for tasks, as {@code
   * ForkJoinPool.getRunningThreadCount}: awake, not parked in a join or in {@code managedBlock},
   * and not blocked or waiting in anything else (a lock, a latch, a sleep) at the moment of
   * reading}
   */
  public int getRunningThreadCount() {
    int n = 0;
    for (Worker w : workers) {
      if (w != null
          && w.sleepState == Sleep.AWAKE
          && !w.joinParked
          && !w.managedBlocking
          && w.getState() == Thread.State.RUNNABLE) {
        n++;
      }
    }
    return n;
  }

  /**
   * {@return the tasks taken from another worker's deque since the pool was built, as {@code
   * ForkJoinPool.getStealCount}: 0 if the builder turned {@code recordStats} off. Not affected by
   * {@link #resetStats()}}
   */
  public long getStealCount() {
    return statsTable.total(WorkerCounters.STEALS, workers);
  }

  /**
   * {@return an estimate of the tasks in the workers' deques (not the external queue, and not the
   * latent forks, which no other thread can take), as {@code ForkJoinPool.getQueuedTaskCount}}
   */
  public long getQueuedTaskCount() {
    long n = 0;
    for (Worker w : workers) {
      if (w != null) {
        n += w.deque.size();
      }
    }
    return n;
  }

  /**
   * {@return an estimate of the submissions from outside the pool not yet taken by a worker, as
   * {@code ForkJoinPool.getQueuedSubmissionCount}}
   */
  public int getQueuedSubmissionCount() {
    return external.size();
  }

  /**
   * {@return whether a submission from outside waits, as {@code ForkJoinPool.hasQueuedSubmissions}}
   */
  public boolean hasQueuedSubmissions() {
    return external.size() > 0;
  }

  /**
   * {@return true if every worker is idle: none runs a task and no task is queued, as {@code
   * ForkJoinPool.isQuiescent}} A worker counts as idle once it is asleep, a fraction of a
   * millisecond after it ran out of work.
   */
  public boolean isQuiescent() {
    return Quiescence.isQuiescent(this);
  }

  /**
   * Waits until the pool is quiescent ({@link #isQuiescent()}) or the timeout passes, as {@code
   * ForkJoinPool.awaitQuiescence}: for programs that fork tasks and never join them. From a worker
   * of this pool it runs tasks meanwhile, as {@link Task#helpQuiesce()}; from any other thread it
   * waits.
   *
   * @param timeout the most to wait
   * @param unit the timeout's unit
   * @return true if the pool is quiescent, false if the timeout passed first
   */
  public boolean awaitQuiescence(long timeout, TimeUnit unit) {
    if (Thread.currentThread() instanceof Worker w && w.pool == this) {
      return Quiescence.helpQuiesce(w, Math.max(1L, unit.toNanos(timeout)));
    }
    return Quiescence.await(this, unit.toNanos(timeout));
  }

  /**
   * {@return true once the pool stops (after {@link #shutdownNow()}, or after {@link #shutdown()}
   * when its work is done) and until it has terminated, as {@code ForkJoinPool.isTerminating}}
   */
  public boolean isTerminating() {
    return isStopping() && !isTerminated();
  }

  /**
   * An immutable snapshot of the counters, totals and per worker, since the pool was built or the
   * last {@link #resetStats()}, with each live worker's CPU time and BLOCKED/WAITING figures from
   * {@link java.lang.management.ThreadMXBean}.
   *
   * @return the snapshot
   */
  public PoolStats stats() {
    return statsTable.snapshot(this, workers);
  }

  /** Makes the next {@link #stats()} count from now. */
  public void resetStats() {
    statsTable.reset(workers);
  }

  @Override
  public String toString() {
    return "WorkStealingPool["
        + name
        + ", parallelism="
        + parallelism
        + ", size="
        + poolSize()
        + ", sleeping="
        + sleepingWorkers()
        + ", hungry="
        + hungry
        + ", queued="
        + queuedTasks()
        + ", "
        + stateName()
        + "]";
  }

  // ---------------------------------------------------------------------------------------------
  // JMX

  /** {@return the ObjectName this pool's MXBean is registered under, or null} */
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
    private int maxSpares = -1; // MAX_WORKERS - parallelism

    private Builder() {}

    /**
     * How many workers beyond {@code parallelism} may run while workers are blocked: one bound for
     * the spares of {@link WorkStealingPool#managedBlock} and the stall watch's spares (for waits
     * Tine cannot see, when every worker is parked) together, as the JDK's maximum pool size bounds
     * all its compensating threads. Default: as many as keep the pool at most 32767 threads, the
     * cap of {@code new ForkJoinPool(p)} (the JDK's common pool alone uses 256). At the bound
     * {@code managedBlock} throws {@link RejectedExecutionException} unless a worker is idle, as
     * the JDK's pool does, and a pool stalled in waits Tine cannot see reports one to the
     * uncaught-exception handler (on a thread of its own): it never wedges silently.
     *
     * @param maxSpares the most extra workers at once, at least 0
     * @return this builder
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
     * JDK's ForkJoinPool does. Default false: forks are latent (recorded privately, run by a direct
     * call when joined, promoted to the deque only when the worker's deque is empty or some worker
     * is hungry).
     *
     * @param eager true for JDK-style eager forks
     * @return this builder
     */
    public Builder eagerForks(boolean eager) {
      this.eagerForks = eager;
      return this;
    }

    /**
     * Number of worker threads (default: available processors).
     *
     * @param parallelism number of worker threads (default: available processors)
     * @return this builder
     */
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

    /**
     * The pool's name, for its MXBean and (by default) its thread names.
     *
     * @param name the pool's name
     * @return this builder
     */
    public Builder name(String name) {
      this.name = requireText(name, "name");
      return this;
    }

    /**
     * Worker thread names are this prefix followed by the worker index.
     *
     * @param prefix worker thread names are this prefix followed by the worker index
     * @return this builder
     */
    public Builder threadNamePrefix(String prefix) {
      this.threadNamePrefix = requireText(prefix, "threadNamePrefix");
      return this;
    }

    /**
     * Whether workers are daemon threads (default true, as in the JDK's ForkJoinPool).
     *
     * @param daemon whether workers are daemon threads (default true, as in the JDK's ForkJoinPool)
     * @return this builder
     */
    public Builder daemon(boolean daemon) {
      this.daemon = daemon;
      return this;
    }

    /**
     * Receives exceptions from tasks run by {@code execute()} and from failed workers.
     *
     * @param handler receives exceptions from tasks run by {@code execute()} and from failed
     *     workers
     * @return this builder
     */
    public Builder uncaughtExceptionHandler(Thread.UncaughtExceptionHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /**
     * How long an idle worker sleeps before its thread ends (default 60 s).
     *
     * @param keepAlive how long an idle worker sleeps before its thread ends (default 60 s)
     * @return this builder
     */
    public Builder keepAlive(Duration keepAlive) {
      Objects.requireNonNull(keepAlive, "keepAlive");
      if (keepAlive.isNegative() || keepAlive.isZero()) {
        throw new IllegalArgumentException("keepAlive must be positive, was " + keepAlive);
      }
      this.keepAlive =
          keepAlive.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365) : keepAlive;
      return this;
    }

    /**
     * Whether workers count events for {@link #stats()} (default true; off to measure its cost).
     *
     * @param recordStats whether workers count events for {@link #stats()} (default true; off to
     *     measure its cost)
     * @return this builder
     */
    public Builder recordStats(boolean recordStats) {
      this.recordStats = recordStats;
      return this;
    }

    /**
     * Whether to register an MXBean {@code dev.tine:type=WorkStealingPool,name=...} (default true).
     *
     * @param register whether to register an MXBean {@code dev.tine:type=WorkStealingPool,name=...}
     *     (default true)
     * @return this builder
     */
    public Builder registerMXBean(boolean register) {
      this.registerMXBean = register;
      return this;
    }

    /**
     * Enables the JVM's thread contention monitoring (a JVM-wide switch), so that {@link PoolStats}
     * has BLOCKED and WAITING times, not only counts (default false).
     *
     * @param enable true to switch contention monitoring on
     * @return this builder
     */
    public Builder threadContentionMonitoring(boolean enable) {
      this.threadContentionMonitoring = enable;
      return this;
    }

    /** {@return a new pool with this builder's settings (workers start on demand)} */
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
   * WorkerSlots#tryStart} does, but starts no thread (the test installs unstarted workers itself).
   */
  void addLiveWorkersForTest(int n) {
    synchronized (lock) {
      long c = sleep.addLive(n, 0);
      WorkerSlots.adjustVacancy(this, Sleep.live(c), Sleep.live(c) + n);
      // No thread stands behind these workers and their count never returns to 0: the stall watch
      // must not hold the pool (jcstress makes millions of such pools: it ran out of heap).
      StallWatch.forget(this);
    }
  }
}

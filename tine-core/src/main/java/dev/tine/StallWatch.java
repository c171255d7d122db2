package dev.tine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;

/**
 * The progress guarantee for waits Tine cannot see: one daemon thread for the whole JVM that looks
 * at every pool with live workers once per {@link #TICK_NANOS} and starts a spare worker in a pool
 * that is stalled (Go's {@code sysmon} plays this part for goroutines blocked in system calls).
 *
 * <p><b>Why a monitor.</b> A task that forks and then waits in {@code CompletableFuture.join()},
 * {@code BlockingQueue.take()} or a latch parks its worker where the pool cannot see it. On the
 * JDK's pool some of those waits call {@code ForkJoinPool.managedBlock} themselves when the caller
 * is a {@code ForkJoinWorkerThread}, so the pool compensates; Tine's workers are not such threads,
 * so nothing tells the pool. Idle workers cover the case where some worker is free (they steal, and
 * claim a parked owner's latent forks), but when every worker is parked nobody is left to notice:
 * only a thread outside the pool can.
 *
 * <p><b>What a spare may run.</b> A pool of p runs at most p submitted tasks at once, as the JDK's
 * does, unless managedBlock says a worker is blocked. So the watch's spare ({@link
 * Worker#stallSpare}) runs only the work a parked worker may be waiting for: that worker's own
 * unstarted forks, from its deque or its latent stack, and what they fork; never a submission from
 * the external queue, never a running or sleeping worker's task; and it exits as soon as it finds
 * none. One exception, the JDK's own: while every other awake worker waits where the JDK's pool
 * compensates ({@link #allCompensated}: a {@code CompletableFuture} wait, a {@code Condition} await
 * such as a queue's {@code take} or {@code poll(t)}, a Tine join that found nothing to help with,
 * managedBlock), the spare may run anything (a steal, a submission), as the JDK's compensating
 * thread does; a submission that waits for a later one completes. A worker counts as possibly
 * waiting for its forks ({@link #mayWaitForForks}) when it waits on a condition: WAITING, BLOCKED,
 * in a timed park that names a blocker ({@code cf.get(t)}, {@code poll(t)}), or in a Tine join that
 * found nothing to help with. A sleep ({@code Thread.sleep}, a timed {@code Object.wait}:
 * TIMED_WAITING with no park blocker) ends by itself: its forks wait for it, as on the JDK, which
 * starts none of them, and a sleeping worker or spare is progress, as a running one is, so the pool
 * is not stalled while one sleeps (the JDK's {@code tryCompensate} adds no thread while another
 * worker is active). So a spare that sleeps in a fork, or holds a semaphore while it sleeps, gets
 * no second spare beside it.
 *
 * <p><b>Guarantee.</b> If every live worker of a pool is parked while some worker parked on a
 * condition has unstarted forks a spare could take, and no queue moves for a whole tick, a spare
 * starts within two ticks of the watch's first look at the stall (a look comes every {@link
 * #TICK_NANOS} while some worker is parked, at most {@link #BUSY_TICK_NANOS} after the first one
 * parks, {@link #IDLE_TICK_NANOS} after a fully idle spell); one more per confirmed stall while it
 * lasts, up to {@link WorkStealingPool.Builder#maxSpares} (which counts the managedBlock spares
 * too), and at the bound the pool's uncaught-exception handler gets a {@link
 * RejectedExecutionException} instead of the pool wedging silently ({@link #check}).
 *
 * <p><b>Robust.</b> The watch calls no user code: the handler is called on a thread of its own
 * ({@link #reportOffThread}), never under a pool's lock, one at a time per pool, so a handler that
 * blocks or throws delays no other pool's spare and no {@code shutdownNow}. A tick that throws
 * anything is survived (the next tick tries again), and a watch thread that ends anyway is
 * replaced: the static field never points at a dead thread.
 *
 * <p><b>Cost when nothing blocks.</b> Nothing on the task path: no task, fork or join writes
 * anything for the watch. The watch itself wakes once per tick while some pool has live workers and
 * reads, per pool, the sleep word and each worker's thread state (stopping at the first running
 * one); it exits when no pool has live workers, and the next pool to start a worker starts it
 * again.
 */
final class StallWatch implements Runnable {
  /**
   * The pause after a look that found every awake worker of a pool parked: a stall is acted on at
   * its second sighting.
   */
  static final long TICK_NANOS = 10_000_000L;

  /** The longest pause while some worker of every pool is running (or the pool is idle). */
  static final long BUSY_TICK_NANOS = 80_000_000L;

  /** The longest pause while every watched pool's workers are all asleep. */
  static final long IDLE_TICK_NANOS = 160_000_000L;

  /** What a pool's check saw, in increasing need of attention. */
  static final int IDLE = 0, NONE_PARKED = 1, SOME_PARKED = 2, ALL_PARKED = 3;

  private static final Set<WorkStealingPool> POOLS = ConcurrentHashMap.newKeySet();

  private static final Object LOCK = new Object();

  /** The watch thread, or null when none runs. Guarded by LOCK; never a thread that has ended. */
  private static Thread thread;

  /** Tests only: run at the start of each tick, to plant a failure inside the watch. */
  static volatile Runnable faultForTest;

  private StallWatch() {}

  /** A pool now has live workers: watch it (starts the watch thread if none runs). */
  static void watch(WorkStealingPool pool) {
    POOLS.add(pool);
    ensureRunning();
  }

  /** Starts a watch thread unless one runs (one that ended is replaced). */
  private static void ensureRunning() {
    synchronized (LOCK) {
      if (thread == null || !thread.isAlive()) {
        Thread t = new Thread(null, new StallWatch(), "tine-stall-watch", 0L, false);
        t.setDaemon(true);
        thread = t;
        try {
          t.start();
        } catch (Throwable e) { // no thread (OutOfMemoryError): the next watch() tries again
          thread = null;
        }
      }
    }
  }

  /** A pool has no live workers left, or terminated: stop watching it. */
  static void forget(WorkStealingPool pool) {
    POOLS.remove(pool);
  }

  /** True while the watch thread runs (for tests). */
  static boolean running() {
    synchronized (LOCK) {
      return thread != null && thread.isAlive();
    }
  }

  /** The watch thread, or null (for tests). */
  static Thread threadForTest() {
    synchronized (LOCK) {
      return thread;
    }
  }

  @Override
  public void run() {
    boolean done = false;
    try {
      done = watchUntilNoPool();
    } finally {
      synchronized (LOCK) {
        if (thread == Thread.currentThread()) {
          thread = null;
        }
      }
      if (!done && !POOLS.isEmpty()) {
        ensureRunning(); // this one is ending abnormally: a dead watch is replaced
      }
    }
  }

  /** The watch's loop; returns true once no pool has live workers. */
  private static boolean watchUntilNoPool() {
    long tick = TICK_NANOS;
    for (; ; ) {
      try {
        LockSupport.parkNanos(StallWatch.class, tick);
        Thread.interrupted(); // an interrupt is no request to stop: else every park returns at once
        if (POOLS.isEmpty()) {
          synchronized (LOCK) {
            if (POOLS.isEmpty()) {
              thread = null; // a later watch() starts a new one
              return true;
            }
          }
        }
        Runnable fault = faultForTest;
        if (fault != null) {
          fault.run();
        }
        int seen = IDLE;
        for (WorkStealingPool p : POOLS) {
          try {
            seen = Math.max(seen, check(p));
          } catch (Throwable e) { // OutOfMemoryError starting a spare, say: try again next tick
            seen = ALL_PARKED;
          }
        }
        // Look again soon only to confirm a possible stall (every awake worker of a pool parked).
        tick =
            seen == ALL_PARKED
                ? TICK_NANOS
                : Math.min(tick * 2, seen == IDLE ? IDLE_TICK_NANOS : BUSY_TICK_NANOS);
      } catch (Throwable e) { // anything at all (a StackOverflowError): the next tick goes on
        tick = TICK_NANOS;
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // One pool's check (the watch thread only: it alone writes the pool's stall fields)

  /**
   * Called at each tick for each watched pool. A pool is stalled when it has live workers, none of
   * them idle, running or sleeping, and some worker parked on a condition ({@link
   * #mayWaitForForks}) has unstarted forks a spare could take (in its deque, or latent forks it can
   * claim), or every worker waits where the JDK compensates while work is visible. A stall seen at
   * two ticks in a row with no queue moving in between gets one worker: a sleeper woken, or a
   * worker started in a slot below parallelism (either may run anything: they are within p), or
   * else a stall spare, which runs only such forks. If the spare parks too, the next confirmed
   * stall adds another, up to maxSpares; at the bound, the handler hears of it once per stall, on a
   * thread of its own. A sleeper is woken rather than counted as proof that the pool moves: it may
   * have gone to sleep before the parked owners forked, and then it parks with no deadline, since
   * latent forks never signal.
   *
   * @return what the watch saw ({@link #IDLE}, {@link #NONE_PARKED}, {@link #SOME_PARKED} or {@link
   *     #ALL_PARKED}), for its next pause
   */
  static int check(WorkStealingPool p) {
    if (p.isStopping()) {
      return IDLE;
    }
    long c = p.sleep.ctl();
    int live = Sleep.live(c);
    int parked = live == 0 || Sleep.sleepers(c) == live ? IDLE : parkedWorkers(p);
    if (parked != ALL_PARKED || !forksWaiting(p)) {
      p.stallSeen = false;
      p.stallBoundReported = false;
      return parked;
    }
    long stamp = workStamp(p);
    if (!p.stallSeen || stamp != p.stallStamp) {
      p.stallSeen = true; // confirm at the next tick: a stall freezes every queue
      p.stallStamp = stamp;
      return parked;
    }
    p.stallSeen = false;
    if (Sleep.sleepers(c) != 0 || live - p.stallSparesLive < p.parallelism()) {
      // A sleeper that went to sleep before the parked owners forked parks without a deadline:
      // latent forks never signal. Wake it; it claims them (found by the differential fuzzer:
      // fork, wait in cf.join so a spare starts, then fork and wait in a queue at p=1). A slot
      // below parallelism gets an ordinary worker the same way.
      p.sleep.signalWork();
      return parked;
    }
    int r = WorkerSlots.tryStartStallSpare(p);
    if (r == WorkerSlots.SPARE_AT_BOUND && !p.stallBoundReported) {
      p.stallBoundReported = true;
      reportOffThread(
          p,
          new RejectedExecutionException(
              "pool "
                  + p.name()
                  + " is stalled: all "
                  + live
                  + " workers are blocked while their forks wait, and no spare worker may start"
                  + " (maxSpares is "
                  + p.maxSpares
                  + ")"));
    }
    return parked;
  }

  /**
   * Hands {@code ex} to the pool's uncaught-exception handler on a new daemon thread: the watch
   * never runs user code itself, so a handler that blocks or throws (a StackOverflowError) stops
   * neither the watch nor another pool's spare. One such thread per pool at a time; a report due
   * while the last one's handler runs is dropped and counted ({@code stallReportsDropped}). The
   * thread holds the handler, the pool's name and its flag, not the pool: a handler that never
   * returns keeps one daemon thread alive (a JDK worker whose handler blocks is stuck the same
   * way), not the closed pool.
   */
  static void reportOffThread(WorkStealingPool p, Throwable ex) {
    java.util.concurrent.atomic.AtomicBoolean reporting = p.stallReporting;
    if (!reporting.compareAndSet(false, true)) {
      p.stallReportsDropped.incrementAndGet(); // the last report's handler has not returned yet
      return;
    }
    Thread.UncaughtExceptionHandler handler = p.handler();
    String name = p.name();
    Thread t =
        new Thread(
            null,
            () -> {
              try {
                WorkStealingPool.reportUncaught(handler, name, ex);
              } catch (Throwable e) { // the handler's own failure: nobody else to tell
              } finally {
                reporting.set(false);
              }
            },
            "tine-stall-report-" + name,
            0L,
            false);
    t.setDaemon(true);
    try {
      t.start();
    } catch (Throwable e) { // no thread (OutOfMemoryError): the next stall tries again
      reporting.set(false);
    }
  }

  /**
   * Whether {@code v} may be waiting for its own unstarted forks (a racy snapshot): it waits on a
   * condition (WAITING; BLOCKED on a monitor; TIMED_WAITING in a park that names its blocker, as
   * every {@code java.util.concurrent} timed wait does) or in a Tine join that found nothing to
   * help with. Not a sleep: {@code Thread.sleep} and a timed {@code Object.wait} are TIMED_WAITING
   * with no park blocker and end by themselves; forks behind them wait, as on the JDK.
   */
  static boolean mayWaitForForks(Worker v) {
    if (v.joinParked) {
      return true;
    }
    Thread.State s = v.getState();
    return s == Thread.State.WAITING
        || s == Thread.State.BLOCKED
        || s == Thread.State.TIMED_WAITING && LockSupport.getBlocker(v) != null;
  }

  /**
   * Whether the awake workers are parked (a racy snapshot): in a wait outside Tine, in
   * managedBlock, or in a join that cannot help ({@link #ALL_PARKED}), some of them ({@link
   * #SOME_PARKED}), or none ({@link #NONE_PARKED}). Idle workers are not counted here. A worker in
   * a sleep ({@link #SLEEP}) makes progress as a running one does: its sleep ends by itself, and a
   * worker blocked on something it holds waits for it, not for a spare.
   */
  private static int parkedWorkers(WorkStealingPool p) {
    boolean parked = false, running = false;
    for (Worker v : p.workers) {
      if (v == null || v.sleepState != Sleep.AWAKE) {
        continue;
      }
      int k = waitKind(v);
      if (k == RUNNING || k == SLEEP) {
        running = true;
      } else {
        parked = true;
      }
    }
    return !parked ? NONE_PARKED : running ? SOME_PARKED : ALL_PARKED;
  }

  /** What a worker does, as {@link #waitKind} sees it. */
  static final int RUNNING = 0, SLEEP = 1, COMPENSATED = 2, OTHER_WAIT = 3;

  /**
   * What {@code v} does now (a racy snapshot): {@link #RUNNING}; {@link #SLEEP}, a timed wait that
   * names no blocker ({@code Thread.sleep}, a timed {@code Object.wait}), which ends by itself;
   * {@link #COMPENSATED}, a wait the JDK's pool compensates for with a thread that may run anything
   * (managedBlock, a Tine join with nothing to help, a {@code CompletableFuture} wait, a {@code
   * Condition} await such as {@code take} or {@code poll(t)} of a {@code java.util.concurrent}
   * queue: the JDK routes these through {@code ForkJoinPool.managedBlock}); or {@link #OTHER_WAIT},
   * a wait the JDK does not compensate for (a semaphore, a latch, a lock, a monitor).
   */
  static int waitKind(Worker v) {
    if (v.joinParked || v.managedBlocking) {
      return COMPENSATED;
    }
    Thread.State s = v.getState();
    if (s == Thread.State.RUNNABLE || s == Thread.State.NEW || s == Thread.State.TERMINATED) {
      return RUNNING;
    }
    if (s == Thread.State.BLOCKED) {
      return OTHER_WAIT;
    }
    Object blocker = LockSupport.getBlocker(v);
    if (blocker == null) {
      return s == Thread.State.TIMED_WAITING ? SLEEP : OTHER_WAIT;
    }
    return compensatedBlocker(blocker.getClass()) ? COMPENSATED : OTHER_WAIT;
  }

  private static boolean compensatedBlocker(Class<?> c) {
    return c == SIGNALLER || c == AQS_CONDITION || c == AQLS_CONDITION;
  }

  private static final Class<?> SIGNALLER =
      nested(java.util.concurrent.CompletableFuture.class, "Signaller");
  private static final Class<?> AQS_CONDITION =
      java.util.concurrent.locks.AbstractQueuedSynchronizer.ConditionObject.class;
  private static final Class<?> AQLS_CONDITION =
      java.util.concurrent.locks.AbstractQueuedLongSynchronizer.ConditionObject.class;

  private static Class<?> nested(Class<?> outer, String simpleName) {
    for (Class<?> c : outer.getDeclaredClasses()) {
      if (c.getSimpleName().equals(simpleName)) {
        return c;
      }
    }
    return Void.class; // not on this JDK: such waits count as OTHER_WAIT
  }

  /**
   * Whether every awake worker but {@code except} (which may be null) is in a {@link #COMPENSATED}
   * wait, at least one is, and none is idle: where the JDK's pool adds a thread that may run
   * anything, a submission included. A worker running or sleeping means the pool makes progress
   * (the JDK's {@code tryCompensate} adds no thread while another worker is active).
   */
  static boolean allCompensated(WorkStealingPool p, Worker except) {
    boolean any = false;
    for (Worker v : p.workers) {
      if (v == null || v == except || v.sleepState == Sleep.RETIRED) {
        continue;
      }
      if (v.sleepState != Sleep.AWAKE || waitKind(v) != COMPENSATED) {
        return false;
      }
      any = true;
    }
    return any;
  }

  /**
   * Unstarted forks of an awake worker that may be waiting for them, which a stall spare could take
   * ({@link Stealing#scanForParked}): in its deque, or latent ones it can claim. Submissions in the
   * external queue do not count: they wait for a worker, as on the JDK.
   */
  private static boolean forksWaiting(WorkStealingPool p) {
    if (p.hasVisibleWork() && allCompensated(p, null)) {
      return true; // every worker in a wait the JDK compensates for: the spare takes anything
    }
    for (Worker v : p.workers) {
      if (v == null || v.sleepState != Sleep.AWAKE || !mayWaitForForks(v)) {
        continue;
      }
      if (v.deque.hasWork()) {
        return true;
      }
      // Latent forks only of an owner a claim may take from (Stealing.claimFrom): not BLOCKED, not
      // a joiner that spins; else a spare would start, find nothing, and the next tick another.
      Thread.State s;
      if (v.claims
          && v.latent.mayHaveEntries()
          && ((s = v.getState()) == Thread.State.WAITING || s == Thread.State.TIMED_WAITING)) {
        return true;
      }
    }
    return false;
  }

  /** A number that changes when any queue moves (racy reads; equal readings mean frozen). */
  private static long workStamp(WorkStealingPool p) {
    long h = System.identityHashCode(p.externalHead());
    for (Worker v : p.workers) {
      if (v != null) {
        h = h * 31 + v.deque.stamp();
      }
    }
    return h;
  }
}

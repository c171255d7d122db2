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
 * JDK's pool those waits call {@code ForkJoinPool.managedBlock} themselves when the caller is a
 * {@code ForkJoinWorkerThread}, so the pool compensates; Tine's workers are not such threads, so
 * nothing tells the pool. Idle workers cover the case where some worker is free (they steal, and
 * claim a parked owner's latent forks), but when every worker is parked nobody is left to notice:
 * only a thread outside the pool can.
 *
 * <p><b>Guarantee.</b> If every live worker of a pool is parked (in a wait outside Tine, in
 * managedBlock, or in a join that found nothing to help with) while unstarted work exists (tasks in
 * the external queue or a deque, or latent forks a spare could claim), and no queue moves for a
 * whole tick, a spare worker starts within two ticks of the watch's first look at the stall (a look
 * comes every {@link #TICK_NANOS} while some worker is parked, at most {@link #BUSY_TICK_NANOS}
 * after the first one parks, {@link #IDLE_TICK_NANOS} after a fully idle spell); one more per tick
 * while the stall lasts, up to {@link WorkStealingPool.Builder#maxSpares}, and at the bound the
 * pool reports a {@link java.util.concurrent.RejectedExecutionException} to its uncaught-exception
 * handler instead of wedging silently ({@link #check}).
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

  /** The watch thread, or null when none runs. Guarded by LOCK. */
  private static Thread thread;

  private StallWatch() {}

  /** A pool now has live workers: watch it (starts the watch thread if none runs). */
  static void watch(WorkStealingPool pool) {
    POOLS.add(pool);
    synchronized (LOCK) {
      if (thread == null) {
        Thread t = new Thread(null, new StallWatch(), "tine-stall-watch", 0L, false);
        t.setDaemon(true);
        thread = t;
        try {
          t.start();
        } catch (Throwable e) { // no thread (OutOfMemoryError): the next watch() tries again
          thread = null;
          POOLS.remove(pool);
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
      return thread != null;
    }
  }

  @Override
  public void run() {
    long tick = TICK_NANOS;
    for (; ; ) {
      LockSupport.parkNanos(this, tick);
      if (POOLS.isEmpty()) {
        synchronized (LOCK) {
          if (POOLS.isEmpty()) {
            thread = null; // a later watch() starts a new one
            return;
          }
        }
      }
      int seen = IDLE;
      for (WorkStealingPool p : POOLS) {
        try {
          seen = Math.max(seen, check(p));
        } catch (Throwable e) { // OutOfMemoryError starting a spare, say: try again next tick
          seen = ALL_PARKED;
          if (e instanceof VirtualMachineError && !(e instanceof OutOfMemoryError)) {
            throw e;
          }
        }
      }
      // Look again soon only to confirm a possible stall (every awake worker of a pool parked).
      tick =
          seen == ALL_PARKED
              ? TICK_NANOS
              : Math.min(tick * 2, seen == IDLE ? IDLE_TICK_NANOS : BUSY_TICK_NANOS);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // One pool's check (the watch thread only: it alone writes the pool's stall fields)

  /**
   * Called at each tick for each watched pool. A pool is stalled when it has live workers, none of
   * them idle or running (each parked: in a wait outside Tine, in managedBlock, or in a join that
   * cannot help), and unstarted work that nobody can take: tasks in the external queue or a deque,
   * or latent forks that a spare could claim. A stall seen at two ticks in a row with no queue
   * moving in between gets one more worker; the spare takes the work (a steal, or a claim from a
   * parked owner), and if it parks too, the next ticks add another. If the pool has a sleeper, the
   * sleeper is woken instead: it may have gone to sleep before the parked owners forked, and then
   * it parks with no deadline, since latent forks never signal.
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
    if (parked != ALL_PARKED || !hasUnstartedWork(p)) {
      p.stallSeen = false;
      p.stallBoundReported = false;
      if (p.stallSpares != 0) {
        p.stallSpares = 0; // the spares already started stay until they retire
      }
      return parked;
    }
    long stamp = workStamp(p);
    if (!p.stallSeen || stamp != p.stallStamp) {
      p.stallSeen = true; // confirm at the next tick: a stall freezes every queue
      p.stallStamp = stamp;
      return parked;
    }
    p.stallSeen = false;
    if (Sleep.sleepers(c) != 0) {
      // A sleeper that went to sleep before the parked owners forked parks without a deadline:
      // latent forks never signal. Wake it; it claims them (found by the differential fuzzer:
      // fork, wait in cf.join so a spare starts, then fork and wait in a queue at p=1).
      p.sleep.signalWork();
      return parked;
    }
    int maxSpares = p.maxSpares;
    synchronized (p.lock) {
      int blocked = p.blockedWorkers;
      int want = live + 1 - p.parallelism() - blocked; // spares for a target of live + 1
      if (want > maxSpares - Math.min(blocked, maxSpares) || live >= WorkStealingPool.MAX_WORKERS) {
        if (!p.stallBoundReported) {
          p.stallBoundReported = true;
          p.reportUncaught(
              new RejectedExecutionException(
                  "pool "
                      + p.name()
                      + " is stalled: all "
                      + live
                      + " workers are blocked while tasks wait, and no spare worker may start"
                      + " (maxSpares is "
                      + maxSpares
                      + ")"));
        }
        return parked;
      }
      if (want > p.stallSpares) {
        p.stallSpares = want;
      }
    }
    p.sleep.signalWork(); // no sleeper: starts a worker
    return parked;
  }

  /**
   * Whether the awake workers are parked (a racy snapshot): in a wait outside Tine, in
   * managedBlock, or in a join that cannot help ({@link #ALL_PARKED}), some of them ({@link
   * #SOME_PARKED}), or none ({@link #NONE_PARKED}). Sleepers are idle, not parked.
   */
  private static int parkedWorkers(WorkStealingPool p) {
    boolean parked = false, running = false;
    for (Worker v : p.workers) {
      if (v == null || v.sleepState != Sleep.AWAKE) {
        continue;
      }
      if (v.joinParked) {
        parked = true;
        continue;
      }
      Thread.State s = v.getState();
      if (s == Thread.State.RUNNABLE || s == Thread.State.NEW) {
        running = true;
      } else {
        parked = true;
      }
    }
    return !parked ? NONE_PARKED : running ? SOME_PARKED : ALL_PARKED;
  }

  /** Work nobody has started that a new worker could take (steal, poll or claim). */
  private static boolean hasUnstartedWork(WorkStealingPool p) {
    if (p.hasVisibleWork()) {
      return true;
    }
    if (p.latentForks && LatentStack.claimsSupported()) {
      for (Worker v : p.workers) {
        if (v != null && v.latent.mayHaveEntries()) {
          return true;
        }
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

package dev.tine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * whole tick, a spare worker starts within about two ticks; one more per tick while the stall
 * lasts, up to {@link WorkStealingPool.Builder#maxSpares}, and at the bound the pool reports a
 * {@link java.util.concurrent.RejectedExecutionException} to its uncaught-exception handler instead
 * of wedging silently ({@link WorkStealingPool#checkStall}).
 *
 * <p><b>Cost when nothing blocks.</b> Nothing on the task path: no task, fork or join writes
 * anything for the watch. The watch itself wakes once per tick while some pool has live workers and
 * reads, per pool, the sleep word and each worker's thread state (stopping at the first running
 * one); it exits when no pool has live workers, and the next pool to start a worker starts it
 * again.
 */
final class StallWatch implements Runnable {
  /** How often the watch looks. A stall is acted on at its second sighting. */
  static final long TICK_NANOS = 10_000_000L;

  /** The longest pause while every watched pool's workers are all asleep. */
  static final long IDLE_TICK_NANOS = 160_000_000L;

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
      synchronized (LOCK) {
        if (POOLS.isEmpty()) {
          thread = null; // a later watch() starts a new one
          return;
        }
      }
      boolean busy = false;
      for (WorkStealingPool p : POOLS) {
        try {
          busy |= p.checkStall();
        } catch (Throwable e) { // OutOfMemoryError starting a spare, say: try again next tick
          busy = true;
          if (e instanceof VirtualMachineError && !(e instanceof OutOfMemoryError)) {
            throw e;
          }
        }
      }
      // Pools whose workers all sleep cannot stall until one wakes: look less often meanwhile.
      tick = busy ? TICK_NANOS : Math.min(tick * 2, IDLE_TICK_NANOS);
    }
  }
}

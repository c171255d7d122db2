package dev.tine;

import java.util.concurrent.locks.LockSupport;

/**
 * Waiting until a pool has nothing left to do, for programs that fork tasks and never join them
 * (the fork/join tuning study's quicksort ends with {@code ForkJoinTask.helpQuiesce()}): {@link
 * Task#helpQuiesce()} from a worker, which runs tasks meanwhile, and {@link
 * WorkStealingPool#awaitQuiescence} from any other thread, which waits.
 *
 * <p><b>Quiescent</b> means: no task in the external queue or any deque, and every live worker but
 * the caller asleep. Latent forks are not visible to other threads, but only a running worker holds
 * them (an idle worker drops or has run its latent stack before it sleeps, see {@code
 * Worker.loop}), and a running worker is not asleep, so the test never passes while a latent fork
 * waits. A worker falls asleep only after it found no work anywhere, so "asleep" is "idle" as the
 * JDK's {@code isQuiescent} means it, later by the spin and yield phases before a worker parks (a
 * fraction of a millisecond).
 *
 * <p>While the helper finds nothing it counts as hungry, as an idle worker does, so that busy
 * workers promote their latent forks where it can take them.
 */
final class Quiescence {
  private Quiescence() {}

  /** Rounds of {@link Thread#onSpinWait()} pauses, then of yields, then short parks. */
  private static final int SPIN_ROUNDS = 64;

  private static final int YIELD_ROUNDS = 16;
  private static final long PARK_NANOS = 50_000L;

  /**
   * True if no task is queued in {@code pool} and every live worker but {@code self} (a worker of
   * this pool, or null) is asleep. A racy reading, exact only when nothing runs.
   */
  static boolean isQuiescent(WorkStealingPool pool, Worker self) {
    long c = pool.sleep.ctl();
    int awake = Sleep.live(c) - Sleep.sleepers(c);
    if (self != null && self.pool == pool) {
      awake--;
    }
    return awake <= 0 && pool.queuedTasks() == 0;
  }

  /**
   * A worker runs its own forks, then whatever it can steal, until its pool is quiescent. Ignores
   * interrupts, as the JDK's {@code helpQuiesce} does (it keeps the interrupt status).
   */
  static void helpQuiesce(Worker w) {
    WorkStealingPool pool = w.pool;
    boolean hungry = false;
    int idleRounds = 0;
    try {
      for (; ; ) {
        Task<?> t = HelpingJoin.popOwn(w, false);
        if (t == null) {
          t = Stealing.scan(w);
        }
        if (t != null) {
          if (hungry) {
            pool.addHungry(-1);
            hungry = false;
          }
          idleRounds = 0;
          HelpingJoin.runOwn(w, t);
          continue;
        }
        if (isQuiescent(pool, w)) {
          return;
        }
        if (!hungry) {
          pool.addHungry(1);
          hungry = true;
        }
        idle(++idleRounds);
      }
    } finally {
      if (hungry) {
        pool.addHungry(-1);
      }
    }
  }

  /**
   * Any thread but one of the pool's workers: waits until the pool is quiescent or {@code nanos}
   * have passed; true if quiescent.
   */
  static boolean await(WorkStealingPool pool, long nanos) {
    long deadline = System.nanoTime() + nanos;
    for (int rounds = 1; ; rounds++) {
      if (isQuiescent(pool, null)) {
        return true;
      }
      if (deadline - System.nanoTime() <= 0) {
        return false;
      }
      idle(rounds);
    }
  }

  private static void idle(int rounds) {
    if (rounds <= SPIN_ROUNDS) {
      Thread.onSpinWait();
    } else if (rounds <= SPIN_ROUNDS + YIELD_ROUNDS) {
      Thread.yield();
    } else {
      LockSupport.parkNanos(PARK_NANOS);
    }
  }
}

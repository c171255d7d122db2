package dev.tine;

import java.util.concurrent.locks.LockSupport;

/**
 * Waiting until a pool has nothing left to do, for programs that fork tasks and never join them
 * (the fork/join tuning study's quicksort ends with {@code ForkJoinTask.helpQuiesce()}): {@link
 * Task#helpQuiesce()} from a worker, which runs tasks meanwhile, and {@link
 * WorkStealingPool#awaitQuiescence} from any other thread, which waits.
 *
 * <p><b>Quiescent</b> means: no task in the external queue or any deque, and every live worker
 * asleep or an <em>idle quiescer</em> (a worker in {@code helpQuiesce} that found nothing to run
 * and only watches for work; without that count two workers in {@code helpQuiesce} would wait for
 * each other forever). Latent forks are not visible to other threads, but only a running worker
 * holds them (an idle worker has run or dropped its latent stack before it sleeps, see {@code
 * Worker.loop}; a quiescer before it counts as idle), and a running worker is neither, so the test
 * never passes while a latent fork waits. The answer lags idleness by a worker's spin and yield
 * phases before it parks (a fraction of a millisecond).
 *
 * <p><b>Why the queues are read before the counts.</b> Every worker stops counting as idle before
 * it takes a task: a sleeper takes itself off the sleeper count ({@code Sleep}), a quiescer off
 * {@link WorkStealingPool#idleQuiescers}. So a task that was in a queue when the queues read empty
 * was taken by a worker that no longer counted as idle when the counts were read next; and a task
 * pushed after the queue read was pushed by a worker that was running, which cannot count as idle
 * until its deque is empty again, that is, until some worker not counting as idle took the task.
 * Read the other way round (counts, then queues), a worker could take the last task between the two
 * reads and be seen idle with the queues empty.
 *
 * <p>While a quiescer finds nothing it also counts as hungry, as an idle worker does, so that busy
 * workers promote their latent forks where it can take them.
 */
final class Quiescence {
  private Quiescence() {}

  /** Rounds of {@link Thread#onSpinWait()} pauses, then of yields, then short parks. */
  private static final int SPIN_ROUNDS = 64;

  private static final int YIELD_ROUNDS = 16;
  private static final long PARK_NANOS = 50_000L;

  /**
   * True if no task is queued in {@code pool} and every live worker is asleep or an idle quiescer.
   * True only if, when the counts were read, no task of the pool was queued or running (the class
   * comment says why), unless one was submitted from outside meanwhile.
   */
  static boolean isQuiescent(WorkStealingPool pool) {
    if (pool.queuedTasks() != 0) {
      return false; // first: see "Why the queues are read before the counts"
    }
    long c = pool.sleep.ctl();
    return Sleep.live(c) - Sleep.sleepers(c) - pool.idleQuiescers.get() <= 0;
  }

  /**
   * A worker runs its own forks, then whatever it can steal, until its pool is quiescent or {@code
   * nanos} (0: no limit) passed; true if quiescent. While it finds nothing it counts as an idle
   * quiescer, so that two callers do not wait for each other; it stops counting as one before it
   * takes a task.
   */
  static boolean helpQuiesce(Worker w, long nanos) {
    WorkStealingPool pool = w.pool;
    long deadline = nanos == 0L ? 0L : System.nanoTime() + nanos;
    boolean hungry = false;
    boolean idle = false;
    int idleRounds = 0;
    try {
      for (; ; ) {
        if (idle) {
          if (!pool.hasVisibleWork()) {
            if (isQuiescent(pool)) {
              return true;
            }
            if (deadline != 0L && deadline - System.nanoTime() <= 0L) {
              return false;
            }
            idle(++idleRounds);
            continue;
          }
          pool.idleQuiescers.decrementAndGet(); // before any take
          idle = false;
        }
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
        pool.idleQuiescers.incrementAndGet();
        idle = true;
        if (!hungry) {
          pool.addHungry(1);
          hungry = true;
        }
      }
    } finally {
      if (idle) {
        pool.idleQuiescers.decrementAndGet();
      }
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
      if (isQuiescent(pool)) {
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

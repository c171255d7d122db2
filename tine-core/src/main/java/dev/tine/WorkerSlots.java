package dev.tine;

import java.util.Arrays;

/**
 * A pool's worker threads: how many it may run, starting one in a free slot, and a worker's exit.
 * Everything here runs under the pool's {@code lock}, which also orders it against retirement
 * ({@link Sleep#tryRetire}) and termination; nothing on the task path takes it.
 *
 * <p>State: {@code pool.workers}, a copy-on-write array of slots (volatile; a null slot has no live
 * worker), written here only; the live count in the sleep word ({@link Sleep}); {@code
 * pool.started}, the threads that {@code close()} joins. Workers start lazily, when work is
 * signalled and fewer than the target are live. A worker that exits looks for visible work once its
 * slot is free: a submission that found every slot taken by a retiring worker (no longer live,
 * still in its slot) could start nobody.
 */
final class WorkerSlots {
  private WorkerSlots() {}

  /**
   * Workers the pool may run now: parallelism, plus the live stall spares, plus one per worker
   * blocked in managedBlock; the spares of both kinds together at most maxSpares (one bound: a
   * stall spare takes a blocker's room, {@link Compensation}).
   */
  static int targetSize(WorkStealingPool p) {
    int stall = p.stallSparesLive;
    return p.parallelism() + stall + Math.max(0, Math.min(p.blockedWorkers, p.maxSpares - stall));
  }

  /**
   * Keeps {@code hungry} counting the vacant slots below parallelism (unstarted workers are hungry:
   * a promotion's signal starts them). Called under the lock after the live count changed by a
   * worker that is not a stall spare: the vacancy is parallelism less the live workers that are not
   * stall spares (their count does not change across the call).
   */
  static void adjustVacancy(WorkStealingPool p, int liveBefore, int liveAfter) {
    int parallelism = p.parallelism();
    int stall = p.stallSparesLive;
    int d =
        Math.max(0, parallelism - (liveAfter - stall))
            - Math.max(0, parallelism - (liveBefore - stall));
    if (d != 0) {
      p.addHungry(d);
    }
    watchOrForget(p, liveBefore, liveAfter);
  }

  /** StallWatch looks at pools with live workers only: nothing to watch, and nothing held, else. */
  private static void watchOrForget(WorkStealingPool p, int liveBefore, int liveAfter) {
    if (liveBefore == 0 && liveAfter > 0) {
      StallWatch.watch(p);
    } else if (liveBefore > 0 && liveAfter == 0) {
      StallWatch.forget(p);
    }
  }

  /** What {@link #tryStartStallSpare} did. */
  static final int SPARE_STARTED = 0, SPARE_AT_BOUND = 1, SPARE_NOT_NEEDED = 2;

  /**
   * StallWatch's spare: starts a {@link Worker#stallSpare} unless the pool stops, or the spares
   * already running (stall spares, and one per managedBlock blocker) fill maxSpares. Takes the
   * lock; calls no user code.
   */
  static int tryStartStallSpare(WorkStealingPool p) {
    synchronized (p.lock) {
      if (p.isStopping()) {
        return SPARE_NOT_NEEDED;
      }
      int live = Sleep.live(p.sleep.ctl());
      if (p.stallSparesLive + p.blockedWorkers >= p.maxSpares
          || live >= WorkStealingPool.MAX_WORKERS) {
        return SPARE_AT_BOUND;
      }
      return start(p, true) ? SPARE_STARTED : SPARE_NOT_NEEDED;
    }
  }

  /** Starts a worker in a free slot if fewer than the target are live and the pool runs. */
  static void tryStart(WorkStealingPool p) {
    synchronized (p.lock) {
      if (Sleep.live(p.sleep.ctl()) >= targetSize(p) || p.isStopping()) {
        return;
      }
      start(p, false);
    }
  }

  /** Under the lock: starts a worker (a stall spare or not) in a free or new slot. */
  private static boolean start(WorkStealingPool p, boolean stallSpare) {
    long c = p.sleep.ctl();
    Worker[] ws = p.workers;
    int slot = -1;
    for (int i = 0; i < ws.length; i++) {
      if (ws[i] == null) {
        slot = i;
        break;
      }
    }
    if (slot < 0) {
      if (!stallSpare && ws.length >= targetSize(p) || ws.length >= WorkStealingPool.MAX_WORKERS) {
        return false; // a retiring worker still holds its slot: it looks for work once it is gone
      }
      slot = ws.length; // a spare slot (managedBlock's or the stall watch's)
      ws = Arrays.copyOf(ws, slot + 1);
      p.statsTable.grow(slot + 1);
    }
    p.started.removeIf(t -> !t.isAlive());
    Worker w = new Worker(p, slot, p.statsTable.counters(slot), p.recordStats, stallSpare);
    Worker[] next = ws.clone();
    next[slot] = w;
    p.workers = next;
    p.sleep.addLive(1, 0);
    if (stallSpare) {
      p.stallSparesLive++;
      watchOrForget(p, Sleep.live(c), Sleep.live(c) + 1);
    } else {
      adjustVacancy(p, Sleep.live(c), Sleep.live(c) + 1); // the new worker looks for work at once
    }
    p.started.add(w);
    p.threadsStarted++;
    try {
      w.start();
    } catch (Throwable t) { // e.g. OutOfMemoryError: unable to create native thread
      next = p.workers.clone();
      next[slot] = null;
      p.workers = next;
      p.threadsStarted--;
      long c2 = p.sleep.addLive(-1, 0);
      if (stallSpare) {
        p.stallSparesLive--;
        watchOrForget(p, Sleep.live(c2), Sleep.live(c2) - 1);
      } else {
        adjustVacancy(p, Sleep.live(c2), Sleep.live(c2) - 1);
      }
      p.started.remove(w);
      throw t;
    }
    return true;
  }

  /** Called by each worker thread as its last action. */
  static void exited(WorkStealingPool p, Worker w, Throwable failure) {
    p.statsTable.recordExitedCpu(w.index); // on the exiting thread itself
    synchronized (p.lock) {
      Worker[] ws = p.workers;
      if (w.recordStats) { // its join counts move to the slot (the counters' owner: plain writes)
        w.counters.retiredFunctionForks += w.latent.functionForks;
        w.counters.retiredFunctionJoins +=
            w.latent.functionForks - w.latent.functionForksNotTakenBack;
      }
      if (ws[w.index] == w) {
        Worker[] next = ws.clone();
        next[w.index] = null;
        p.workers = next;
      }
      if (w.stallSpare) {
        long c = p.sleep.addLive(-1, 0); // a stall spare never sleeps, so it never retired
        p.stallSparesLive--;
        watchOrForget(p, Sleep.live(c), Sleep.live(c) - 1);
      } else if (w.sleepState != Sleep.RETIRED) {
        long c = p.sleep.addLive(-1, 0);
        adjustVacancy(p, Sleep.live(c), Sleep.live(c) - 1);
      }
      if (p.isStopping() && Sleep.live(p.sleep.ctl()) == 0) {
        p.setTerminated();
      }
    }
    if (failure != null) {
      p.reportUncaught(failure);
    }
    // A stall spare exits without falling asleep: after shutdown, the last worker's sleep may
    // have come before its exit, so terminating is its job then.
    if (w.stallSpare && p.isShutdown()) {
      p.tryTerminateIfQuiescent();
    }
    // Work submitted while our slot was still taken may have found no slot to start a worker in
    // (we had retired, so we were no longer live, but still held the slot): look once more.
    if (!p.isStopping() && (failure != null || p.hasVisibleWork())) {
      p.sleep.signalWork();
    }
  }
}

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
   * Workers the pool may run now: parallelism, plus one per worker blocked in managedBlock and the
   * spares StallWatch granted, up to maxSpares.
   */
  static int targetSize(WorkStealingPool p) {
    return p.parallelism() + Math.min(p.blockedWorkers + p.stallSpares, p.maxSpares);
  }

  /**
   * Keeps {@code hungry} counting the vacant slots below parallelism (unstarted workers are hungry:
   * a promotion's signal starts them). Called under the lock after the live count changed.
   */
  static void adjustVacancy(WorkStealingPool p, int liveBefore, int liveAfter) {
    int parallelism = p.parallelism();
    int d = Math.max(0, parallelism - liveAfter) - Math.max(0, parallelism - liveBefore);
    if (d != 0) {
      p.addHungry(d);
    }
    // StallWatch looks at pools with live workers only: nothing to watch, and nothing held, else.
    if (liveBefore == 0 && liveAfter > 0) {
      StallWatch.watch(p);
    } else if (liveBefore > 0 && liveAfter == 0) {
      StallWatch.forget(p);
    }
  }

  /** Starts a worker in a free slot if fewer than the target are live and the pool runs. */
  static void tryStart(WorkStealingPool p) {
    synchronized (p.lock) {
      long c = p.sleep.ctl();
      if (Sleep.live(c) >= targetSize(p) || p.isStopping()) {
        return;
      }
      Worker[] ws = p.workers;
      int slot = -1;
      for (int i = 0; i < ws.length; i++) {
        if (ws[i] == null) {
          slot = i;
          break;
        }
      }
      if (slot < 0) {
        if (ws.length >= targetSize(p) || ws.length >= WorkStealingPool.MAX_WORKERS) {
          return; // a retiring worker still holds its slot: it looks for work once it is gone
        }
        slot = ws.length; // a spare slot for a worker blocked in managedBlock
        ws = Arrays.copyOf(ws, slot + 1);
        p.statsTable.grow(slot + 1);
      }
      p.started.removeIf(t -> !t.isAlive());
      Worker w = new Worker(p, slot, p.statsTable.counters(slot), p.recordStats);
      Worker[] next = ws.clone();
      next[slot] = w;
      p.workers = next;
      p.sleep.addLive(1, 0);
      adjustVacancy(p, Sleep.live(c), Sleep.live(c) + 1); // the new worker looks for work at once
      p.started.add(w);
      try {
        w.start();
      } catch (Throwable t) { // e.g. OutOfMemoryError: unable to create native thread
        next = p.workers.clone();
        next[slot] = null;
        p.workers = next;
        long c2 = p.sleep.addLive(-1, 0);
        adjustVacancy(p, Sleep.live(c2), Sleep.live(c2) - 1);
        p.started.remove(w);
        throw t;
      }
    }
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
      if (w.sleepState != Sleep.RETIRED) {
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
    // Work submitted while our slot was still taken may have found no slot to start a worker in
    // (we had retired, so we were no longer live, but still held the slot): look once more.
    if (!p.isStopping() && (failure != null || p.hasVisibleWork())) {
      p.sleep.signalWork();
    }
  }
}

package dev.tine;

import dev.tine.deque.WorkDeque;

/**
 * Looking for work outside the worker's own queues: the pool's external queue, then the other
 * workers' deques from a random start (random victims spread thieves; a steal takes the oldest
 * task, the biggest piece of a divide-and-conquer tree), then claims: the latent forks of workers
 * that are blocked outside Tine (protocol in {@link LatentClaims}).
 *
 * <p>A task found is stored in {@code Worker.inHand} right after the call that took it returns,
 * before anything else is called (see {@link Worker}). A thief that leaves work behind in its
 * victim wakes another sleeper, so one wake-up fans out as far as there is work.
 */
final class Stealing {
  private Stealing() {}

  static int nextRandom(Worker w) {
    int x = w.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return w.seed = x;
  }

  /**
   * One sweep for work: the external queue, then every other worker's deque from a random start,
   * then the latent forks of blocked workers. Counts one failed steal per sweep that found nothing.
   * A task found is also left in {@code Worker.inHand}.
   */
  static Task<?> scan(Worker w) {
    Task<?> t = w.pool.pollExternal();
    if (t != null) {
      w.inHand = t;
      if (!t.isDone()) {
        t.setStealer(w); // joiners of a submitted task help it through us (HelpingJoin)
      }
      return t;
    }
    Worker[] ws = w.pool.workers;
    int n = ws.length;
    int start = (nextRandom(w) & Integer.MAX_VALUE) % n;
    boolean contended = false;
    for (int i = 0; i < n; i++) {
      Worker v = ws[(start + i) % n];
      if (v == null || v == w) {
        continue;
      }
      Object x = v.deque.trySteal();
      if (x == null) {
        continue;
      }
      if (x == WorkDeque.LOST_RACE) {
        contended = true;
        continue;
      }
      Task<?> s = (Task<?>) x;
      w.inHand = s;
      onSteal(w, s, v);
      return s;
    }
    if (w.claims && !contended && (t = claimFromBlocked(w, ws, start)) != null) {
      return t;
    }
    if (w.recordStats) w.counters.failedSteals++;
    if (contended) {
      Thread.onSpinWait();
    }
    return null;
  }

  /**
   * A stall spare's sweep ({@link Worker#stallSpare}): the unstarted forks of workers parked in a
   * wait that may be for them ({@link StallWatch#mayWaitForForks}), from their deques or, by claim,
   * their latent stacks; never the external queue, and nothing of a running or sleeping worker.
   * Once those are taken, while every other awake worker is in a wait the JDK compensates for
   * ({@link StallWatch#allCompensated}), it scans as any worker does, as the JDK's compensating
   * thread would. A task found is also left in {@code Worker.inHand}.
   */
  static Task<?> scanForParked(Worker w) {
    Worker[] ws = w.pool.workers;
    int n = ws.length;
    int start = (nextRandom(w) & Integer.MAX_VALUE) % n;
    for (int i = 0; i < n; i++) {
      Worker v = ws[(start + i) % n];
      if (v == null || v == w || v.sleepState != Sleep.AWAKE || !StallWatch.mayWaitForForks(v)) {
        continue;
      }
      for (; ; ) {
        Object x = v.deque.trySteal();
        if (x == null) {
          break;
        }
        if (x == WorkDeque.LOST_RACE) {
          Thread.onSpinWait();
          continue;
        }
        Task<?> s = (Task<?>) x;
        w.inHand = s;
        onSteal(w, s, v);
        return s;
      }
      Task<?> t;
      if (w.claims && (t = claimFrom(w, v)) != null) {
        return t;
      }
    }
    // Every other worker in a wait the JDK compensates for: run anything, as its thread would.
    return StallWatch.allCompensated(w.pool, w) ? scan(w) : null;
  }

  static void onSteal(Worker w, Task<?> s, Worker victim) {
    if (victim.promoteIntoEmptyDeque) {
      // First, and a plain store (no call, so no overflow can skip it): the victim's deque may be
      // empty now, and its owner restocks it at its next fork or join (LatentStack.dequeEmptied).
      victim.latent.dequeEmptied = 1;
    }
    try {
      if (w.recordStats) {
        w.counters.steals++;
        if (s.wasPromoted()) w.counters.promotedStolen++;
      }
      s.setStealer(w);
      if (victim.deque.hasWork()) {
        w.pool.sleep.signalWork(); // propagate: more work is left where we found this
      }
    } catch (StackOverflowError e) {
      // optional: the stolen task is in hand
    }
  }

  /** Takes the oldest latent fork of some worker that is blocked outside Tine, or null. */
  static Task<?> claimFromBlocked(Worker w, Worker[] ws, int start) {
    int n = ws.length;
    for (int i = 0; i < n; i++) {
      Worker v = ws[(start + i) % n];
      Task<?> t;
      if (v != null && v != w && (t = claimFrom(w, v)) != null) {
        return t;
      }
    }
    return null;
  }

  /** Takes the oldest latent fork of {@code v} if it is blocked outside Tine, or null. */
  static Task<?> claimFrom(Worker w, Worker v) {
    while (v.latent.mayHaveEntries() && looksBlocked(v)) {
      Object x = v.latent.claimOldest(v, PromotedJob.PROMOTER); // a task, or a job
      if (x == null) {
        return null;
      }
      // Worker's rule: claimOldest's commit, then its release of the claim word (a store), then
      // its return, and nothing else, come before this store; no call.
      Task<?> t = (Task<?>) x;
      w.inHand = t;
      if (!t.markPromoted()) {
        w.inHand = null; // cancelled by its owner before it blocked
        continue;
      }
      if (w.recordStats) w.counters.claims++;
      onSteal(w, t, v);
      if (v.latent.mayHaveEntries()) {
        w.pool.sleep.signalWork(); // more where this came from
      }
      return t;
    }
    return null;
  }

  private static boolean looksBlocked(Thread t) {
    Thread.State s = t.getState();
    return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
  }

  /** True if some other worker may hold latent forks (a racy hint, for sleepers). */
  static boolean latentElsewhere(Worker w) {
    if (!w.claims) {
      return false;
    }
    for (Worker v : w.pool.workers) {
      if (v != null && v != w && v.latent.mayHaveEntries()) {
        return true;
      }
    }
    return false;
  }
}

package dev.tine;

import dev.tine.deque.WorkDeque;

/**
 * Joins that help rather than wait (Lea §3.1: "helping"; Wagner and Calder's leapfrogging).
 *
 * <ol start="0">
 *   <li>The newest latent fork is the target: never promoted, so run it by a direct call.
 *   <li>Pop and run own pending forks (newest first) until the target is done or none is left.
 *       Thieves take the oldest first, so once own work is exhausted the target was stolen or was
 *       never ours.
 *   <li>Help: steal from the target's thief, following the chain of thieves (the thief may itself
 *       be joining a task stolen by another), so that the work run is a descendant of the target; a
 *       thief on the chain that is blocked outside Tine has its latent forks claimed. If the target
 *       was never stolen, the only task the join may run is the target itself, taken from the
 *       external queue or from the base of the deque it was forked to.
 *   <li>Spin, then yield, then block on the task with a short timed wait, and help again when it
 *       expires. A join that blocks is a JFR event ({@code dev.tine.JoinBlocked}, see {@link
 *       PoolEvents}) while a recording wants it, and counts as parked for {@link StallWatch}.
 * </ol>
 *
 * <p><b>A join never runs unrelated work.</b> Everything it runs is the target, one of the joiner's
 * own forks, or a descendant of the target (taken from the chain of thieves), so it shares the
 * joiner's computation. Running any other task in the joiner's frame (the earlier scan of the whole
 * pool) made that task's result wait for the joiner's target (a deadlock at parallelism 1 when the
 * task itself waits for the joiner) and leaked its interrupt flag and thread-locals into the
 * joiner. A join that cannot help blocks; if every worker is then parked while work waits, the
 * {@link StallWatch} starts a spare worker (the JDK's pool compensates in its join the same way).
 *
 * <p><b>Interrupts and deadlines.</b> {@code join} ignores interrupts, as the JDK's does. {@code
 * get} from a worker ({@link #awaitGet}) throws {@link InterruptedException} when the thread is
 * interrupted while it waits, and a timed one gives up at its deadline; a flag that a task run
 * inside the wait leaves behind is that task's and is cleared, so an interrupt that arrives while
 * such a task runs goes to that task. So that the wait answers at once, {@code get} runs only its
 * target and the target's pieces, never the caller's other forks ({@link #awaitTarget}).
 *
 * <p>While a join finds nothing to help with it counts itself hungry, so that whoever holds the
 * target's pieces as latent forks promotes them; hunger an error kept from being taken back is
 * repaid by the run loop ({@link #repayHunger}).
 */
final class HelpingJoin {
  /** Help attempts (with a pause) in a join before yielding, then blocking. */
  static final int JOIN_SPINS = 256, JOIN_YIELDS = 32;

  /** How long a blocked joiner waits before trying to help again. */
  static final long JOIN_BLOCK_NANOS = 1_000_000L;

  /** What the slow path returns when an interruptible wait was interrupted (never a status). */
  static final int INTERRUPTED = Integer.MAX_VALUE; // incomplete statuses never carry ABNORMAL

  private HelpingJoin() {}

  /**
   * Waits for {@code task} to complete, helping meanwhile; returns its final status. Step (0), the
   * inline join of the newest latent fork, is {@code Task.awaitJoin}'s, which calls this only when
   * the target is not that fork: the join's common path then crosses one method fewer, whose own
   * compiled code the JIT may find too big to inline (see {@code Task.callCompute}).
   */
  static int awaitJoin(Worker w, Task<?> task) {
    return awaitJoinSlow(w, task, 0L, false);
  }

  /**
   * {@link java.util.concurrent.Future#get} on a worker: as {@link #awaitJoin}, but throws {@link
   * InterruptedException} if the thread is interrupted while it waits (see the class comment).
   */
  static int awaitGet(Worker w, Task<?> task, long deadline) throws InterruptedException {
    int s;
    if (w.latent.isNewest(task)) {
      if (w.recordStats) w.counters.inlineJoins++;
      s = Task.execLatent(task, w);
    } else {
      s = awaitJoinSlow(w, task, deadline, true);
    }
    if (s == INTERRUPTED) {
      throw new InterruptedException();
    }
    return s;
  }

  /** Steps (1) to (3) of a join: kept apart so that the inline join above stays small. */
  private static int awaitJoinSlow(Worker w, Task<?> task, long deadline, boolean interruptible) {
    if (w.recordStats) w.counters.joins++;
    if (interruptible || deadline != 0L) {
      return awaitTarget(w, task, deadline, interruptible);
    }
    int s;
    // (1) Run own pending forks, newest first. The target is among them unless it was stolen.
    while ((s = task.status()) >= 0) {
      if (deadline != 0L && deadline - System.nanoTime() <= 0L) {
        return s;
      }
      if (interruptible && Thread.interrupted()) {
        return INTERRUPTED;
      }
      restock(w);
      Task<?> t = popOwn(w, false);
      if (t == null) {
        return helpJoin(w, task, deadline, interruptible);
      }
      runOwn(w, t);
      if (interruptible) {
        Thread.interrupted(); // the flag a task run here leaves is that task's, not the waiter's
      }
    }
    return s;
  }

  /**
   * A join that runs its own pending forks one by one (a program that forks a batch and joins it
   * oldest first, as ported {@code ForkJoinTask} code often does) restocks an emptied deque before
   * each, as a fork or an inline join does: otherwise the rest of the batch stays latent, and a
   * hungry worker has nothing to steal until the join returns (59-63 of 64 leaves ran on one worker
   * at p=2 in most batches; see the latent-forks note). Before the pop, not after: a task in hand
   * stops promotion. Not in {@link #awaitTarget}: a {@code get} runs only its target, and a restock
   * there could promote the target (the oldest entry) and leave the pop to run newer forks first.
   * Optional work, as in {@link Worker#fork}: an error inside leaves what it did not promote
   * latent, and the word set.
   */
  private static void restock(Worker w) {
    if (w.latentForks && w.latent.dequeEmptied != 0 && w.latent.size() > 0) {
      try {
        LatentJoins.stock(w);
      } catch (StackOverflowError | OutOfMemoryError e) {
        // the entries stay ours; the next fork or join tries again
      }
    }
  }

  /**
   * Runs {@code t}, a task of ours held in hand, and if it ended in {@link StackOverflowError}
   * fails the latent forks it left behind with that error instead of leaving them to be run.
   *
   * <p>Why: an overflow at the very call of a {@code join()} (its entry, before any handler of the
   * runtime) leaves the fork latent behind its failed join, an orphan. Run later in a frame as deep
   * as the one that overflowed (a join's own forks first, a scope join's left-behind forks), the
   * orphan overflows at the same point and leaves an orphan of the same shape, again and again: the
   * pool wedged until the JIT happened to recompile something ({@code OverflowTest}, about one run
   * in five on a busy box; the core design note, rule 5). Failing what the overflowed run left
   * behind breaks the cycle, as rule 4 fails a fork left behind by a join that an overflow stopped.
   * Slow paths only: the mark is read before the run, the check made after it.
   */
  static void runOwn(Worker w, Task<?> t) {
    int mark = w.latentForks ? w.latent.topIndex() : 0;
    w.runTask(t);
    if (w.latentForks && (t.status() & TaskStatus.THROWN) != 0) {
      failLeftBehind(w, t, mark);
    }
  }

  private static void failLeftBehind(Worker w, Task<?> t, int mark) {
    // The outcome itself, not getException(): no cast of a field that a bug could have clobbered.
    if (t.outcome instanceof StackOverflowError e && w.latent.topIndex() > mark) {
      w.latent.failAbove(mark, e);
    }
  }

  /**
   * A wait that a deadline or an interrupt may end ({@code get}): runs only the target, taken out
   * of our own queues if it is there, and (in {@link #helpJoin}) the target's own forks, never an
   * unrelated fork of ours: one that runs for a second would hold a 50 ms {@code get} for that
   * second, and its run would swallow the waiter's interrupt (the JDK's {@code helpJoin} runs the
   * same set). The one exception: a target buried in our deque under newer forks cannot be taken
   * out of its middle (thieves own the deque's base, see {@link WorkDeque}), so the forks above it
   * run first, as in a join; a latent target (the default) is taken out wherever it is.
   */
  private static int awaitTarget(Worker w, Task<?> task, long deadline, boolean interruptible) {
    int s;
    while ((s = task.status()) >= 0) {
      if (deadline != 0L && deadline - System.nanoTime() <= 0L) {
        return s;
      }
      if (interruptible && Thread.interrupted()) {
        return INTERRUPTED;
      }
      Task<?> t = takeOwnTarget(w, task);
      if (t == null) {
        return helpJoin(w, task, deadline, interruptible, true);
      }
      runOwn(w, t);
      if (interruptible) {
        Thread.interrupted(); // the flag a task run here leaves is that task's, not the waiter's
      }
    }
    return s;
  }

  /**
   * The target if it is our own unstarted fork, taken and held in hand; a newer fork of ours if the
   * target lies below it in our deque (see {@link #awaitTarget}); else null.
   */
  private static Task<?> takeOwnTarget(Worker w, Task<?> target) {
    Task<?> h = w.inHand;
    if (h != null) {
      return h == target ? h : null; // an error left another in hand: popOwn runs it later
    }
    if (w.latentForks && w.latent.takeLatent(target)) {
      w.inHand = target; // no call since the commit
      return target;
    }
    if (w.deque.ownerContains(target)) {
      return popOwn(w, false); // the target, or a newer fork above it
    }
    return null;
  }

  /** Our own unstarted tasks: latent entries and the deque's (a hint: thieves may take some). */
  private static int ownCount(Worker w) {
    return w.latent.size() + w.deque.size();
  }

  /**
   * Owner: our newest pending task, or null: a task in hand first, then latent entries (they are
   * newer than anything in the deque, which holds promoted, i.e. older, entries), then the deque. A
   * primitive join's latent half on top of the latent stack is not a task: inside a join its joiner
   * is below us, so every latent entry is promoted (oldest first, so the deque keeps age order) and
   * the deque's newest is taken; at top level (the run loop) no joiner is left, so the entry is
   * dead and dropped.
   */
  static Task<?> popOwn(Worker w, boolean topLevel) {
    Task<?> t = w.inHand;
    if (t != null) {
      return t;
    }
    Object x = null;
    for (; w.latentForks; ) {
      if ((x = w.latent.popTask()) != null || w.latent.sizeChecked() == 0) {
        break;
      }
      if (topLevel) {
        w.latent.dropTop();
      } else {
        LatentJoins.promoteAll(w);
        if (w.inHand != null) {
          return w.inHand; // a promotion was cut short
        }
        break;
      }
    }
    if (x == null && (x = w.deque.pop()) != null && w.promoteIntoEmptyDeque) {
      w.latent.dequeEmptied = 1; // perhaps the last: restock at the next fork (a store, no call)
    }
    if (x != null) {
      t = (Task<?>) x;
      w.inHand = t; // no call since the pop that took it (latent stack or deque)
      if (w.recordStats) w.counters.localPops++;
    }
    return t;
  }

  /** The target is not in our deque: help whoever has it, and block only as a last resort. */
  private static int helpJoin(Worker w, Task<?> task, long deadline, boolean interruptible) {
    return helpJoin(w, task, deadline, interruptible, false);
  }

  /**
   * @param targetOnly run nothing of ours but what a helped task leaves behind ({@link
   *     #awaitTarget})
   */
  private static int helpJoin(
      Worker w, Task<?> task, long deadline, boolean interruptible, boolean targetOnly) {
    int s;
    // (2) Help whoever has the target; (3) spin, yield, block briefly; repeat.
    if (w.pendingCount != 0) {
      w.completePending(); // the target may be one of them
    }
    if (w.recordStats) w.counters.joinsHelped++;
    Task<?> outer = w.joining;
    w.joining = task;
    boolean blocked = false;
    boolean hungry = false;
    Object blockedEvent =
        null; // JFR's JoinBlocked, begun at the first block if a recording wants it
    int waits = 0;
    try {
      int misses = 0;
      while ((s = task.status()) >= 0) {
        long left = 0L;
        if (deadline != 0L && (left = deadline - System.nanoTime()) <= 0L) {
          break;
        }
        if (interruptible && Thread.interrupted()) {
          s = INTERRUPTED;
          break;
        }
        Task<?> t = targetOnly ? null : popOwn(w, false); // a helped task may have left forks
        if (t == null) {
          t = helpSource(w, task);
        }
        if (t != null) {
          if (hungry) {
            hungry = false;
            w.pool.addHungry(-1);
            w.hungerOwed--;
          }
          if (w.joinParked) {
            w.joinParked = false; // running again
          }
          int mark = targetOnly ? ownCount(w) : 0;
          runOwn(w, t);
          if (interruptible) {
            Thread.interrupted(); // that task's flag, not the waiter's
          }
          if (targetOnly) {
            runLeftBehind(w, task, mark, deadline, interruptible);
          }
          misses = 0;
          continue;
        }
        if (!hungry) {
          w.pool.addHungry(1); // whoever holds the target's pieces as latent forks promotes them
          w.hungerOwed++;
          hungry = true;
        }
        misses++;
        if (misses < JOIN_SPINS) {
          Thread.onSpinWait();
        } else if (misses < JOIN_SPINS + JOIN_YIELDS) {
          Thread.yield();
        } else {
          if (!blocked) {
            if (w.recordStats) w.counters.joinsBlocked++;
            if (PoolEvents.ready) blockedEvent = PoolJfr.beginJoinBlocked();
          }
          blocked = true;
          if (!w.joinParked) {
            w.joinParked = true; // StallWatch: this worker waits and cannot help
          }
          waits++;
          long wait = deadline == 0L ? JOIN_BLOCK_NANOS : Math.min(JOIN_BLOCK_NANOS, left);
          try {
            TaskWait.awaitDone(task, interruptible, wait);
          } catch (InterruptedException e) {
            s = INTERRUPTED; // only when interruptible
            break;
          }
          misses = JOIN_SPINS; // after a timed block, help once more, then yield and block again
        }
      }
    } finally {
      w.joining = outer;
      if (w.joinParked) {
        w.joinParked = false;
      }
      if (hungry) {
        w.pool.addHungry(-1);
        w.hungerOwed--;
      }
      if (blockedEvent != null) {
        PoolJfr.endJoinBlocked(blockedEvent, w, task, waits);
      }
    }
    return s;
  }

  /**
   * After a helped task (a piece of the target) ran in {@link #awaitTarget}: runs the forks it left
   * in our queues, the ones above {@code mark}, newest first, while the wait lasts. They are pieces
   * of the target too, and nobody else may see them while we wait.
   */
  private static void runLeftBehind(
      Worker w, Task<?> task, int mark, long deadline, boolean interruptible) {
    while (task.status() >= 0 && ownCount(w) > mark) {
      if (deadline != 0L && deadline - System.nanoTime() <= 0L) {
        return;
      }
      if (interruptible && Thread.currentThread().isInterrupted()) {
        return; // the loop above answers it
      }
      Task<?> t = popOwn(w, false);
      if (t == null) {
        return;
      }
      runOwn(w, t);
      if (interruptible) {
        Thread.interrupted();
      }
    }
  }

  /** Takes back hunger that an error kept a join from taking back itself. */
  static void repayHunger(Worker w) {
    int owed = w.hungerOwed;
    w.pool.addHungry(-owed);
    w.hungerOwed -= owed;
  }

  /**
   * How far a join follows a chain of thieves (a thief's thief...) looking for its target's work.
   */
  static final int MAX_THIEF_HOPS = 8;

  /**
   * A task whose execution helps {@code target} complete, or null: the target itself, or a
   * descendant of it. Never an unrelated task (see the class comment).
   */
  private static Task<?> helpSource(Worker w, Task<?> target) {
    Worker v = target.stealer();
    if (v == null || v.pool != w.pool) {
      // Never stolen, not in our deque: forked by another worker or submitted from outside. (A
      // foreign pool's worker can only be a stale hint: a task's result that is a thread.) The
      // target itself is the only task that may run here.
      return takeTarget(w, target);
    }
    for (int hops = 0; v != null && v != w && v.pool == w.pool && hops < MAX_THIEF_HOPS; hops++) {
      // A thief's queues hold only descendants of what it runs: it steals only with empty queues.
      Object x = v.deque.trySteal();
      if (x == WorkDeque.LOST_RACE) {
        return null;
      }
      if (x != null) {
        Task<?> t = (Task<?>) x;
        w.inHand = t;
        Stealing.onSteal(w, t, v);
        return t;
      }
      // A thief blocked outside Tine may hold the target's pieces as latent forks: claim one.
      Task<?> c;
      if (w.claims && (c = Stealing.claimFrom(w, v)) != null) {
        return c;
      }
      Task<?> j = v.joining; // the thief is itself waiting: help whoever has what it waits for
      v = j == null ? null : j.stealer();
    }
    return null;
  }

  /**
   * The target, if it is still unstarted in the pool's external queue or at the base of a worker's
   * deque (forked there and not yet taken): taken, held in hand, and returned; else null.
   */
  private static Task<?> takeTarget(Worker w, Task<?> target) {
    if (target.isDone()) {
      return null;
    }
    Worker victim = null;
    boolean taken = w.pool.removeExternal(target);
    if (!taken) {
      for (Worker v : w.pool.workers) {
        if (v != null && v != w && v.deque.trySteal(target)) {
          victim = v;
          taken = true;
          break;
        }
      }
    }
    if (!taken) {
      return null;
    }
    w.inHand = target; // no call since the one that took it (the queue's remove or the steal)
    if (victim == null) {
      target.setStealer(w);
    } else {
      Stealing.onSteal(w, target, victim);
    }
    return target;
  }
}

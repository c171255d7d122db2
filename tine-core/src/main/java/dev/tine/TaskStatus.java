package dev.tine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;

/**
 * A task's status word and outcome, and every rule for writing them: completion (one CAS, so
 * exactly one of normal, exceptional and cancelled wins), the latent rules (only the owner writes a
 * latent task's status), promotion, and the thief's hint. {@link Task} extends it; nothing else
 * writes these two fields (the field-owner table in core-runtime.md, checked by {@code
 * FieldOwnersTest}). Waiting for a status to become final is {@link TaskWait}'s.
 *
 * <p>{@code status}: {@code >= 0} while incomplete; negative ({@link #DONE} set) once complete,
 * after which it never changes except for the {@link #SIGNAL} bit, which is irrelevant once DONE.
 * {@code outcome} is written before the completing CAS or release store and read after seeing DONE
 * (acquire).
 */
abstract class TaskStatus {
  static final int DONE = 1 << 31;
  static final int ABNORMAL = 1 << 30; // cancelled or thrown
  static final int THROWN = 1 << 29; // outcome holds the Throwable

  /**
   * A latent fork: recorded in its owner's worker-private LatentStack, invisible to thieves. While
   * this bit is set only the owner writes status: it completes the task with a release store, no
   * CAS. The bit is cleared with a CAS ({@link #markPromoted}), by the owner promoting the task or
   * by a worker that claimed it from a blocked owner. Other threads only read it and poll.
   */
  static final int LATENT = 1 << 28;

  static final int PROMOTED = 1 << 1; // was latent, then promoted to the deque (for counters)
  static final int SIGNAL = 1; // some thread is blocked in TaskWait and must be notified

  private static final VarHandle STATUS;

  static {
    try {
      STATUS = MethodHandles.lookup().findVarHandle(TaskStatus.class, "status", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * Package-private so that {@link Task}'s fast paths read it without a call (a call there can
   * overflow, see {@code Worker}); written only in this file.
   */
  volatile int status;

  /**
   * The result or the Throwable once complete. Before that, for a stolen task, the thief (a {@link
   * Worker}): a hint for joiners, who help by stealing back from it (Lea's helping,
   * "leapfrogging"). One field for both keeps a task at two words plus its own fields (the JDK's
   * size), which is measurable in fork-heavy programs; it is safe because only the thread running
   * the task writes either (the thief, before it runs the task, then its outcome), and the hint is
   * read only while the task is incomplete. A racy or stale hint only makes helping less targeted.
   * Written only in this file.
   */
  Object outcome;

  TaskStatus() {}

  final int status() {
    return status;
  }

  /** True if the task was never forked, run or cancelled. */
  final boolean isFresh() {
    return status == 0;
  }

  final boolean wasPromoted() {
    return (status & PROMOTED) != 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Latent rules: only the owner writes a latent task's status

  /**
   * Owner only, right after recording a fresh task in its latent stack. If an error stops us before
   * this store, the entry is simply a non-latent task that its owner runs or promotes.
   */
  final void setLatent() {
    STATUS.set(this, LATENT);
  }

  /**
   * Owner only: the task leaves its latent stack for the deque (or a claimer took it). From here on
   * status changes by CAS only; the deque push that publishes the task comes after this CAS.
   *
   * @return false if the task already completed (cancelled by its owner): do not push it
   */
  final boolean markPromoted() {
    for (int s; (s = status) >= 0; ) {
      // A CAS, not a store: a task claimed from a blocked owner may already have a waiter's SIGNAL.
      if (STATUS.compareAndSet(this, s, (s & ~LATENT) | PROMOTED)) {
        return true;
      }
    }
    return false;
  }

  /** The owner cancels its own latent fork: nobody else writes its status, so a release store. */
  final void cancelOwnLatent() {
    STATUS.setRelease(this, DONE | ABNORMAL);
  }

  /**
   * The worker holding this task abandons it (the pool stops): cancel it, latent or not. Only the
   * holder calls this for a latent task, so the release store races with nobody.
   */
  final void cancelAbandoned() {
    int s = status;
    if (s >= 0) {
      if ((s & LATENT) != 0) {
        STATUS.setRelease(this, DONE | ABNORMAL);
      } else {
        complete(null, DONE | ABNORMAL);
      }
    }
  }

  /**
   * Owner only, after it took this latent fork off its stack unstarted ({@code Task.tryUnfork}):
   * the task is an ordinary unforked one again. A CAS, not a store: a waiter may have set SIGNAL.
   */
  final void clearLatent() {
    for (int s; ((s = status) & LATENT) != 0 && s >= 0; ) {
      if (STATUS.compareAndSet(this, s, s & ~LATENT)) {
        return;
      }
    }
  }

  /** {@code Task.reinitialize}: forget the outcome and the status (undefined unless complete). */
  final void resetOutcome() {
    outcome = null;
    STATUS.setVolatile(this, 0);
  }

  // ---------------------------------------------------------------------------------------------
  // The thief's hint

  /** The thief that runs this task, while it is incomplete; null if none or not known. */
  final Worker stealer() {
    return outcome instanceof Worker w && status >= 0 ? w : null;
  }

  /**
   * A thief, before it runs the task it stole. Never on a completed task: its outcome is its result
   * or exception (a completed task in a deque is a bug, see {@code Worker.takeUnstarted}; this
   * keeps such a bug from turning the task's exception into a {@code Worker}).
   */
  final void setStealer(Worker w) {
    if (status >= 0) {
      outcome = w;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Completion

  /**
   * The thread that ran the task completes it: a task still latent and untouched since {@code
   * startStatus} (only this thread could have changed it) with a release store, any other with the
   * CAS.
   */
  final void finish(int startStatus, Object value, int doneBits) {
    if ((startStatus & LATENT) != 0 && status == startStatus) {
      if (value != null) {
        outcome = value;
      }
      STATUS.setRelease(this, doneBits);
    } else {
      complete(value, doneBits, true);
    }
  }

  /**
   * Completes with {@code ex} unless already complete, and wakes blocked joiners either way (a
   * completion whose notify was cut short by an error is finished here). Idempotent. For a latent
   * task, only its owner calls this.
   */
  final void completeFailed(Throwable ex) {
    int s = status;
    if (s >= 0) {
      if ((s & LATENT) != 0) {
        outcome = ex;
        STATUS.setRelease(this, DONE | ABNORMAL | THROWN);
      } else {
        complete(ex, DONE | ABNORMAL | THROWN, true);
      }
    } else if ((s & SIGNAL) != 0) {
      synchronized (this) {
        notifyAll();
      }
    }
  }

  /**
   * Completes with the given outcome unless already complete; wakes blocked joiners. Only the
   * thread running the task passes a value; {@code cancel} passes none and writes no outcome, so a
   * lost race never clobbers the winner's outcome (the loser's write is ignored: status says which
   * outcome counts, and a cancelled status never reads it).
   */
  final boolean complete(Object value, int doneBits) {
    return complete(value, doneBits, false);
  }

  /**
   * @param ran true when called by the thread that ran the task: it writes the outcome even when
   *     null, clearing its own stealer hint
   */
  private boolean complete(Object value, int doneBits, boolean ran) {
    if (ran || value != null) {
      outcome = value;
    }
    for (int s; (s = status) >= 0; ) {
      if (STATUS.weakCompareAndSet(this, s, s | doneBits)) { // volatile CAS: publishes outcome
        if ((s & SIGNAL) != 0) {
          synchronized (this) {
            notifyAll();
          }
        }
        return true;
      }
    }
    return false;
  }

  /**
   * A waiter's half of the blocking handshake ({@link TaskWait}): sets SIGNAL in the incomplete
   * status {@code s}, so that the completer notifies. False if the status changed meanwhile.
   */
  final boolean trySignal(int s) {
    return (s & SIGNAL) != 0 || STATUS.compareAndSet(this, s, s | SIGNAL);
  }

  // ---------------------------------------------------------------------------------------------
  // Reporting a final status to a joiner

  /** What join and invoke return for final status {@code s}: the value, or they throw. */
  final Object report(int s) {
    if ((s & ABNORMAL) != 0) {
      throw failure(s);
    }
    return outcome;
  }

  final void reportIfAbnormal(int s) {
    if ((s & ABNORMAL) != 0) {
      throw failure(s);
    }
  }

  /**
   * What join/invoke throw: the task's own exception, the same object whether it is unchecked or a
   * checked one thrown sneakily (as the JDK's join, which rethrows it uncheckedly); the joins of
   * Scope and Tine rely on this to report a promoted half as they report an inline one.
   */
  private RuntimeException failure(int s) {
    if ((s & THROWN) == 0) {
      return new CancellationException("task was cancelled: " + getClass().getName());
    }
    Throwable ex = (Throwable) outcome;
    if (ex instanceof RuntimeException re) {
      return re;
    }
    throw Adapters.<RuntimeException>sneaky(ex);
  }

  /** What {@code Future.get} returns for final status {@code s}: the value, or it throws. */
  final Object reportForGet(int s) throws ExecutionException {
    if ((s & ABNORMAL) == 0) {
      return outcome;
    }
    if ((s & THROWN) == 0) {
      throw new CancellationException("task was cancelled: " + getClass().getName());
    }
    throw new ExecutionException((Throwable) outcome);
  }
}

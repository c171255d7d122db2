package dev.tine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Blocking until a task is done: the last resort of a worker's join, or the only option of a thread
 * outside the pool. The completer's half is {@link TaskStatus#complete}.
 *
 * <p>Protocol: set {@code SIGNAL} with a CAS, then wait on the task's monitor while incomplete. The
 * completer CASes DONE in, sees SIGNAL in the value it replaced, and notifies under the same
 * monitor, so the wake-up cannot be lost: either the waiter sees DONE before waiting, or it is
 * already waiting when {@code notifyAll} runs. A latent task has no SIGNAL (only its owner writes
 * its status): the waiter polls with backoff until the owner completes it (release store) or
 * promotes it (then the CAS protocol applies).
 */
final class TaskWait {
  /** Polls of a latent task with onSpinWait, then (up to this) with yield, then timed parks. */
  static final int LATENT_SPINS = 64, LATENT_YIELDS = 96;

  private TaskWait() {}

  /**
   * Blocks until {@code task} is done, or {@code nanos} passed; returns the status seen last.
   *
   * @param nanos 0 to wait forever
   * @throws InterruptedException only when {@code interruptible}; otherwise an interrupt is kept
   *     and restored on return
   */
  static int awaitDone(TaskStatus task, boolean interruptible, long nanos)
      throws InterruptedException {
    long deadline = nanos == 0L ? 0L : System.nanoTime() + nanos;
    boolean interrupted = false;
    int s;
    int polls = 0;
    try {
      while ((s = task.status) >= 0) {
        if ((s & TaskStatus.LATENT) != 0) {
          if (deadline != 0L && deadline - System.nanoTime() <= 0L) {
            return s;
          }
          if (++polls < LATENT_SPINS) {
            Thread.onSpinWait();
          } else if (polls < LATENT_YIELDS) {
            Thread.yield();
          } else {
            LockSupport.parkNanos(
                task, Math.min(1_000_000L, 1_000L << Math.min(10, (polls - LATENT_YIELDS) / 8)));
            if (Thread.interrupted()) {
              if (interruptible) {
                throw new InterruptedException();
              }
              interrupted = true;
            }
          }
          continue;
        }
        if (!task.trySignal(s)) {
          continue;
        }
        synchronized (task) {
          if (task.status < 0) {
            continue;
          }
          long waitMs = 0L;
          if (deadline != 0L) {
            long left = deadline - System.nanoTime();
            if (left <= 0L) {
              return task.status;
            }
            waitMs = Math.max(1L, TimeUnit.NANOSECONDS.toMillis(left));
          }
          try {
            task.wait(waitMs);
          } catch (InterruptedException ie) {
            if (interruptible) {
              throw ie;
            }
            interrupted = true;
          }
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    return s;
  }
}

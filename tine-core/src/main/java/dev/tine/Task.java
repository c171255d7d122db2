package dev.tine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * A fork/join task: the unit of work of a {@link WorkStealingPool}, shaped like the JDK's {@code
 * RecursiveTask} so that code written for it ports by renaming. Use {@code Task<Void>} (returning
 * {@code null}) for actions.
 *
 * <pre>{@code
 * class Fib extends Task<Long> {
 *   final int n;
 *   Fib(int n) { this.n = n; }
 *   protected Long compute() {
 *     if (n < 2) return (long) n;
 *     Fib f1 = new Fib(n - 2);
 *     f1.fork();
 *     return new Fib(n - 1).compute() + f1.join();
 *   }
 * }
 * long r = pool.invoke(new Fib(40));
 * }</pre>
 *
 * <p>Outcomes: {@link #join}, {@link #invoke} and {@link #invokeAll} rethrow what {@link #compute}
 * threw, the same object with its original stack trace: a {@link RuntimeException}, an {@link
 * Error}, or a checked exception thrown sneakily, which arrives as itself (as from the JDK's {@code
 * ForkJoinTask.join}), whether the task ran in the joining thread or in another. {@link #get} wraps
 * it in an {@link ExecutionException}, as the {@link Future} contract requires. A cancelled task
 * reports {@link CancellationException}.
 *
 * <p>A task runs at most once. Forking the same task object twice before it completes is a
 * programming error whose effect is unspecified (as in the JDK).
 *
 * @param <V> the result type
 */
public abstract class Task<V> implements Future<V> {
  /*
   * status: >= 0 while incomplete; negative (DONE set) once complete, after which it never changes
   * except for the SIGNAL bit, which is irrelevant once DONE. Completion is a CAS from an
   * incomplete value, so exactly one of {normal, exceptional, cancelled} wins. `outcome` is
   * written before that CAS (release) and read after seeing DONE (acquire).
   */
  static final int DONE = 1 << 31;
  static final int ABNORMAL = 1 << 30; // cancelled or thrown
  static final int THROWN = 1 << 29; // outcome holds the Throwable

  /**
   * A latent fork: recorded in its owner's worker-private LatentStack, invisible to thieves. While
   * this bit is set only the owner writes status (it completes the task with a release store, no
   * CAS, or clears the bit when it promotes the task); other threads only read it and poll.
   */
  static final int LATENT = 1 << 28;

  static final int PROMOTED = 1 << 1; // was latent, then promoted to the deque (for counters)
  static final int SIGNAL = 1; // some thread is blocked in awaitDone and must be notified

  private static final VarHandle STATUS;

  static {
    try {
      STATUS = MethodHandles.lookup().findVarHandle(Task.class, "status", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private volatile int status;

  /**
   * The result or the Throwable once complete. Before that, for a stolen task, the thief (a {@link
   * Worker}): a hint for joiners, who help by stealing back from it (Lea's helping,
   * "leapfrogging"). One field for both keeps a task at two words plus its own fields (the JDK's
   * size), which is measurable in fork-heavy programs; it is safe because only the thread running
   * the task writes either (the thief, before it runs the task, then its outcome), and the hint is
   * read only while the task is incomplete. A racy or stale hint only makes helping less targeted.
   */
  private Object outcome;

  /** Creates a task. */
  protected Task() {}

  /**
   * The computation. Runs at most once, on a pool worker (or the caller, for {@link #invoke}).
   *
   * @return the task's result
   */
  protected abstract V compute();

  /**
   * A task that computes {@code body.get()}: for lambdas, e.g. {@code pool.invoke(Task.of(() ->
   * fib(40)))}.
   *
   * @param <V> the result type
   * @param body computes the result
   * @return a new task, not yet forked
   */
  public static <V> Task<V> of(java.util.function.Supplier<? extends V> body) {
    java.util.Objects.requireNonNull(body, "body");
    return new Task<>() {
      @Override
      protected V compute() {
        return body.get();
      }
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Fork, join, invoke

  /**
   * Schedules this task to run asynchronously. From a pool worker the fork is <em>latent</em> by
   * default: recorded privately, run by a direct call when joined, and made stealable (promoted)
   * only when its worker's deque is empty (parallelism above 1) or some worker is hungry; a pool
   * built with {@code eagerForks(true)} pushes it on the worker's deque at once. From any other
   * thread it goes to the {@linkplain WorkStealingPool#commonPool() common pool}.
   *
   * <p>Other threads may wait for, or try to cancel, a forked task once the fork has happened (for
   * example after it was handed to them through a concurrent collection); doing so <em>concurrently
   * with</em> the {@code fork()} call itself is a race the caller must avoid.
   *
   * @return this task, for chaining
   */
  public final Task<V> fork() {
    if (Thread.currentThread() instanceof Worker w) {
      w.fork(this);
    } else {
      WorkStealingPool.commonPool().externalPush(this);
    }
    return this;
  }

  /**
   * Returns the result when the task is done. A worker that must wait helps instead: it runs its
   * own pending forks and tasks stolen from whoever stole this one, and blocks only as a last
   * resort.
   *
   * @return the task's result
   * @throws CancellationException if the task was cancelled
   * @throws RuntimeException or Error thrown by {@link #compute} (the same object), or a checked
   *     exception it threw sneakily (the same object, undeclared)
   */
  public final V join() {
    int s = status;
    if (s >= 0) {
      try {
        s = awaitJoin();
      } catch (Throwable e) {
        // Thrown inside the runtime's join (at awaitJoin's entry, say), before this task's own
        // try: record the task in case it is still our unstarted fork, so that the fork is not
        // left behind its failed join (see Worker.pendingIfLeft). Plain stores only (currentThread
        // is an intrinsic when compiled): a call here would overflow like the one that failed.
        if (Thread.currentThread() instanceof Worker w && w.pendingCount < Worker.PENDING_MAX) {
          int n = w.pendingCount;
          w.pendingTasks[n] = this;
          w.pendingErrors[n] = e;
          w.pendingIfLeft[n] = true;
          w.pendingCount = n + 1;
        }
        throw e;
      }
    }
    return report(s);
  }

  /**
   * Runs this task in the calling thread and returns its result. From a non-worker thread its forks
   * go to the common pool; use {@link WorkStealingPool#invoke} to pick a pool.
   *
   * @return the task's result, as {@link #join()} reports it
   */
  public final V invoke() {
    if (!(Thread.currentThread() instanceof Worker w)) {
      return WorkStealingPool.commonPool().invokeTask(this);
    }
    int s = doExec(w);
    if (s >= 0) {
      s = awaitJoin(); // cancelled mid-run by another thread: status is already final
    }
    return report(s);
  }

  /**
   * Runs both tasks and returns when both are done (Lea's {@code coInvoke}): forks {@code b}, runs
   * {@code a} in the caller, then joins {@code b}. If either throws, the first exception (in
   * argument order) is rethrown after both are done.
   *
   * @param a run in the caller
   * @param b forked, then joined
   */
  public static void invokeAll(Task<?> a, Task<?> b) {
    if (!(Thread.currentThread() instanceof Worker w)) {
      WorkStealingPool.commonPool().invokeTask(new InvokeAllTask(new Task<?>[] {a, b}));
      return;
    }
    int sa, sb;
    try {
      b.fork();
      sa = a.doExec(w);
      if (sa >= 0) {
        sa = a.awaitJoin();
      }
      sb = b.status;
      if (sb >= 0) {
        sb = b.awaitJoin();
      }
    } catch (Throwable e) { // inside the runtime (a call's entry), not thrown by a or b
      int n = w.pendingCount; // b must not be left behind (Worker.pendingIfLeft)
      if (n < Worker.PENDING_MAX) {
        w.pendingTasks[n] = b;
        w.pendingErrors[n] = e;
        w.pendingIfLeft[n] = true;
        w.pendingCount = n + 1;
      }
      throw e;
    }
    a.reportIfAbnormal(sa);
    b.reportIfAbnormal(sb);
  }

  /**
   * Runs all tasks and returns when all are done: forks all but the first, runs the first, then
   * joins the rest in fork order. The first exception in argument order is rethrown after all are
   * done.
   *
   * @param tasks the tasks, none forked yet
   */
  public static void invokeAll(Task<?>... tasks) {
    if (tasks.length == 0) {
      return;
    }
    if (!(Thread.currentThread() instanceof Worker w)) {
      WorkStealingPool.commonPool().invokeTask(new InvokeAllTask(tasks.clone()));
      return;
    }
    try {
      for (int i = tasks.length - 1; i >= 1; i--) {
        tasks[i].fork(); // push in reverse so the owner pops tasks[1] first, thieves the last
      }
      int s0 = tasks[0].doExec(w);
      if (s0 >= 0) {
        tasks[0].awaitJoin();
      }
      for (int i = 1; i < tasks.length; i++) {
        if (tasks[i].status >= 0) {
          tasks[i].awaitJoin();
        }
      }
    } catch (Throwable e) { // inside the runtime (a call's entry), not thrown by a task
      for (int i = 1, n; i < tasks.length && (n = w.pendingCount) < Worker.PENDING_MAX; i++) {
        w.pendingTasks[n] = tasks[i]; // Worker.pendingIfLeft
        w.pendingErrors[n] = e;
        w.pendingIfLeft[n] = true;
        w.pendingCount = n + 1;
      }
      throw e;
    }
    for (Task<?> t : tasks) {
      t.reportIfAbnormal(t.status);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Future

  /** True once the task completed normally, exceptionally or by cancellation. */
  @Override
  public final boolean isDone() {
    return status < 0;
  }

  @Override
  public final boolean isCancelled() {
    return (status & (ABNORMAL | THROWN)) == ABNORMAL;
  }

  /** {@return true if the task threw or was cancelled} */
  public final boolean isCompletedAbnormally() {
    return (status & ABNORMAL) != 0;
  }

  /**
   * Cancels the task if it has not completed. A task cancelled before it starts never runs; one
   * cancelled while running keeps running, but its result is discarded and joiners see {@link
   * CancellationException}. A latent fork (not yet promoted) belongs to the worker that forked it:
   * that worker can cancel it, any other thread gets {@code false} (it could not be cancelled), as
   * for a task that is already running.
   *
   * @return true if this call cancelled the task
   */
  public final boolean cancel() {
    int s = status;
    if ((s & LATENT) != 0) {
      if (s >= 0 && Thread.currentThread() instanceof Worker w && w.ownsLatent(this)) {
        STATUS.setRelease(this, DONE | ABNORMAL); // only the owner writes a latent task's status
        return true;
      }
      return false;
    }
    return complete(null, DONE | ABNORMAL);
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

  /** Same as {@link #cancel()}; running tasks are never interrupted. */
  @Override
  public final boolean cancel(boolean mayInterruptIfRunning) {
    return cancel();
  }

  /** {@return the exception the task threw (or a CancellationException), or null} */
  public final Throwable getException() {
    int s = status;
    if ((s & THROWN) != 0) {
      return (Throwable) outcome;
    }
    return (s & ABNORMAL) != 0 ? new CancellationException() : null;
  }

  /**
   * Waits for the result. From a pool worker it helps as {@link #join} does; unlike {@code join} it
   * throws {@link InterruptedException} if the thread is interrupted before or while it waits (a
   * flag that a task run inside the wait leaves behind is that task's, and is cleared).
   */
  @Override
  public final V get() throws InterruptedException, ExecutionException {
    int s = status;
    if (s >= 0) {
      if (Thread.currentThread() instanceof Worker w) {
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        s = HelpingJoin.awaitGet(w, this, 0L);
      } else {
        s = awaitDone(true, 0L);
      }
    }
    return reportForGet(s);
  }

  /**
   * Waits at most the given time. From a pool worker it helps as {@link #join} does (it runs the
   * task itself if it is the worker's own unstarted fork, so it can return at once), and gives up
   * at the deadline.
   */
  @Override
  public final V get(long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    long nanos = unit.toNanos(timeout);
    int s = status;
    if (s >= 0) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      if (Thread.currentThread() instanceof Worker w) {
        long deadline = System.nanoTime() + Math.max(1L, nanos);
        s = HelpingJoin.awaitGet(w, this, deadline == 0L ? 1L : deadline);
      } else {
        s = awaitDone(true, Math.max(1L, nanos));
      }
      if (s >= 0) {
        throw new TimeoutException("task not done after " + timeout + " " + unit);
      }
    }
    return reportForGet(s);
  }

  /** {@return the result of a normally completed task, else null; does not wait} */
  @SuppressWarnings("unchecked")
  public final V getNow() {
    return (status & (DONE | ABNORMAL)) == DONE ? (V) outcome : null;
  }

  @Override
  public String toString() {
    int s = status;
    String state =
        s >= 0
            ? "pending"
            : (s & THROWN) != 0 ? "failed: " + outcome : (s & ABNORMAL) != 0 ? "cancelled" : "done";
    return getClass().getName() + "[" + state + "]";
  }

  // ---------------------------------------------------------------------------------------------
  // Internals shared with Worker and WorkStealingPool

  final int status() {
    return status;
  }

  /**
   * Runs compute() if the task is still incomplete; returns the status afterwards. A latent task
   * (run by its owner, the only thread that writes its status) completes with a release store; a
   * task other threads may have seen (promoted, submitted) completes with a CAS.
   *
   * <p>Errors inside the runtime: the completion is inside the try, and the handler records the
   * task in the worker's pending list with plain stores before it calls anything, so a task whose
   * completion itself overflows the stack is completed later, from a shallower frame ({@link
   * Worker#completePending}). The worker that handed this task over sets {@code inHand} before
   * calling; it is cleared once we are inside, so a task is never lost at the call's entry.
   *
   * @param w the worker running it, or null on another thread
   */
  final int doExec(Worker w) {
    if (w != null && w.inHand == this) {
      w.inHand = null; // we are inside: from here on an error completes the task
    }
    int s = status;
    if (s >= 0) {
      try {
        V v = compute();
        if (w != null && w.pendingCount != 0) {
          w.completePending(); // a task below us could not complete: it must not end after us
        }
        finish(s, v, DONE);
      } catch (Throwable ex) {
        // No call before the task is recorded: a call here can overflow just as compute() did.
        if (w != null && w.pendingCount < Worker.PENDING_MAX) {
          int n = w.pendingCount;
          w.pendingTasks[n] = this;
          w.pendingErrors[n] = ex;
          w.pendingIfLeft[n] = false;
          w.pendingCount = n + 1;
          w.completePending(); // may overflow again: then a shallower frame finishes the job
        } else {
          completeFailed(ex);
        }
      }
      s = status;
    }
    return s;
  }

  /**
   * The owner's inline join: this task is the newest entry of {@code w}'s latent stack. It is taken
   * off inside the try, so an error at any point completes it rather than losing it.
   */
  final int execLatent(Worker w) {
    int s = status;
    try {
      Promotion.takeLatentTop(w);
      if (s >= 0) {
        V v = compute();
        finish(s, v, DONE);
      }
    } catch (Throwable ex) {
      // No call before the task is recorded: a call here can overflow just as compute() did.
      if (w != null && w.pendingCount < Worker.PENDING_MAX) {
        int n = w.pendingCount;
        w.pendingTasks[n] = this;
        w.pendingErrors[n] = ex;
        w.pendingIfLeft[n] = false;
        w.pendingCount = n + 1;
        w.completePending(); // may overflow again: then a shallower frame finishes the job
      } else {
        completeFailed(ex);
      }
    }
    return status;
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

  private void finish(int startStatus, Object value, int doneBits) {
    if ((startStatus & LATENT) != 0 && status == startStatus) {
      // Still latent and untouched (only this thread could have changed it): no CAS needed.
      if (value != null) {
        outcome = value;
      }
      STATUS.setRelease(this, doneBits);
    } else {
      complete(value, doneBits, true);
    }
  }

  /** The thief that runs this task, while it is incomplete; null if none or not known. */
  final Worker stealer() {
    return outcome instanceof Worker w && status >= 0 ? w : null;
  }

  /** A thief, before it runs the task it stole. */
  final void setStealer(Worker w) {
    outcome = w;
  }

  /** True if the task was never forked, run or cancelled. */
  final boolean isFresh() {
    return status == 0;
  }

  /**
   * Owner only, right after recording a fresh task in its latent stack. If an error stops us before
   * this store, the entry is simply a non-latent task that its owner runs or promotes.
   */
  final void setLatent() {
    STATUS.set(this, LATENT);
  }

  /**
   * Owner only: the task leaves its latent stack for the deque. The release store orders this
   * before the deque push that publishes the task; from here on status changes by CAS only.
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

  final boolean wasPromoted() {
    return (status & PROMOTED) != 0;
  }

  /**
   * Completes with the given outcome unless already complete; wakes blocked joiners. Only the
   * thread running the task passes a value; {@link #cancel} passes none and writes no outcome, so a
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

  /** Wait for completion in the calling thread: help if it is a worker, else block. */
  final int awaitJoin() {
    if (Thread.currentThread() instanceof Worker w) {
      return HelpingJoin.awaitJoin(w, this, 0L);
    }
    try {
      return awaitDone(false, 0L);
    } catch (InterruptedException e) {
      throw new AssertionError(e); // not thrown when interruptible == false
    }
  }

  /**
   * Blocks until done (the last resort of a worker's join, or the only option of an outside
   * thread). Protocol: set SIGNAL with a CAS, then wait on this object's monitor while incomplete.
   * The completer CASes DONE in, sees SIGNAL in the value it replaced, and notifies under the same
   * monitor, so the wake-up cannot be lost: either the waiter sees DONE before waiting, or it is
   * already waiting when notifyAll runs.
   *
   * @param nanos 0 to wait forever
   */
  final int awaitDone(boolean interruptible, long nanos) throws InterruptedException {
    long deadline = nanos == 0L ? 0L : System.nanoTime() + nanos;
    boolean interrupted = false;
    int s;
    int polls = 0;
    try {
      while ((s = status) >= 0) {
        if ((s & LATENT) != 0) {
          // Only the owner writes a latent task's status, so no SIGNAL: poll with backoff until
          // the owner completes it (release store) or promotes it (then the CAS protocol applies).
          if (deadline != 0L && deadline - System.nanoTime() <= 0L) {
            return s;
          }
          if (++polls < 64) {
            Thread.onSpinWait();
          } else if (polls < 96) {
            Thread.yield();
          } else {
            LockSupport.parkNanos(
                this, Math.min(1_000_000L, 1_000L << Math.min(10, (polls - 96) / 8)));
            if (Thread.interrupted()) {
              if (interruptible) {
                throw new InterruptedException();
              }
              interrupted = true;
            }
          }
          continue;
        }
        if ((s & SIGNAL) == 0 && !STATUS.compareAndSet(this, s, s | SIGNAL)) {
          continue;
        }
        synchronized (this) {
          if (status < 0) {
            continue;
          }
          long waitMs = 0L;
          if (deadline != 0L) {
            long left = deadline - System.nanoTime();
            if (left <= 0L) {
              return status;
            }
            waitMs = Math.max(1L, TimeUnit.NANOSECONDS.toMillis(left));
          }
          try {
            wait(waitMs);
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

  @SuppressWarnings("unchecked")
  private V report(int s) {
    if ((s & ABNORMAL) != 0) {
      throw failure(s);
    }
    return (V) outcome;
  }

  private void reportIfAbnormal(int s) {
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

  @SuppressWarnings("unchecked")
  private V reportForGet(int s) throws ExecutionException {
    if ((s & ABNORMAL) == 0) {
      return (V) outcome;
    }
    if ((s & THROWN) == 0) {
      throw new CancellationException("task was cancelled: " + getClass().getName());
    }
    throw new ExecutionException((Throwable) outcome);
  }

  /** invokeAll from a non-worker thread: run the group as one root task on the common pool. */
  private static final class InvokeAllTask extends Task<Void> {
    private final Task<?>[] tasks;

    InvokeAllTask(Task<?>[] tasks) {
      this.tasks = tasks;
    }

    @Override
    protected Void compute() {
      invokeAll(tasks);
      return null;
    }
  }
}

package dev.tine;

import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
public abstract class Task<V> extends TaskStatus implements Future<V> {
  // The status word and its writers are TaskStatus's, blocking until done TaskWait's. This file is
  // the API and the frames that run and join a task (doExec, execLatent, join, invokeAll): each
  // records its task in the worker's pending list itself, with plain stores and no call, when an
  // error strikes inside the runtime (Worker's class comment, rules 3 and 4).

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
    schedule(this);
    return this;
  }

  /**
   * {@link #fork}'s work, static so that invokeAll's forks are no receiver call whose profiled
   * class the JIT would carry to the task's join (see {@link #callCompute}).
   */
  private static void schedule(Task<?> t) {
    if (Thread.currentThread() instanceof Worker w) {
      w.fork(t);
    } else {
      WorkStealingPool.commonPool().externalPush(t);
    }
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
  @SuppressWarnings("unchecked") // outcome holds a V once the task completed normally
  public final V join() {
    int s = status;
    if (s >= 0) {
      try {
        s = awaitJoin(this);
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
    return (V) report(s);
  }

  /**
   * Runs this task in the calling thread and returns its result. From a non-worker thread its forks
   * go to the common pool; use {@link WorkStealingPool#invoke} to pick a pool.
   *
   * @return the task's result, as {@link #join()} reports it
   */
  @SuppressWarnings("unchecked") // outcome holds a V once the task completed normally
  public final V invoke() {
    if (!(Thread.currentThread() instanceof Worker w)) {
      return WorkStealingPool.commonPool().invokeTask(this);
    }
    int s = doExec(this, w);
    if (s >= 0) {
      s = awaitJoin(this); // cancelled mid-run by another thread: status is already final
    }
    return (V) report(s);
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
      WorkStealingPool.commonPool().invokeTask(asOne(new Task<?>[] {a, b}));
      return;
    }
    int sa, sb;
    try {
      schedule(b);
      sa = doExec(a, w);
      if (sa >= 0) {
        sa = awaitJoin(a);
      }
      sb = b.status;
      if (sb >= 0) {
        sb = awaitJoin(b);
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
   * {@link #invokeAll(Task...)} over a collection, as {@code ForkJoinTask.invokeAll(Collection)}.
   *
   * @param <T> the tasks' type
   * @param tasks the tasks, none forked yet
   * @return {@code tasks}
   */
  public static <T extends Task<?>> java.util.Collection<T> invokeAll(
      java.util.Collection<T> tasks) {
    invokeAll(tasks.toArray(new Task<?>[0]));
    return tasks;
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
      WorkStealingPool.commonPool().invokeTask(asOne(tasks.clone()));
      return;
    }
    try {
      for (int i = tasks.length - 1; i >= 1; i--) {
        schedule(tasks[i]); // push in reverse so the owner pops tasks[1] first, thieves the last
      }
      int s0 = doExec(tasks[0], w);
      if (s0 >= 0) {
        awaitJoin(tasks[0]);
      }
      for (int i = 1; i < tasks.length; i++) {
        if (tasks[i].status >= 0) {
          awaitJoin(tasks[i]);
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
        cancelOwnLatent(); // only the owner writes a latent task's status
        return true;
      }
      return false;
    }
    return complete(null, DONE | ABNORMAL);
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
   * Waits for the result. From a pool worker it helps as {@link #join} does, but runs only this
   * task and its own forks, never the caller's other forks (as the JDK's {@code get}); unlike
   * {@code join} it throws {@link InterruptedException} if the thread is interrupted before or
   * while it waits (a flag that a task run inside the wait leaves behind is that task's, and is
   * cleared).
   */
  @SuppressWarnings("unchecked") // outcome holds a V once the task completed normally
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
        s = TaskWait.awaitDone(this, true, 0L);
      }
    }
    return (V) reportForGet(s);
  }

  /**
   * Waits at most the given time. From a pool worker it helps as {@link #get()} does (it runs the
   * task itself if it is the worker's own unstarted fork, so it can return at once), and gives up
   * at the deadline.
   */
  @SuppressWarnings("unchecked") // outcome holds a V once the task completed normally
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
        s = TaskWait.awaitDone(this, true, Math.max(1L, nanos));
      }
      if (s >= 0) {
        throw new TimeoutException(
            "task not done within " + timeout + " " + unit.name().toLowerCase(Locale.ROOT));
      }
    }
    return (V) reportForGet(s);
  }

  /** {@return the result of a normally completed task, else null; does not wait} */
  @SuppressWarnings("unchecked")
  public final V getNow() {
    return (status & (DONE | ABNORMAL)) == DONE ? (V) outcome : null;
  }

  // ---------------------------------------------------------------------------------------------
  // ForkJoinTask's other methods, for code ported by renaming (TaskPortingTest checks each against
  // the JDK's ForkJoinTask in the same scenario)

  /** {@return true if the task completed without throwing and was not cancelled} */
  public final boolean isCompletedNormally() {
    return (status & (DONE | ABNORMAL)) == DONE;
  }

  /**
   * {@return the result if the task completed normally, else null, as {@code
   * RecursiveTask.getRawResult}}
   *
   * @see #getNow()
   */
  public final V getRawResult() {
    return getNow();
  }

  /**
   * Waits for the task as {@link #join()} does, without returning its result or throwing its
   * exception; read them with {@link #isCompletedAbnormally()}, {@link #getException()} and {@link
   * #getRawResult()}. An error of the runtime itself (an overflow at this call, say) still
   * propagates: the task is then not complete.
   */
  public final void quietlyJoin() {
    try {
      join();
    } catch (Throwable e) {
      if (!isDone()) {
        throw e;
      }
    }
  }

  /** Runs the task as {@link #invoke()} does, without returning its result or throwing. */
  public final void quietlyInvoke() {
    try {
      invoke();
    } catch (Throwable e) {
      if (!isDone()) {
        throw e;
      }
    }
  }

  /**
   * Takes this task back if it is the newest fork of the calling worker and has not started: it
   * will then not run unless forked or invoked again. As the JDK's {@code tryUnfork}, for code that
   * forks and then decides to compute in place.
   *
   * @return true if the task was taken back
   */
  public boolean tryUnfork() {
    if (!(Thread.currentThread() instanceof Worker w)) {
      return false;
    }
    if (w.latentForks) {
      w.latent.dropTakenOnTop(); // a get() of an older fork left them: nothing to run
      if (w.latent.isNewest(this)) {
        LatentJoins.takeLatentTop(w);
        clearLatent();
        return true;
      }
      if (w.latent.size() > 0) {
        return false; // a latent fork is newer than anything in the deque (promotion takes the
        // oldest)
      }
    }
    // The deque's top is the newest fork. pop() returns it, or null if a thief took it meanwhile.
    if (w.deque.peek() == this && w.deque.pop() == this) {
      if (w.promoteIntoEmptyDeque) {
        w.latent.dequeEmptied = 1; // perhaps the last: restock at the next fork or join (its rule)
      }
      return true;
    }
    return false;
  }

  /**
   * Forgets the task's outcome so that it can be forked or invoked again, as the JDK's {@code
   * reinitialize}. Only for a task that has completed (or never started): the effect on a task that
   * is queued or running is undefined.
   */
  public void reinitialize() {
    resetOutcome();
  }

  /**
   * Runs tasks until the current worker's pool is quiescent: its own forks first, then whatever it
   * can steal; returns when no task is queued anywhere and every other worker is idle. For programs
   * that fork tasks and never join them (the fork/join tuning study's quicksort), as the JDK's
   * {@code ForkJoinTask.helpQuiesce}. Outside a pool, waits for the common pool to be quiescent.
   */
  public static void helpQuiesce() {
    if (Thread.currentThread() instanceof Worker w) {
      Quiescence.helpQuiesce(w, 0L);
    } else {
      Quiescence.await(WorkStealingPool.commonPool(), Long.MAX_VALUE);
    }
  }

  /**
   * {@return the pool of the current worker, or null outside a pool, as {@code
   * ForkJoinTask.getPool}}
   */
  public static WorkStealingPool getPool() {
    return Thread.currentThread() instanceof Worker w ? w.pool : null;
  }

  /**
   * {@return whether the current thread is a pool's worker, as {@code ForkJoinTask.inForkJoinPool}}
   */
  public static boolean inWorkStealingPool() {
    return Thread.currentThread() instanceof Worker;
  }

  /**
   * {@return the current worker's forks not yet run (latent and in its deque), or 0 outside a pool,
   * as {@code ForkJoinTask.getQueuedTaskCount}}
   */
  public static int getQueuedTaskCount() {
    if (Thread.currentThread() instanceof Worker w) {
      return (w.latentForks ? w.latent.sizeWithoutTaken() : 0) + w.deque.size();
    }
    return 0;
  }

  /**
   * An estimate of how many more forks the current worker holds than other workers could take, as
   * the JDK's {@code ForkJoinTask.getSurplusQueuedTaskCount} (with the same formula: the worker's
   * unrun forks, latent ones included, less a number that shrinks as more workers are busy). Code
   * that forks only while this is small (Lea's heuristic, {@code > 3}) behaves as on the JDK; with
   * latent forks, forking every call usually costs less than the test.
   *
   * @return the estimate (may be negative), or 0 outside a pool
   */
  public static int getSurplusQueuedTaskCount() {
    if (!(Thread.currentThread() instanceof Worker w)) {
      return 0;
    }
    int n = getQueuedTaskCount();
    int p = w.pool.parallelism();
    int a = w.pool.getActiveThreadCount();
    int spare;
    if (a > (p >>>= 1)) {
      spare = 0;
    } else if (a > (p >>>= 1)) {
      spare = 1;
    } else if (a > (p >>>= 1)) {
      spare = 2;
    } else if (a > (p >>>= 1)) {
      spare = 4;
    } else {
      spare = 8;
    }
    return n - spare;
  }

  /**
   * {@return a task that runs {@code runnable} and completes with null, as {@code
   * ForkJoinTask.adapt(Runnable)}}
   *
   * @param runnable the action
   */
  public static Task<?> adapt(Runnable runnable) {
    java.util.Objects.requireNonNull(runnable, "runnable");
    return of(() -> {
      runnable.run();
      return null;
    });
  }

  /**
   * {@return a task that runs {@code runnable} and completes with {@code result}, as {@code
   * ForkJoinTask.adapt(Runnable, T)}}
   *
   * @param <T> the result type
   * @param runnable the action
   * @param result the task's result
   */
  public static <T> Task<T> adapt(Runnable runnable, T result) {
    java.util.Objects.requireNonNull(runnable, "runnable");
    return of(() -> {
      runnable.run();
      return result;
    });
  }

  /**
   * {@return a task that computes {@code callable.call()}, as {@code ForkJoinTask.adapt(Callable)}:
   * a checked exception it throws is rethrown as the cause of a {@link RuntimeException}}
   *
   * @param <T> the result type
   * @param callable the computation
   */
  public static <T> Task<T> adapt(Callable<? extends T> callable) {
    java.util.Objects.requireNonNull(callable, "callable");
    return of(() -> {
      try {
        return callable.call();
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
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
  // Running and joining (package-private)

  /**
   * The runtime's one call of {@link #compute} (the run loop's, an invoke's, an inline join's): a
   * call site whose type profile is made polymorphic once, at class initialization, by two classes
   * that never run again ({@link #seedComputeProfile}).
   *
   * <p>Why: the JIT compiles the runtime's join methods ({@code join}, {@code execLatent}, {@code
   * doExec}) on their own as well as into the user's code. With a profile that says "one task
   * class", such a compile inlines that class's {@code compute()}, with the user's recursion
   * inside, and becomes a big method; a later compile of the user's {@code compute()} then refuses
   * to inline the join ("already compiled into a big method"), and every join is a real call. Which
   * compile comes first is a race of the JIT's queue, so the same program ran at 5.5 or 6.4 times
   * sequential in different JVMs (the latent-forks design note). With the profile polymorphic from
   * the start, the join's own compile calls {@code compute()} virtually and stays small, so it is
   * always inlined at the user's join, where the task's exact class is usually known (it was
   * allocated there: {@code new Fib(n - 2).fork()}), and {@code compute()} is inlined by its class,
   * not by the profile.
   *
   * <p>The profile here is not the only way a compile can learn the class: the JIT's first tier
   * records the receiver's class at every {@code invokevirtual}, final methods included, and C2
   * gives a receiver that one class saw as a speculative type that follows the object into inlined
   * callees. A {@code this.awaitJoin()} in {@code join} would so hand the task's class down to this
   * call, and a standalone compile of the join would inline {@code compute()} after all. So the
   * methods between the API and this call ({@code awaitJoin}, {@code execLatent}, {@code doExec},
   * the fork inside {@code invokeAll}) are static and take the task as an argument: the first tier
   * profiles no receiver at a static call, and argument types only at {@code invokedynamic} and
   * method-handle calls (the latent-forks design note).
   */
  private static <V> V callCompute(Task<V> t) {
    return t.compute();
  }

  static {
    seedComputeProfile();
  }

  /**
   * Fills {@link #callCompute}'s type profile (two receiver rows) with two classes used only here;
   * the rows are never given up, so every later class counts as "other" and no compile inlines a
   * task's {@code compute()} from the profile alone. Enough calls for the JIT's first tier to
   * record them (a millisecond or two, once per JVM).
   */
  private static void seedComputeProfile() {
    Task<Object> a =
        new Task<>() {
          @Override
          protected Object compute() {
            return null;
          }
        };
    Task<Object> b =
        new Task<>() {
          @Override
          protected Object compute() {
            return this;
          }
        };
    Object sink = null;
    for (int i = 0; i < 20_000; i++) {
      sink = callCompute(a);
      sink = callCompute(b) == sink ? a : b;
    }
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
  static <V> int doExec(Task<V> t, Worker w) {
    if (w != null && w.inHand == t) {
      w.inHand = null; // we are inside: from here on an error completes the task
    }
    int s = t.status;
    if (s >= 0) {
      try {
        V v = callCompute(t);
        if (w != null && w.pendingCount != 0) {
          w.completePending(); // a task below us could not complete: it must not end after us
        }
        t.finish(s, v, DONE);
      } catch (Throwable ex) {
        // No call before the task is recorded: a call here can overflow just as compute() did.
        if (w != null && w.pendingCount < Worker.PENDING_MAX) {
          int n = w.pendingCount;
          w.pendingTasks[n] = t;
          w.pendingErrors[n] = ex;
          w.pendingIfLeft[n] = false;
          w.pendingCount = n + 1;
          w.completePending(); // may overflow again: then a shallower frame finishes the job
        } else {
          t.completeFailed(ex);
        }
      }
      s = t.status;
    }
    return s;
  }

  /**
   * The owner's inline join: this task is the newest entry of {@code w}'s latent stack. It is taken
   * off inside the try, so an error at any point completes it rather than losing it.
   */
  static <V> int execLatent(Task<V> t, Worker w) {
    int s = t.status;
    try {
      LatentJoins.takeLatentTop(w);
      if (s >= 0) {
        V v = callCompute(t);
        t.finish(s, v, DONE);
      }
    } catch (Throwable ex) {
      // No call before the task is recorded: a call here can overflow just as compute() did.
      if (w != null && w.pendingCount < Worker.PENDING_MAX) {
        int n = w.pendingCount;
        w.pendingTasks[n] = t;
        w.pendingErrors[n] = ex;
        w.pendingIfLeft[n] = false;
        w.pendingCount = n + 1;
        w.completePending(); // may overflow again: then a shallower frame finishes the job
      } else {
        t.completeFailed(ex);
      }
    }
    return t.status;
  }

  /** Wait for completion in the calling thread: help if it is a worker, else block. */
  static int awaitJoin(Task<?> t) {
    if (Thread.currentThread() instanceof Worker w) {
      // (0) The newest latent fork is the target: never promoted, so a direct call (an eager
      // pool's latent stack is empty). Here rather than in HelpingJoin: one frame fewer to inline.
      if (w.latent.isNewest(t)) {
        if (w.recordStats) w.counters.inlineJoins++;
        return execLatent(t, w);
      }
      return HelpingJoin.awaitJoin(w, t);
    }
    try {
      return TaskWait.awaitDone(t, false, 0L);
    } catch (InterruptedException e) {
      throw new AssertionError(e); // not thrown when interruptible == false
    }
  }

  /** invokeAll from a non-worker thread: the group as one root task for the common pool. */
  private static Task<Void> asOne(Task<?>[] tasks) {
    return of(() -> {
      invokeAll(tasks);
      return null;
    });
  }
}

package dev.tine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code invokeAll} and {@code invokeAny} for {@link WorkStealingPool}: a group of callables run as
 * tasks and awaited together. From outside the pool they are submitted and awaited with {@code
 * get}. From a worker of the pool an untimed invokeAll joins (joins help, so the group runs even at
 * parallelism 1); a timed one, and invokeAny, must not run a candidate in place (it might block
 * past the deadline or the winner), so they wait as a managed block, which lets the pool run a
 * spare worker meanwhile.
 */
final class InvokeGroup {
  private InvokeGroup() {}

  /**
   * @param deadline a nanoTime, or 0 for none
   */
  static <T> List<Future<T>> invokeAll(
      WorkStealingPool pool, Collection<? extends Callable<T>> tasks, long deadline)
      throws InterruptedException {
    List<Adapters.CallableTask<T>> fs = adaptAll(tasks);
    try {
      if (deadline != 0L && Thread.currentThread() instanceof Worker w && w.pool == pool) {
        // Joining would run a candidate here, and it might block past the deadline.
        if (!awaitGroup(pool, fs, deadline, false)) {
          cancelAll(fs);
        }
        return new ArrayList<>(fs);
      }
      for (Task<T> f : fs) {
        pool.externalPush(f);
      }
      for (Task<T> f : fs) {
        if (!f.isDone()) {
          try {
            if (deadline == 0L) {
              f.get();
            } else {
              f.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
          } catch (ExecutionException | CancellationException ignored) {
            // reported by that future
          } catch (TimeoutException e) {
            cancelAll(fs);
            break;
          }
        }
      }
      return new ArrayList<>(fs);
    } catch (Throwable t) {
      cancelAll(fs);
      throw t;
    }
  }

  /**
   * invokeAny, from any thread: submits every candidate, waits for the first to complete normally
   * (or for all to fail, or the deadline), then cancels the others and interrupts those running, as
   * the JDK's pool does. From a worker of this pool the wait is a managed block (the pool runs a
   * spare meanwhile), never a join: a join would run a candidate in place, and one that blocks
   * would hold the caller past its deadline, or past the winner.
   *
   * @param deadline a nanoTime, or 0 for none
   */
  static <T> T invokeAny(
      WorkStealingPool pool, Collection<? extends Callable<T>> tasks, long deadline)
      throws InterruptedException, ExecutionException, TimeoutException {
    Thread me = Thread.currentThread();
    List<Candidate<T>> fs = new ArrayList<>(tasks.size());
    for (Callable<T> c : tasks) {
      fs.add(new Candidate<>(Objects.requireNonNull(c, "the collection holds a null task"), me));
    }
    if (fs.isEmpty()) {
      throw new IllegalArgumentException(
          "invokeAny needs at least one task: the collection is empty");
    }
    try {
      awaitGroup(pool, fs, deadline, true);
      ExecutionException last = null;
      for (Task<T> f : fs) {
        if (f.isDone()) {
          try {
            return f.get();
          } catch (ExecutionException e) {
            last = e;
          } catch (CancellationException e) {
            last = new ExecutionException(e);
          }
        }
      }
      for (Task<T> f : fs) {
        if (!f.isDone()) {
          throw new TimeoutException("no task completed normally before the deadline");
        }
      }
      throw last;
    } finally {
      for (Candidate<T> f : fs) {
        f.stop();
      }
    }
  }

  /**
   * An invokeAny candidate: a callable that the losers' cancellation interrupts while it runs. The
   * interrupt never outlives the candidate: {@link #stop} marks the runner before it interrupts and
   * releases it after, and the runner, finishing, waits for that release and clears its flag, so
   * the next task on the thread never sees the loser's interrupt.
   */
  static final class Candidate<T> extends Task<T> {
    private static final VarHandle RUNNER;

    static {
      try {
        RUNNER = MethodHandles.lookup().findVarHandle(Candidate.class, "runner", Object.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    /** Markers for {@link #runner}: a canceller is interrupting the runner; stopped for good. */
    private static final Object INTERRUPTING = new Object(), STOPPED = new Object();

    private final Callable<T> callable;

    /** Unparked as the candidate ends: the thread waiting for the group. */
    private final Thread waiter;

    /** Null before the run, the running thread during it, or one of the markers. */
    private volatile Object runner;

    Candidate(Callable<T> callable, Thread waiter) {
      this.callable = callable;
      this.waiter = waiter;
    }

    @Override
    protected T compute() {
      Thread me = Thread.currentThread();
      if (!RUNNER.compareAndSet(this, null, me)) {
        return null; // stopped before it started: its cancellation is its outcome
      }
      try {
        return callable.call();
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Exception e) {
        throw Adapters.<RuntimeException>sneaky(e); // get() reports it as ExecutionException(e)
      } finally {
        if (!RUNNER.compareAndSet(this, me, null)) {
          while (runner == INTERRUPTING) {
            Thread.onSpinWait(); // the canceller is between its mark and its interrupt
          }
          Thread.interrupted(); // the loser's interrupt was for this candidate only
        }
        LockSupport.unpark(waiter); // it rechecks; the status is set just after this returns
      }
    }

    /** Cancels the candidate unless it is done, and interrupts it if it is running. */
    void stop() {
      if (isDone() || !cancel()) {
        return;
      }
      for (; ; ) {
        Object r = runner;
        if (r == null) {
          if (RUNNER.compareAndSet(this, null, STOPPED)) {
            return;
          }
        } else if (r instanceof Thread t) {
          if (RUNNER.compareAndSet(this, t, INTERRUPTING)) {
            try {
              t.interrupt();
            } finally {
              runner = STOPPED;
            }
            return;
          }
        } else {
          return; // stopped already
        }
      }
    }
  }

  /**
   * From a worker of this pool: submits the group and waits, as a managed block (the pool runs a
   * spare worker meanwhile, so the group runs even at parallelism 1), until every task is done, or
   * with {@code any} until one completed normally, or until the deadline.
   *
   * @return false at the deadline
   */
  private static <T> boolean awaitGroup(
      WorkStealingPool pool, List<? extends Task<T>> fs, long deadline, boolean any)
      throws InterruptedException {
    Thread me = Thread.currentThread();
    for (Task<T> f : fs) {
      if (f instanceof Adapters.CallableTask<T> c) {
        c.waiter = me;
      }
    }
    for (Task<T> f : fs) {
      pool.externalPush(f);
    }
    WorkStealingPool.ManagedBlocker group =
        new WorkStealingPool.ManagedBlocker() {
          @Override
          public boolean isReleasable() {
            boolean all = true;
            for (Task<T> f : fs) {
              if (!f.isDone()) {
                all = false;
              } else if (any && !f.isCompletedAbnormally()) {
                return true;
              }
            }
            return all || (deadline != 0L && deadline - System.nanoTime() <= 0L);
          }

          @Override
          public boolean block() throws InterruptedException {
            for (int i = 0; i < 64 && !isReleasable(); i++) {
              Thread.onSpinWait(); // a task that just unparked us sets its status a moment later
            }
            if (!isReleasable()) {
              long left = deadline == 0L ? 1_000_000L : deadline - System.nanoTime();
              LockSupport.parkNanos(this, Math.min(1_000_000L, Math.max(1L, left)));
            }
            if (Thread.interrupted()) {
              throw new InterruptedException();
            }
            return isReleasable();
          }
        };
    WorkStealingPool.managedBlock(group);
    return deadline == 0L || deadline - System.nanoTime() > 0L || allDone(fs);
  }

  private static boolean allDone(List<? extends Task<?>> fs) {
    for (Task<?> f : fs) {
      if (!f.isDone()) {
        return false;
      }
    }
    return true;
  }

  private static <T> List<Adapters.CallableTask<T>> adaptAll(
      Collection<? extends Callable<T>> tasks) {
    List<Adapters.CallableTask<T>> fs = new ArrayList<>(tasks.size());
    for (Callable<T> c : tasks) {
      fs.add(
          new Adapters.CallableTask<>(
              Objects.requireNonNull(c, "the collection holds a null task")));
    }
    return fs;
  }

  private static void cancelAll(List<? extends Task<?>> fs) {
    for (Task<?> f : fs) {
      f.cancel();
    }
  }
}

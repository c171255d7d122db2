package dev.tine;

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
 * get}. From a worker of the pool an untimed wait joins (joins help, so the group runs even at
 * parallelism 1); a timed one must not run a candidate in place (it might block past the deadline),
 * so it waits as a managed block, which lets the pool run a spare worker meanwhile.
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

  /** Timed invokeAny from a worker of this pool. */
  static <T> T invokeAnyUntil(
      WorkStealingPool pool, Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    List<Adapters.CallableTask<T>> fs = adaptAll(tasks);
    if (fs.isEmpty()) {
      throw new IllegalArgumentException("no tasks");
    }
    try {
      // Joining would run a candidate here, and it might block past the deadline.
      awaitGroup(pool, fs, deadline == 0L ? 1L : deadline, true);
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
          throw new TimeoutException("no task completed normally within " + timeout + " " + unit);
        }
      }
      throw last;
    } finally {
      cancelAll(fs);
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
      WorkStealingPool pool, List<Adapters.CallableTask<T>> fs, long deadline, boolean any)
      throws InterruptedException {
    Thread me = Thread.currentThread();
    for (Adapters.CallableTask<T> f : fs) {
      f.waiter = me;
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
            return all || deadline - System.nanoTime() <= 0L;
          }

          @Override
          public boolean block() throws InterruptedException {
            for (int i = 0; i < 64 && !isReleasable(); i++) {
              Thread.onSpinWait(); // a task that just unparked us sets its status a moment later
            }
            if (!isReleasable()) {
              LockSupport.parkNanos(
                  this, Math.min(1_000_000L, Math.max(1L, deadline - System.nanoTime())));
            }
            if (Thread.interrupted()) {
              throw new InterruptedException();
            }
            return isReleasable();
          }
        };
    WorkStealingPool.managedBlock(group);
    return deadline - System.nanoTime() > 0L || allDone(fs);
  }

  private static boolean allDone(List<? extends Task<?>> fs) {
    for (Task<?> f : fs) {
      if (!f.isDone()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Untimed invokeAny from a worker: joins the tasks in order (joins help: they run at p=1 too).
   */
  static <T> T invokeAnyHelping(WorkStealingPool pool, Collection<? extends Callable<T>> tasks)
      throws InterruptedException, ExecutionException {
    List<Adapters.CallableTask<T>> fs = adaptAll(tasks);
    if (fs.isEmpty()) {
      throw new IllegalArgumentException("no tasks");
    }
    try {
      for (Task<T> f : fs) {
        pool.externalPush(f);
      }
      ExecutionException last = null;
      for (Task<T> f : fs) {
        try {
          return f.get();
        } catch (ExecutionException e) {
          last = e;
        } catch (CancellationException e) {
          last = new ExecutionException(e);
        }
      }
      throw last;
    } finally {
      cancelAll(fs);
    }
  }

  private static <T> List<Adapters.CallableTask<T>> adaptAll(
      Collection<? extends Callable<T>> tasks) {
    List<Adapters.CallableTask<T>> fs = new ArrayList<>(tasks.size());
    for (Callable<T> c : tasks) {
      fs.add(new Adapters.CallableTask<>(Objects.requireNonNull(c, "a task is null")));
    }
    return fs;
  }

  private static void cancelAll(List<? extends Task<?>> fs) {
    for (Task<?> f : fs) {
      f.cancel();
    }
  }
}

package dev.tine;

import java.util.concurrent.Callable;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.locks.LockSupport;

/** Tasks that wrap what {@code ExecutorService} users hand to a {@link WorkStealingPool}. */
final class Adapters {
  private Adapters() {}

  /** A task submitted as a Runnable or Callable; shutdownNow() hands it back if it never ran. */
  interface Submitted {
    Runnable original();
  }

  static final class CallableTask<T> extends Task<T> implements RunnableFuture<T>, Submitted {
    private final Callable<T> callable;

    /** A thread waiting for a group of these (timed invokeAll/invokeAny), unparked as each ends. */
    volatile Thread waiter;

    CallableTask(Callable<T> callable) {
      this.callable = callable;
    }

    @Override
    protected T compute() {
      try {
        return callable.call();
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Exception e) {
        throw Adapters.<RuntimeException>sneaky(e); // reported by get() as ExecutionException(e)
      } finally {
        Thread w = waiter;
        if (w != null) {
          LockSupport.unpark(w); // it rechecks; the status is set just after this returns
        }
      }
    }

    @Override
    public void run() {
      doExec(this, Thread.currentThread() instanceof Worker w ? w : null);
    }

    @Override
    public Runnable original() {
      return this;
    }
  }

  static final class RunnableTask<T> extends Task<T> implements RunnableFuture<T>, Submitted {
    private final Runnable runnable;
    private final T result;

    RunnableTask(Runnable runnable, T result) {
      this.runnable = runnable;
      this.result = result;
    }

    @Override
    protected T compute() {
      runnable.run();
      return result;
    }

    @Override
    public void run() {
      doExec(this, Thread.currentThread() instanceof Worker w ? w : null);
    }

    @Override
    public Runnable original() {
      return this;
    }
  }

  /** execute(): nobody holds the Future, so an escaping exception goes to the handler. */
  static final class ExecuteTask extends Task<Void> implements Submitted {
    private final Runnable runnable;
    private final WorkStealingPool pool;

    ExecuteTask(Runnable runnable, WorkStealingPool pool) {
      this.runnable = runnable;
      this.pool = pool;
    }

    @Override
    protected Void compute() {
      try {
        runnable.run();
      } catch (Throwable t) {
        pool.reportUncaught(t);
        throw t;
      }
      return null;
    }

    @Override
    public Runnable original() {
      return runnable;
    }
  }

  @SuppressWarnings("unchecked")
  static <E extends Throwable> E sneaky(Throwable t) throws E {
    throw (E) t;
  }
}

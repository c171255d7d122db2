package dev.tine.fuzz;

import dev.tine.fuzz.Program.JoinForm;
import dev.tine.fuzz.Program.RangeForm;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntToLongFunction;
import java.util.stream.IntStream;

/**
 * The reference: the program on {@code new ForkJoinPool(p)} with RecursiveTask. Scope and Tine
 * joins become fork/compute/join; ranges become parallel IntStreams, which run in the pool of the
 * worker that starts them.
 */
final class JdkInterpreter extends Interpreter {
  JdkInterpreter(Program program, int parallelism) {
    super(program, parallelism, "jdk");
  }

  private static final class JdkTask extends RecursiveTask<Long> {
    private final Callable<Long> body;

    JdkTask(Callable<Long> body) {
      this.body = body;
    }

    @Override
    protected Long compute() {
      try {
        return body.call();
      } catch (Exception e) {
        throw Failures.sneaky(e); // as the user's own code would: the exception itself
      }
    }
  }

  /** The runtime-neutral face of a task. */
  private record Of(JdkTask task) implements Handle {
    @Override
    public void fork() {
      task.fork();
    }

    @Override
    public long join() {
      return task.join();
    }

    @Override
    public long get() throws InterruptedException, ExecutionException {
      return task.get();
    }

    @Override
    public long get(long timeout, TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException {
      return task.get(timeout, unit);
    }

    @Override
    public boolean cancel() {
      return task.cancel(true);
    }

    @Override
    public boolean tryUnfork() {
      return task.tryUnfork();
    }

    @Override
    public long invoke() {
      return task.invoke();
    }

    @Override
    public void quietlyJoin() {
      task.quietlyJoin();
    }
  }

  @Override
  Object newPool(int parallelism, String threadPrefix) {
    ForkJoinPool.ForkJoinWorkerThreadFactory factory =
        pool -> {
          ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
          t.setName(threadPrefix + t.getName());
          return t;
        };
    // The same limits as new ForkJoinPool(p): up to 32767 compensating threads.
    return new ForkJoinPool(parallelism, factory, null, false);
  }

  @Override
  void closePool(Object pool) {
    ((ForkJoinPool) pool).close();
  }

  @Override
  void killPool(Object pool) {
    ((ForkJoinPool) pool).shutdownNow();
  }

  @Override
  Handle task(Callable<Long> body) {
    return new Of(new JdkTask(body));
  }

  @Override
  void submit(Object pool, Handle task) {
    ((ForkJoinPool) pool).submit(((Of) task).task());
  }

  @Override
  Object currentPool() {
    return ForkJoinTask.getPool();
  }

  @Override
  long invokeIn(Object pool, Handle task) {
    return ((ForkJoinPool) pool).invoke(((Of) task).task());
  }

  @Override
  void invokeAll(Handle a, Handle b) {
    ForkJoinTask.invokeAll(((Of) a).task(), ((Of) b).task());
  }

  @Override
  void invokeAll(List<Handle> tasks) {
    List<JdkTask> ts = new ArrayList<>();
    for (Handle h : tasks) {
      ts.add(((Of) h).task());
    }
    ForkJoinTask.invokeAll(ts);
  }

  @Override
  long joinHalves(JoinForm form, Callable<Long> left, Callable<Long> right) throws Exception {
    JdkTask r = new JdkTask(right);
    r.fork();
    long l;
    try {
      l = left.call();
    } catch (Throwable t) {
      r.quietlyJoin();
      throw t;
    }
    return l + r.join();
  }

  @Override
  long range(RangeForm form, int from, int to, IntToLongFunction body) {
    return switch (form) {
      case FOR_RANGE -> {
        LongAdder sum = new LongAdder();
        IntStream.range(from, to).parallel().forEach(i -> sum.add(body.applyAsLong(i)));
        yield sum.sum();
      }
      case REDUCE_LONG -> IntStream.range(from, to).parallel().mapToLong(body).sum();
      case REDUCE_DOUBLE ->
          (long) IntStream.range(from, to).parallel().mapToDouble(i -> body.applyAsLong(i)).sum();
    };
  }

  @Override
  void managedBlock(Blocker blocker) throws InterruptedException {
    ForkJoinPool.managedBlock(
        new ForkJoinPool.ManagedBlocker() {
          @Override
          public boolean block() throws InterruptedException {
            return blocker.block();
          }

          @Override
          public boolean isReleasable() {
            return blocker.isReleasable();
          }
        });
  }
}

package dev.tine.fuzz;

import dev.tine.Scope;
import dev.tine.Task;
import dev.tine.Tine;
import dev.tine.WorkStealingPool;
import dev.tine.fuzz.Program.JoinForm;
import dev.tine.fuzz.Program.RangeForm;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntToLongFunction;

/** The program on WorkStealingPool: Task for RecursiveTask, and Tine's own joins and ranges. */
final class TineInterpreter extends Interpreter {
  TineInterpreter(Program program, int parallelism) {
    super(program, parallelism, "tine");
  }

  private static final class TineTask extends Task<Long> {
    private final Callable<Long> body;

    TineTask(Callable<Long> body) {
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
  private record Of(TineTask task) implements Handle {
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
    return WorkStealingPool.builder()
        .parallelism(parallelism)
        .name(threadPrefix + "pool")
        .threadNamePrefix(threadPrefix)
        .registerMXBean(false)
        .build();
  }

  @Override
  void closePool(Object pool) {
    ((WorkStealingPool) pool).close();
  }

  @Override
  void killPool(Object pool) {
    ((WorkStealingPool) pool).shutdownNow();
  }

  @Override
  Handle task(Callable<Long> body) {
    return new Of(new TineTask(body));
  }

  @Override
  void submit(Object pool, Handle task) {
    ((WorkStealingPool) pool).submit(((Of) task).task());
  }

  @Override
  Object currentPool() {
    return Scope.current().pool();
  }

  @Override
  long invokeIn(Object pool, Handle task) {
    return ((WorkStealingPool) pool).invoke(((Of) task).task());
  }

  @Override
  void invokeAll(Handle a, Handle b) {
    Task.invokeAll(((Of) a).task(), ((Of) b).task());
  }

  @Override
  void invokeAll(List<Handle> tasks) {
    Task.invokeAll(tasks.stream().map(h -> ((Of) h).task()).toArray(Task<?>[]::new));
  }

  @Override
  long joinHalves(JoinForm form, Callable<Long> left, Callable<Long> right) {
    return form == JoinForm.SCOPE_JOIN
        ? Scope.current().joinLong(s -> call(left), s -> call(right), Long::sum)
        : Tine.joinLong(() -> call(left), () -> call(right), Long::sum);
  }

  private static long call(Callable<Long> c) {
    try {
      return c.call();
    } catch (Exception e) {
      throw Failures.sneaky(e);
    }
  }

  @Override
  long range(RangeForm form, int from, int to, IntToLongFunction body) {
    return switch (form) {
      case FOR_RANGE -> {
        LongAdder sum = new LongAdder();
        Tine.forRange(from, to, i -> sum.add(body.applyAsLong(i)));
        yield sum.sum();
      }
      case REDUCE_LONG -> Tine.reduceLong(from, to, 0L, body, Long::sum);
      case REDUCE_DOUBLE ->
          (long) Tine.reduceDouble(from, to, 0.0, i -> body.applyAsLong(i), Double::sum);
    };
  }

  @Override
  void managedBlock(Blocker blocker) throws InterruptedException {
    WorkStealingPool.managedBlock(
        new WorkStealingPool.ManagedBlocker() {
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

package dev.tine.agent.instrument;

import dev.tine.agent.bootstrap.TineBridge;
import net.bytebuddy.asm.Advice;

/**
 * The advice ByteBuddy inlines into the pools' own bytecode. Each body is one call into {@link
 * TineBridge} (loaded by the bootstrap class loader, so code in {@code java.base} can link to it);
 * {@code suppress = Throwable.class} makes any throwable from the advice itself (a link error, a
 * {@code StackOverflowError}) vanish before it reaches the application's code. Arguments are typed
 * {@code Object} so the advice never names a JDK-private type.
 *
 * <p>Where the points are, and why (see also {@code tine-agent/DESIGN.md}):
 *
 * <ul>
 *   <li>{@code ThreadPoolExecutor.execute} (enter): an arrival; its time goes into a side table
 *       keyed by the task's identity, so the task is queued unwrapped.
 *   <li>{@code ThreadPoolExecutor.reject} (enter): every refusal goes through it, whatever the
 *       handler (abort, caller-runs, discard, the application's own).
 *   <li>{@code ThreadPoolExecutor.getTask} (enter: the previous task of this thread ended; exit:
 *       the returned task starts). {@code runWorker} calls {@code beforeExecute}, the task and
 *       {@code afterExecute} between the two, so a subclass's hooks are inside the service time.
 *   <li>{@code ThreadPoolExecutor$Worker.run} (enter: a new thread's first task starts, from the
 *       worker's {@code firstTask}; exit: the thread ends, maybe because its task threw).
 *   <li>{@code ForkJoinPool.poolSubmit} / {@code externalSubmit} (enter: an arrival unless the
 *       caller is one of the pool's own workers; exit with {@code RejectedExecutionException}: a
 *       rejection), {@code ForkJoinTask.fork} from outside any pool (an arrival at the common
 *       pool).
 *   <li>{@code ForkJoinTask.doExec} (enter/exit): times a task that arrived from outside.
 *   <li>Tine's {@code WorkStealingPool.externalPush} (enter): an arrival.
 * </ul>
 */
final class Advices {
  private Advices() {}

  static final class PoolCreated {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object pool) {
      TineBridge.tpeCreated(pool);
    }
  }

  static final class Execute {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object pool, @Advice.Argument(0) Object task) {
      TineBridge.tpeExecute(pool, task);
    }
  }

  static final class Reject {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object pool, @Advice.Argument(0) Object task) {
      TineBridge.tpeReject(pool, task);
    }
  }

  static final class GetTask {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object pool) {
      TineBridge.tpeIdle(pool);
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object pool, @Advice.Return Object task) {
      if (task != null) TineBridge.tpeTaken(pool, task);
    }
  }

  /**
   * {@code ThreadPoolExecutor.beforeExecute(Thread, Runnable)} returned: the task's run starts.
   * {@code runWorker} calls it right before {@code task.run()}, so the service time leaves out the
   * pool's own bookkeeping between {@code getTask} and the task (the worker's lock, interrupt
   * checks), which made µs tasks read long. As in Pepperdine's subclass, the time is measured from
   * here to {@code afterExecute}; a subclass that overrides either without calling {@code super}
   * keeps the times taken at {@code getTask}. A task taken in a {@code getTask} frame that was
   * running before an attach (uninstrumented) starts here.
   */
  static final class BeforeExecute {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object pool, @Advice.Argument(1) Object task) {
      TineBridge.tpeRunStart(pool, task);
    }
  }

  /**
   * {@code ThreadPoolExecutor.afterExecute(Runnable, Throwable)} entered: the task's run ended.
   * With a throwable the task threw and its thread is about to end: its time ends here, not when
   * {@code Worker.run} returns, which comes after {@code processWorkerExit} has started a
   * replacement thread (tens of µs, or more, that were counted as the task's service time).
   */
  static final class AfterExecute {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object pool, @Advice.Argument(1) Throwable thrown) {
      TineBridge.tpeRunEnd(pool, thrown);
    }
  }

  static final class WorkerRun {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.FieldValue("this$0") Object pool,
        @Advice.FieldValue("firstTask") Object firstTask) {
      TineBridge.tpeWorkerStart(pool, firstTask);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.FieldValue("this$0") Object pool, @Advice.Thrown Throwable thrown) {
      TineBridge.tpeWorkerExit(pool, thrown);
    }
  }

  static final class ForkJoinCreated {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object pool) {
      TineBridge.fjCreated(pool);
    }
  }

  /** {@code poolSubmit(boolean signalIfEmpty, ForkJoinTask task)}. */
  static final class PoolSubmit {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object pool, @Advice.Argument(1) Object task) {
      TineBridge.fjSubmit(pool, task);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.This Object pool,
        @Advice.Argument(1) Object task,
        @Advice.Thrown Throwable thrown) {
      if (thrown != null) TineBridge.fjRejected(pool, task, thrown);
    }
  }

  /** {@code externalSubmit(ForkJoinTask task)}. */
  static final class ExternalSubmit {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object pool, @Advice.Argument(0) Object task) {
      TineBridge.fjSubmit(pool, task);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.This Object pool,
        @Advice.Argument(0) Object task,
        @Advice.Thrown Throwable thrown) {
      if (thrown != null) TineBridge.fjRejected(pool, task, thrown);
    }
  }

  /**
   * {@code ForkJoinTask.fork()}: from a thread outside any pool it pushes into the common pool. The
   * test for a pool thread is inlined, so a fork inside a pool costs one type check.
   */
  static final class Fork {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object task) {
      if (!(Thread.currentThread() instanceof java.util.concurrent.ForkJoinWorkerThread))
        TineBridge.fjFork(task);
    }
  }

  /** {@code ForkJoinTask.doExec()}: one volatile read unless an external task is pending. */
  static final class DoExec {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.This Object task) {
      return TineBridge.fjPending != 0 ? TineBridge.fjStart(task) : null;
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.Enter Object token) {
      if (token != null) TineBridge.fjEnd(token);
    }
  }

  /** Tine's {@code WorkStealingPool.externalPush(Task)}. */
  static final class TineSubmit {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object pool) {
      TineBridge.tineSubmit(pool);
    }
  }
}

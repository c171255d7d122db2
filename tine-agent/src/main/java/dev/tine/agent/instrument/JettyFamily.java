package dev.tine.agent.instrument;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static net.bytebuddy.matcher.ElementMatchers.takesNoArguments;

import dev.tine.agent.bootstrap.TineBridge;
import dev.tine.agent.state.PoolFigures;
import dev.tine.agent.state.SizeControl;
import dev.tine.agent.state.Sizing;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;

/**
 * Jetty 12's {@code QueuedThreadPool}, measured in request tasks. Jetty's selectors produce a task
 * per ready connection, and its {@code AdaptiveExecutionStrategy} consumes each one: a blocking
 * task (a request to handle) either runs at once on the producing thread, which first hands
 * production to a reserved thread ("execute-produce-consume"), or is queued in the pool
 * ("produce-execute-consume"). Non-blocking tasks (accepts, selector updates) run inline and are
 * not requests.
 *
 * <p>So a task arrives at {@code consumeTask} in those two modes; in the first it starts there and
 * ends when {@code consumeTask} returns (no wait: the thread was there), in the second it starts
 * and ends in the pool's {@code runJob}. The pool's other jobs (the selectors' and acceptors'
 * loops, reserved threads waiting for work, production handed over) never arrived so are not
 * counted: they are what Jetty leases and reserves beside the request threads.
 *
 * <p>Sizing in Jetty's terms: {@code maxThreads} must hold the request threads plus the leased
 * (selectors, acceptors) and reserved threads, which {@link #advice} adds.
 */
final class JettyFamily extends Family {
  static final int ID = 2;
  private static final String QTP = "org/eclipse/jetty/util/thread/QueuedThreadPool";
  private static final String STRATEGY =
      "org/eclipse/jetty/util/thread/strategy/AdaptiveExecutionStrategy";

  /** Where Jetty 12 calls the server's handler for a request (and again, never, for the same). */
  private static final String INVOKER =
      "org/eclipse/jetty/server/internal/HttpChannelState$HandlerInvoker";

  /** {@code AdaptiveExecutionStrategy.SubStrategy} ordinals (Jetty 12.0). */
  static final int PRODUCE_EXECUTE_CONSUME = 2, EXECUTE_PRODUCE_CONSUME = 3;

  JettyFamily() {
    super(ID, "Jetty", "maxThreads", true, Repeat.STALE);
  }

  @Override
  Map<String, AsmVisitorWrapper> advice() {
    return Map.of(
        QTP,
        new AsmVisitorWrapper.Compound(
            Advice.to(Created.class).on(net.bytebuddy.matcher.ElementMatchers.isConstructor()),
            Advice.to(Execute.class).on(named("execute").and(takesArguments(Runnable.class))),
            Advice.to(RunJob.class).on(named("runJob").and(takesArguments(Runnable.class)))),
        STRATEGY,
        Advice.to(ConsumeTask.class)
            .on(named("consumeTask").and(takesArguments(2)).and(takesArgument(0, Runnable.class))),
        INVOKER,
        Advice.to(HandleRequest.class).on(named("run").and(takesNoArguments())));
  }

  /** Only blocking tasks the strategy queues or runs in place are requests. */
  @Override
  boolean counts(Object mode) {
    if (!(mode instanceof Enum<?> e)) return false;
    return e.ordinal() == PRODUCE_EXECUTE_CONSUME || e.ordinal() == EXECUTE_PRODUCE_CONSUME;
  }

  @Override
  boolean startsHere(Object mode) {
    return mode instanceof Enum<?> e && e.ordinal() == EXECUTE_PRODUCE_CONSUME;
  }

  /** {@code runJob}'s exit (no detail) and an in-place {@code consumeTask}'s exit. */
  @Override
  boolean endsHere(Object mode) {
    return mode == null || startsHere(mode);
  }

  @Override
  public boolean readSizes(Object pool, PoolFigures f) throws Throwable {
    f.corePoolSize = intOf(pool, "getMinThreads");
    f.maximumPoolSize = intOf(pool, "getMaxThreads");
    f.poolSize = intOf(pool, "getThreads");
    // ExecutorThreadPool (Jetty over an application's executor) has none of these three: its
    // threads are the executor's, measured as that pool too
    int busy = intOrMinus(pool, "getBusyThreads");
    f.activeCount = busy >= 0 ? busy : f.poolSize - intOrMinus(pool, "getIdleThreads");
    f.queueLength = intOrMinus(pool, "getQueueSize");
    leased = intOrMinus(pool, "getLeasedThreads");
    reserved =
        Math.max(intOrMinus(pool, "getMaxReservedThreads"), intOrMinus(pool, "getReservedThreads"));
    return (boolean) call(pool, "isStopped");
  }

  // ticker only (one pool at a time): the non-request threads, for the advice
  private int leased, reserved;

  @Override
  public String advice(int threads, PoolFigures f) {
    int l = Math.max(0, leased), r = Math.max(0, reserved);
    return String.format(
        java.util.Locale.ROOT,
        "maxThreads=%d (%d request + %d leased + %d reserved)",
        threads + l + r,
        threads,
        l,
        r);
  }

  /**
   * {@code QueuedThreadPool}: {@code maxThreads} (minThreads ≤ maxThreads kept; Jetty checks its
   * thread budget, whose refusal leaves the pool as it was). Jetty over an application's executor
   * ({@code ExecutorThreadPool}) is sized by that executor: resize it instead.
   */
  @Override
  public Sizing sizing(Object pool) {
    if (!isQueuedThreadPool(pool.getClass()))
      return Sizing.refuse(
          pool.getClass().getSimpleName()
              + " runs on another executor, which the agent measures as a pool of its own:"
              + " resize that pool instead");
    return Sizing.of(
        pairControl(
            pool,
            SizeControl.Effective.MAX,
            "maxThreads",
            "getMinThreads",
            "setMinThreads",
            "getMaxThreads",
            "setMaxThreads"));
  }

  private static boolean isQueuedThreadPool(Class<?> c) {
    for (; c != null; c = c.getSuperclass())
      if (c.getName().equals("org.eclipse.jetty.util.thread.QueuedThreadPool")) return true;
    return false;
  }

  @Override
  int threads(Object pool) {
    return intOrMinus(pool, "getThreads");
  }

  @Override
  int queued(Object pool) {
    return intOrMinus(pool, "getQueueSize");
  }

  static final class Created {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object pool) {
      TineBridge.famCreated(ID, pool);
    }
  }

  /** A task queued by the strategy is rejected here when the pool refuses it. */
  static final class Execute {
    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.This Object pool, @Advice.Argument(0) Object task, @Advice.Thrown Throwable t) {
      if (t instanceof RejectedExecutionException) TineBridge.famReject(ID, pool, task);
    }
  }

  static final class RunJob {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object pool, @Advice.Argument(0) Object job) {
      TineBridge.famStart(ID, pool, job);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.This Object pool, @Advice.Thrown Throwable t) {
      TineBridge.famEnd(ID, pool, null, t);
    }
  }

  /** {@code consumeTask(Runnable task, SubStrategy mode)}. */
  static final class ConsumeTask {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.FieldValue("_executor") Object pool,
        @Advice.Argument(0) Object task,
        @Advice.Argument(1) Object mode) {
      TineBridge.famArrive(ID, pool, task, mode);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.FieldValue("_executor") Object pool,
        @Advice.Argument(1) Object mode,
        @Advice.Thrown Throwable t) {
      TineBridge.famEnd(ID, pool, mode, t);
    }
  }

  /**
   * {@code HttpChannelState.HandlerInvoker.run()}: one request's handling, from its parsed head to
   * the handler's return (a blocking handler completes its response inside; an asynchronous one's
   * completion later is not in it).
   */
  static final class HandleRequest {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
      TineBridge.reqBegin(ID, null);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.Thrown Throwable thrown) {
      TineBridge.reqEnd(ID, null, thrown);
    }
  }
}

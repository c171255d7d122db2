package dev.tine.agent.instrument;

import static net.bytebuddy.matcher.ElementMatchers.named;
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
 * JBoss threads' {@code EnhancedQueueExecutor}: Undertow's worker pool (through XNIO), WildFly's
 * and Quarkus' worker pools. {@code execute} is the arrival; it wraps the application's task in an
 * {@code EnhancedQueueExecutor$Task} whose {@code run} is the start and end (keyed by the task it
 * wraps, so the arrival is found). A rejection is an {@code execute} that throws (the pool's
 * default handler); a handler that discards silently is not seen.
 *
 * <p>In Undertow a task is one dispatch of an exchange to the worker pool ({@code
 * HttpServerExchange.dispatch}): one blocking request, unless a handler dispatches twice. The
 * requests themselves are counted where Undertow runs a request's handler ({@code
 * Connectors.executeRootHandler}) on a worker.
 */
final class UndertowFamily extends Family {
  static final int ID = 3;
  private static final String EQE = "org/jboss/threads/EnhancedQueueExecutor";

  /** Undertow's per-request entry (the I/O thread's first call, and each dispatch's). */
  private static final String CONNECTORS = "io/undertow/server/Connectors";

  /** Where an exchange completes (and Undertow's access log logs it). */
  private static final String EXCHANGE = "io/undertow/server/HttpServerExchange";

  UndertowFamily() {
    super(ID, "EnhancedQueueExecutor", "workerThreads", false, Repeat.STALE);
  }

  @Override
  Map<String, AsmVisitorWrapper> advice() {
    return Map.of(
        EQE,
        new AsmVisitorWrapper.Compound(
            Advice.to(Created.class).on(net.bytebuddy.matcher.ElementMatchers.isConstructor()),
            Advice.to(Execute.class).on(named("execute").and(takesArguments(Runnable.class)))),
        EQE + "$Task",
        Advice.to(TaskRun.class).on(named("run").and(takesNoArguments())),
        CONNECTORS,
        Advice.to(RootHandler.class).on(named("executeRootHandler").and(takesArguments(2))),
        EXCHANGE,
        Advice.to(ExchangeComplete.class)
            .on(named("invokeExchangeCompleteListeners").and(takesNoArguments())));
  }

  @Override
  public boolean readSizes(Object pool, PoolFigures f) throws Throwable {
    f.corePoolSize = intOf(pool, "getCorePoolSize");
    f.maximumPoolSize = intOf(pool, "getMaximumPoolSize");
    f.poolSize = intOf(pool, "getPoolSize");
    f.activeCount = intOf(pool, "getActiveCount");
    f.largestPoolSize = intOf(pool, "getLargestPoolSize");
    f.queueLength = intOf(pool, "getQueueSize");
    if ((boolean) call(pool, "isShutdown") && !(boolean) call(pool, "isTerminated"))
      f.state = "shutting down";
    return (boolean) call(pool, "isTerminated");
  }

  /**
   * JBoss' {@code EnhancedQueueExecutor} (Undertow's worker, XNIO's {@code WORKER_TASK_MAX_THREADS}
   * and {@code CORE_THREADS}, both from Undertow's {@code workerThreads}): it starts threads up to
   * its maximum before it queues, so the maximum is the size; a core equal to it follows it. Its
   * own setters, the ones XNIO's {@code setOption} calls.
   */
  @Override
  public Sizing sizing(Object pool) {
    return Sizing.of(
        pairControl(
            pool,
            SizeControl.Effective.MAX,
            "workerThreads (maximum pool size)",
            "getCorePoolSize",
            "setCorePoolSize",
            "getMaximumPoolSize",
            "setMaximumPoolSize"));
  }

  @Override
  int threads(Object pool) {
    return intOrMinus(pool, "getPoolSize");
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

  static final class Execute {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object pool, @Advice.Argument(0) Object task) {
      TineBridge.famArrive(ID, pool, task, null);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.This Object pool, @Advice.Argument(0) Object task, @Advice.Thrown Throwable t) {
      if (t instanceof RejectedExecutionException) TineBridge.famReject(ID, pool, task);
    }
  }

  static final class TaskRun {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.FieldValue("this$0") Object pool, @Advice.FieldValue("delegate") Object task) {
      TineBridge.famStart(ID, pool, task);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.FieldValue("this$0") Object pool, @Advice.Thrown Throwable t) {
      TineBridge.famEnd(ID, pool, null, t);
    }
  }

  /**
   * {@code Connectors.executeRootHandler(handler, exchange)}: a request's handling. On the I/O
   * thread (no pool task) it is not counted; on a worker, it is the dispatched request, which
   * waited from its dispatch (the task's arrival) and ends with the exchange when the handler
   * returns (a blocking handler).
   */
  static final class RootHandler {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
      TineBridge.reqBegin(ID, null);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.Thrown Throwable thrown) {
      TineBridge.reqEnd(ID, null, thrown);
    }
  }

  /**
   * {@code HttpServerExchange.invokeExchangeCompleteListeners()}: the exchange is complete (where
   * Undertow's access log logs it); what follows on the thread is the connection's own work.
   */
  static final class ExchangeComplete {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
      TineBridge.reqDone(ID);
    }
  }
}

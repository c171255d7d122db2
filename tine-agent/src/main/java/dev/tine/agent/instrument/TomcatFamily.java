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
import net.bytebuddy.description.type.TypeDescription;

/**
 * Tomcat's own {@code org.apache.tomcat.util.threads.ThreadPoolExecutor} (9.0.60 on, 10.1, 11): a
 * copy of the JDK's pool that extends {@code AbstractExecutorService}, so the JDK pool's advice
 * never reaches it. Same points as the JDK's: {@code execute} (arrival), {@code getTask} (enter:
 * the thread's previous task ended; exit: the returned task starts), {@code Worker.run} (its first
 * task; the thread's end); {@code beforeExecute}, only after an attach, for a thread that took its
 * task in a {@code getTask} frame running since before it.
 *
 * <p>One difference: when the pool is at {@code maxThreads}, Tomcat's {@code execute} catches the
 * refusal of its own {@code reject} and forces the task into its queue. So a rejection is counted
 * only when {@code execute} itself throws, never at {@code reject}.
 *
 * <p>Older Tomcats (8.5, 9.0.50; not 9.0.60) have a class of the same name that extends the JDK's
 * pool: it is measured as a JDK pool, and this advice is not applied to it.
 *
 * <p>A task is one {@code SocketProcessor} run: the processing of one socket event, which may serve
 * several keep-alive or pipelined requests, or none (a close). So the requests themselves are
 * counted and timed at {@code CoyoteAdapter.service}, and the pool's figures are per request (see
 * {@code RequestView}); the task figures stay beside them.
 */
final class TomcatFamily extends Family {
  static final int ID = 1;
  private static final String POOL = "org/apache/tomcat/util/threads/ThreadPoolExecutor";

  /** Where every HTTP/1.1, HTTP/2 and AJP request enters the container (9.0, 10.1, 11 alike). */
  private static final String ADAPTER = "org/apache/catalina/connector/CoyoteAdapter";

  TomcatFamily() {
    super(ID, "Tomcat", "maxThreads", false, Repeat.STALE);
  }

  @Override
  Map<String, AsmVisitorWrapper> advice() {
    return Map.of(
        POOL,
        new AsmVisitorWrapper.Compound(
            Advice.to(Created.class).on(net.bytebuddy.matcher.ElementMatchers.isConstructor()),
            Advice.to(Execute.class).on(named("execute").and(takesArguments(Runnable.class))),
            Advice.to(GetTask.class).on(named("getTask").and(takesNoArguments())),
            Advice.to(BeforeExecute.class)
                .on(named("beforeExecute").and(takesArguments(Thread.class, Runnable.class)))),
        POOL + "$Worker",
        Advice.to(WorkerRun.class).on(named("run").and(takesNoArguments())),
        ADAPTER,
        new AsmVisitorWrapper.Compound(
            Advice.to(Service.class).on(named("service").and(takesArguments(2))),
            Advice.to(AsyncDispatch.class).on(named("asyncDispatch").and(takesArguments(3)))));
  }

  @Override
  boolean applies(TypeDescription type) {
    TypeDescription.Generic s = type.getSuperClass();
    String sup = s == null ? "" : s.asErasure().getName();
    if (type.getName().endsWith("$Worker")) return true; // only the new pool has its own
    // requests are counted on whatever pool runs them (an older Tomcat's pool is the JDK's)
    if (type.getName().equals(ADAPTER.replace('/', '.'))) return true;
    return sup.equals("java.util.concurrent.AbstractExecutorService");
  }

  /** {@code org.apache.coyote.Request.getStartTimeNanos()} of the Tomcat that defines a class. */
  private static final ClassValue<java.lang.invoke.MethodHandle> START_NANOS =
      new ClassValue<>() {
        @Override
        protected java.lang.invoke.MethodHandle computeValue(Class<?> c) {
          try {
            return java.lang.invoke.MethodHandles.publicLookup()
                .findVirtual(
                    c, "getStartTimeNanos", java.lang.invoke.MethodType.methodType(long.class))
                .asType(java.lang.invoke.MethodType.methodType(long.class, Object.class));
          } catch (ReflectiveOperationException e) {
            return null; // a Tomcat without it: the request starts at the adapter
          }
        }
      };

  /** {@code org.apache.coyote.Request.getNote(int)}: Catalina's request is its note 1. */
  private static final ClassValue<java.lang.invoke.MethodHandle> NOTE =
      new ClassValue<>() {
        @Override
        protected java.lang.invoke.MethodHandle computeValue(Class<?> c) {
          try {
            return java.lang.invoke.MethodHandles.publicLookup()
                .findVirtual(
                    c, "getNote", java.lang.invoke.MethodType.methodType(Object.class, int.class))
                .asType(
                    java.lang.invoke.MethodType.methodType(Object.class, Object.class, int.class));
          } catch (ReflectiveOperationException e) {
            return null;
          }
        }
      };

  /** {@code org.apache.catalina.connector.Request.isAsync()}. */
  private static final ClassValue<java.lang.invoke.MethodHandle> IS_ASYNC =
      new ClassValue<>() {
        @Override
        protected java.lang.invoke.MethodHandle computeValue(Class<?> c) {
          try {
            return java.lang.invoke.MethodHandles.publicLookup()
                .findVirtual(c, "isAsync", java.lang.invoke.MethodType.methodType(boolean.class))
                .asType(java.lang.invoke.MethodType.methodType(boolean.class, Object.class));
          } catch (ReflectiveOperationException e) {
            return null;
          }
        }
      };

  /** {@code CoyoteAdapter.ADAPTER_NOTES}: the note holding Catalina's request. */
  private static final int ADAPTER_NOTES = 1;

  /**
   * A Servlet async request leaves the thread when {@code service} (or an {@code asyncDispatch})
   * returns while Catalina's request is still async ({@code isAsync()}: started, or completing);
   * Tomcat ends it in a later {@code asyncDispatch}, where its access log logs it.
   */
  @Override
  boolean suspended(Object request) {
    if (request == null) return false;
    java.lang.invoke.MethodHandle note = NOTE.get(request.getClass());
    if (note == null) return false;
    try {
      Object catalina = (Object) note.invokeExact(request, ADAPTER_NOTES);
      if (catalina == null) return false;
      java.lang.invoke.MethodHandle async = IS_ASYNC.get(catalina.getClass());
      return async != null && (boolean) async.invokeExact(catalina);
    } catch (Throwable t) {
      return false;
    }
  }

  /** Older Tomcats' {@code org.apache.tomcat.util.threads.ThreadPoolExecutor} extends the JDK's. */
  @Override
  boolean ownsJdkPool(String className) {
    return className.startsWith("org.apache.tomcat.");
  }

  /**
   * Any JDK pool: Tomcat runs a connection's processing (its {@code SocketProcessor}s, HTTP/2's
   * streams) only on its endpoint's executor (or inline on the poller, outside any pool), so a JDK
   * pool whose task runs a Tomcat request is that executor: an older Tomcat's own pool, or the
   * application's ({@code protocolHandler.setExecutor(aThreadPoolExecutor)}, a Spring {@code
   * ThreadPoolTaskExecutor}, its tasks wrapped by a decorator or not). No family's pool shows
   * Tomcat's requests there, so this pool's row is the only one on those threads: per request, its
   * tasks in the task view. (Jetty says no: its {@code ExecutorThreadPool}'s row has the requests,
   * and the application's pool under it keeps its tasks.)
   */
  @Override
  boolean requestsOnJdkPool(Class<?> c) {
    return true;
  }

  /**
   * Tomcat's own start of the request: when its first byte was read ({@code
   * Request.getStartTimeNanos()}, what its access log's {@code %D} counts from), so the header
   * parsing is in the request's handling, as Tomcat counts it.
   */
  @Override
  long requestStart(Object request) {
    if (request == null) return 0;
    java.lang.invoke.MethodHandle h = START_NANOS.get(request.getClass());
    if (h == null) return 0;
    try {
      long t = (long) h.invokeExact(request);
      return t < 0 ? 0 : t; // -1: not set
    } catch (Throwable t) {
      return 0;
    }
  }

  @Override
  public boolean readSizes(Object pool, PoolFigures f) throws Throwable {
    f.corePoolSize = intOf(pool, "getCorePoolSize");
    f.maximumPoolSize = intOf(pool, "getMaximumPoolSize");
    f.poolSize = intOf(pool, "getPoolSize");
    f.activeCount = intOf(pool, "getActiveCount");
    f.largestPoolSize = intOf(pool, "getLargestPoolSize");
    f.queueLength = queued(pool);
    if ((boolean) call(pool, "isShutdown") && !(boolean) call(pool, "isTerminated"))
      f.state = "shutting down";
    return (boolean) call(pool, "isTerminated");
  }

  /**
   * Tomcat's pool starts a thread before it queues (its TaskQueue refuses a task while the pool is
   * below its maximum): the maximum is {@code maxThreads}, the core its {@code minSpareThreads}.
   */
  @Override
  public Sizing sizing(Object pool) {
    return Sizing.of(
        pairControl(
            pool,
            SizeControl.Effective.MAX,
            "maxThreads",
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
    try {
      return pool == null ? -1 : ((java.util.Collection<?>) call(pool, "getQueue")).size();
    } catch (Throwable t) {
      return -1;
    }
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

  static final class GetTask {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object pool) {
      TineBridge.famEnd(ID, pool, null, null);
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object pool, @Advice.Return Object task) {
      if (task != null) TineBridge.famStart(ID, pool, task);
    }
  }

  /**
   * {@code beforeExecute(Thread, Runnable)} returned: only while threads that ran the pool's worker
   * loop at the attach have not started a task the agent saw (one volatile read otherwise). Such a
   * thread may have taken its task in a {@code getTask} frame running since before the attach: the
   * task starts here, so that it and its requests count.
   */
  static final class BeforeExecute {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object pool, @Advice.Argument(1) Object task) {
      if (TineBridge.unseenStarts != 0) TineBridge.famRunStart(ID, pool, task);
    }
  }

  /**
   * {@code CoyoteAdapter.service(Request, Response)}: one request, from its parsed head to its
   * response finished; or, for a Servlet async request, its first dispatch (the request then waits
   * for its {@code asyncDispatch}).
   */
  static final class Service {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.Argument(0) Object request) {
      TineBridge.reqBegin(ID, request);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.Argument(0) Object request, @Advice.Thrown Throwable thrown) {
      TineBridge.reqEnd(ID, request, thrown);
    }
  }

  /**
   * {@code CoyoteAdapter.asyncDispatch(Request, Response, SocketEvent)}: a Servlet async request's
   * later dispatch on a pool thread (its completion after {@code complete()}, a {@code dispatch()},
   * a timeout), which holds a thread for the request again; the last one finishes the response and
   * logs it.
   */
  static final class AsyncDispatch {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.Argument(0) Object request) {
      TineBridge.reqResume(ID, request, true, null);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.Argument(0) Object request, @Advice.Thrown Throwable thrown) {
      TineBridge.reqResume(ID, request, false, thrown);
    }
  }

  static final class WorkerRun {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.FieldValue("this$0") Object pool,
        @Advice.FieldValue("firstTask") Object firstTask) {
      TineBridge.famThread(ID, pool, firstTask, true, null);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.FieldValue("this$0") Object pool, @Advice.Thrown Throwable thrown) {
      TineBridge.famThread(ID, pool, null, false, thrown);
    }
  }
}

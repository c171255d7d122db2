package dev.tine.agent.instrument;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.tine.agent.bootstrap.TineBridge;
import dev.tine.agent.state.PoolFigures;
import dev.tine.agent.state.Sizing;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Iterator;
import java.util.Map;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;

/**
 * Netty 4.1's {@code SingleThreadEventExecutor}: the event loops of a {@code NioEventLoopGroup} and
 * the executors of a {@code DefaultEventExecutorGroup} (handlers moved off the I/O threads). Each
 * group is one pool whose threads are its executors' threads (an executor without a group is a
 * one-thread pool of its own).
 *
 * <p>Arrival: {@code execute(Runnable, boolean)} (behind {@code execute} and {@code lazyExecute});
 * start and end: the static {@code AbstractEventExecutor.runTask}, which every executor runs its
 * queued tasks through. The thread is bound to its executor's group as it enters {@code
 * runAllTasks} or {@code takeTask}, so {@code runTask} knows the pool without a look-up. Only tasks
 * that arrived through {@code execute} are counted (scheduled tasks are not queue arrivals). An I/O
 * loop's time in {@code select} and in handling I/O events is outside any task: neither service nor
 * queue wait.
 */
final class NettyFamily extends Family {
  static final int ID = 4;
  private static final String STEE = "io/netty/util/concurrent/SingleThreadEventExecutor";
  private static final String AEE = "io/netty/util/concurrent/AbstractEventExecutor";

  /** Where a handler reads a message (on its own executor: the group's, for an offloaded one). */
  private static final String CONTEXT = "io/netty/channel/AbstractChannelHandlerContext";

  NettyFamily() {
    super(ID, "Netty", "nThreads", true, Repeat.QUEUED);
  }

  @Override
  Map<String, AsmVisitorWrapper> advice() {
    return Map.of(
        STEE,
        new AsmVisitorWrapper.Compound(
            Advice.to(Execute.class)
                .on(named("execute").and(takesArguments(Runnable.class, boolean.class))),
            Advice.to(Reject.class).on(named("reject").and(takesArguments(Runnable.class)))),
        AEE,
        Advice.to(RunTask.class).on(named("runTask").and(takesArguments(Runnable.class))),
        CONTEXT,
        Advice.to(ChannelRead.class)
            .on(
                named("invokeChannelRead")
                    .and(takesArguments(Object.class))
                    .and(
                        net.bytebuddy.matcher.ElementMatchers.not(
                            net.bytebuddy.matcher.ElementMatchers.isStatic()))));
  }

  /** Whether a class is a decoded HTTP request head ({@code io.netty...http.HttpRequest}). */
  private static final ClassValue<Boolean> HTTP_REQUEST =
      new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> c) {
          for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            if (implementsRequest(k)) return true;
          }
          return false;
        }

        private boolean implementsRequest(Class<?> k) {
          for (Class<?> i : k.getInterfaces()) {
            if (i.getName().equals("io.netty.handler.codec.http.HttpRequest")
                || implementsRequest(i)) return true;
          }
          return false;
        }
      };

  /**
   * A handler reading a decoded HTTP request (its head: a {@code FullHttpRequest} once aggregated)
   * handles a request; any other message is not one.
   */
  @Override
  boolean isRequest(Object msg) {
    return msg != null && HTTP_REQUEST.get(msg.getClass());
  }

  private static final ClassValue<MethodHandle> PARENT =
      new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> c) {
          try {
            Class<?> ees =
                Class.forName("io.netty.util.concurrent.EventExecutor", false, c.getClassLoader());
            return MethodHandles.publicLookup()
                .findVirtual(
                    ees,
                    "parent",
                    MethodType.methodType(
                        Class.forName(
                            "io.netty.util.concurrent.EventExecutorGroup",
                            false,
                            c.getClassLoader())))
                .asType(MethodType.methodType(Object.class, Object.class));
          } catch (ReflectiveOperationException e) {
            return null;
          }
        }
      };

  /** {@code ThreadExecutorMap.currentExecutor()} of the Netty that defines a class. */
  private static final ClassValue<MethodHandle> CURRENT =
      new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> c) {
          try {
            ClassLoader l = c.getClassLoader();
            Class<?> map = Class.forName("io.netty.util.internal.ThreadExecutorMap", false, l);
            Class<?> ee = Class.forName("io.netty.util.concurrent.EventExecutor", false, l);
            return MethodHandles.publicLookup()
                .findStatic(map, "currentExecutor", MethodType.methodType(ee))
                .asType(MethodType.methodType(Object.class));
          } catch (ReflectiveOperationException e) {
            return null;
          }
        }
      };

  /**
   * The executor's group, or the executor itself if it has none; given a Netty class (from {@code
   * runTask}), that of the executor the calling thread runs.
   */
  @Override
  Object poolOf(Object executor) {
    if (executor instanceof Class<?> netty) {
      MethodHandle h = CURRENT.get(netty);
      try {
        executor = h == null ? null : h.invokeExact();
      } catch (Throwable t) {
        return null;
      }
    }
    if (executor == null) return null;
    MethodHandle h = PARENT.get(executor.getClass());
    if (h == null) return executor;
    try {
      Object g = h.invokeExact(executor);
      return g != null ? g : executor;
    } catch (Throwable t) {
      return executor;
    }
  }

  private boolean isGroup(Object pool) {
    try {
      pool.getClass().getMethod("executorCount");
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  @Override
  public boolean readSizes(Object pool, PoolFigures f) throws Throwable {
    int n = isGroup(pool) ? intOf(pool, "executorCount") : 1;
    f.corePoolSize = f.maximumPoolSize = f.poolSize = n;
    f.queueLength = queued(pool);
    if ((boolean) call(pool, "isShuttingDown") && !(boolean) call(pool, "isTerminated"))
      f.state = "shutting down";
    return (boolean) call(pool, "isTerminated");
  }

  /** An event loop group's loops are made at construction, and each channel stays on its loop. */
  @Override
  public Sizing sizing(Object pool) {
    return Sizing.refuse(
        "a Netty event loop group's nThreads is fixed when it is built (each channel is bound to"
            + " one of its loops for life)");
  }

  @Override
  int threads(Object pool) {
    return pool == null ? -1 : isGroup(pool) ? intOrMinus(pool, "executorCount") : 1;
  }

  @Override
  int queued(Object pool) {
    if (pool == null) return -1;
    try {
      if (!isGroup(pool)) return intOf(pool, "pendingTasks");
      int q = 0;
      for (Iterator<?> i = (Iterator<?>) call(pool, "iterator"); i.hasNext(); ) {
        q += Math.max(0, intOf(i.next(), "pendingTasks"));
      }
      return q;
    } catch (Throwable t) {
      return -1;
    }
  }

  static final class Execute {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object executor, @Advice.Argument(0) Object task) {
      TineBridge.famArrive(ID, executor, task, null);
    }
  }

  static final class Reject {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object executor, @Advice.Argument(0) Object task) {
      TineBridge.famReject(ID, executor, task);
    }
  }

  /**
   * {@code static runTask(Runnable)}: passes its class, through which {@link #poolOf} finds the
   * executor the calling thread runs ({@code ThreadExecutorMap.currentExecutor()}).
   */
  static final class RunTask {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.Origin Class<?> netty, @Advice.Argument(0) Object task) {
      TineBridge.famStart(ID, netty, task);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.Thrown Throwable t) {
      TineBridge.famEnd(ID, null, null, t);
    }
  }

  /**
   * {@code AbstractChannelHandlerContext.invokeChannelRead(msg)}, on the handler's executor: a
   * request when the message is a decoded HTTP request, handled in a task of an executor group (an
   * offloaded handler; on an I/O loop it is outside any task, so not counted). The outermost
   * handler's read is the request; the handlers it fires to are inside it.
   */
  static final class ChannelRead {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.Argument(0) Object msg) {
      TineBridge.reqBegin(ID, msg);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.Argument(0) Object msg, @Advice.Thrown Throwable thrown) {
      TineBridge.reqEnd(ID, msg, thrown);
    }
  }
}

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
 * queued tasks through; {@code runTask} finds the executor the calling thread runs through Netty's
 * {@code ThreadExecutorMap}, and its group through {@code parent()}. Only tasks that arrived
 * through {@code execute} are counted (scheduled tasks are not queue arrivals). An I/O loop's time
 * in {@code select} and in handling I/O events is outside any task: neither service nor queue wait
 * of a task.
 *
 * <p><b>Handlers on the event loop</b> (the usual way): a {@code NioEventLoop}'s requests are read
 * outside any task, in its I/O phase ({@code processSelectedKeys}, entered as its {@code select}
 * returns). Each loop is followed from its first I/O phase ({@code TineBridge.loopPhase}): the time
 * in that phase and in {@code runAllTasks} (its share of I/O, of tasks, and the rest: idle), and
 * the requests it handles there, which count for its group with their wait from the {@code
 * select}'s return to the handler's read of the request ({@code processSelectedKey} marks each
 * ready channel, so that each channel's first request waits from that return, not from the previous
 * channel's request). NIO's and Epoll's loops ({@code EpollEventLoop.processReady}, each channel at
 * {@code EpollStreamUnsafe.epollInReady}); KQueue's and io_uring's loops have no I/O phase seen
 * here.
 */
final class NettyFamily extends Family {
  static final int ID = 4;
  private static final String STEE = "io/netty/util/concurrent/SingleThreadEventExecutor";
  private static final String AEE = "io/netty/util/concurrent/AbstractEventExecutor";

  /** Where a handler reads a message (on its own executor: the group's, for an offloaded one). */
  private static final String CONTEXT = "io/netty/channel/AbstractChannelHandlerContext";

  /** An I/O loop over a JDK {@code Selector}. */
  private static final String NIO_LOOP = "io/netty/channel/nio/NioEventLoop";

  /** An I/O loop over Linux's {@code epoll} (netty-transport-native-epoll). */
  private static final String EPOLL_LOOP = "io/netty/channel/epoll/EpollEventLoop";

  /** Where an Epoll loop reads a ready stream channel (TCP, Unix domain sockets). */
  private static final String EPOLL_STREAM_UNSAFE =
      "io/netty/channel/epoll/AbstractEpollStreamChannel$EpollStreamUnsafe";

  // An event loop's phases (TineBridge.loopPhase): its select returned and it handles the ready
  // channels (IO_BEGIN ... IO_END), the next ready channel (KEY), its queued tasks (TASKS_*).
  static final int IO_BEGIN = 0, IO_END = 1, KEY = 2, TASKS_BEGIN = 3, TASKS_END = 4;

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
            Advice.to(Reject.class).on(named("reject").and(takesArguments(Runnable.class))),
            Advice.to(RunAllTasks.class)
                .on(named("runAllTasks").and(takesArguments(0).or(takesArguments(long.class))))),
        NIO_LOOP,
        new AsmVisitorWrapper.Compound(
            Advice.to(ProcessKeys.class).on(named("processSelectedKeys").and(takesArguments(0))),
            Advice.to(ProcessKey.class)
                .on(
                    named("processSelectedKey")
                        .and(takesArguments(2))
                        .and(
                            net.bytebuddy.matcher.ElementMatchers.not(
                                net.bytebuddy.matcher.ElementMatchers.isStatic())))),
        EPOLL_LOOP,
        Advice.to(ProcessKeys.class).on(named("processReady").and(takesArguments(2))),
        EPOLL_STREAM_UNSAFE,
        Advice.to(ReadyChannel.class).on(named("epollInReady").and(takesArguments(0))),
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

  @Override
  boolean hasLoops() {
    return true;
  }

  /**
   * A handler's read of a decoded request: a whole one ({@code FullHttpRequest}), or a head when
   * its channel does not aggregate (a pipeline with an {@code HttpObjectAggregator} reads each
   * request twice: its head, which the aggregator only collects, and the whole request, which a
   * handler handles; counting both doubled λ).
   */
  @Override
  boolean isRequestAt(Object ctx, Object msg) {
    if (!isRequest(msg)) return false;
    if (FULL_REQUEST.get(msg.getClass())) return true;
    Aggregation a = ctx == null ? null : AGGREGATION.get(ctx.getClass());
    if (a == null) return true;
    try {
      Class<?> aggregator = AGGREGATOR.get(msg.getClass());
      if (aggregator == null) return true;
      Object pipeline = a.pipeline.invokeExact(ctx);
      return (Object) a.get.invokeExact(pipeline, aggregator) == null;
    } catch (Throwable t) {
      return true;
    }
  }

  /** {@code ChannelHandlerContext.pipeline()} and {@code ChannelPipeline.get(Class)}. */
  private record Aggregation(MethodHandle pipeline, MethodHandle get) {}

  private static final ClassValue<Aggregation> AGGREGATION =
      new ClassValue<>() {
        @Override
        protected Aggregation computeValue(Class<?> c) {
          try {
            ClassLoader l = c.getClassLoader();
            Class<?> chc = Class.forName("io.netty.channel.ChannelHandlerContext", false, l);
            Class<?> cp = Class.forName("io.netty.channel.ChannelPipeline", false, l);
            Class<?> ch = Class.forName("io.netty.channel.ChannelHandler", false, l);
            MethodHandles.Lookup pub = MethodHandles.publicLookup();
            return new Aggregation(
                pub.findVirtual(chc, "pipeline", MethodType.methodType(cp))
                    .asType(MethodType.methodType(Object.class, Object.class)),
                pub.findVirtual(cp, "get", MethodType.methodType(ch, Class.class))
                    .asType(MethodType.methodType(Object.class, Object.class, Class.class)));
          } catch (ReflectiveOperationException e) {
            return null;
          }
        }
      };

  /** Netty's {@code MessageAggregator} (the HTTP aggregator's base), beside a message's class. */
  private static final ClassValue<Class<?>> AGGREGATOR =
      new ClassValue<>() {
        @Override
        protected Class<?> computeValue(Class<?> c) {
          try {
            return Class.forName(
                "io.netty.handler.codec.MessageAggregator", false, c.getClassLoader());
          } catch (ClassNotFoundException e) {
            return null;
          }
        }
      };

  /** Whether a class is a whole (aggregated) request. */
  private static final ClassValue<Boolean> FULL_REQUEST =
      new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> c) {
          return implementsNamed(c, "io.netty.handler.codec.http.FullHttpRequest");
        }
      };

  private static boolean implementsNamed(Class<?> c, String name) {
    for (Class<?> k = c; k != null; k = k.getSuperclass()) {
      for (Class<?> i : k.getInterfaces()) {
        if (i.getName().equals(name) || implementsNamed(i, name)) return true;
      }
    }
    return false;
  }

  /** Netty's groups take their size at construction and never change it. */
  @Override
  public String advice(int threads, PoolFigures f) {
    return setting + "=" + threads + " (the group's constructor: fixed while it runs)";
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
   * request when the message is a decoded HTTP request ({@link #isRequestAt}), handled in a task of
   * an executor group (an offloaded handler) or in an I/O loop's I/O phase (a handler on the loop).
   * The outermost handler's read is the request; the handlers it fires to are inside it.
   */
  static final class ChannelRead {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object ctx, @Advice.Argument(0) Object msg) {
      TineBridge.reqAt(ID, ctx, msg, true, null);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(
        @Advice.This Object ctx, @Advice.Argument(0) Object msg, @Advice.Thrown Throwable thrown) {
      TineBridge.reqAt(ID, ctx, msg, false, thrown);
    }
  }

  /**
   * {@code NioEventLoop.processSelectedKeys()}, {@code EpollEventLoop.processReady(events, n)}:
   * entered as the loop's {@code select} or {@code epoll_wait} returns with ready channels.
   */
  static final class ProcessKeys {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object loop) {
      TineBridge.loopPhase(ID, loop, IO_BEGIN);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.This Object loop) {
      TineBridge.loopPhase(ID, loop, IO_END);
    }
  }

  /**
   * {@code NioEventLoop.processSelectedKey(key, channel)}: the loop reaches the next ready channel.
   */
  static final class ProcessKey {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object loop) {
      TineBridge.loopPhase(ID, loop, KEY);
    }
  }

  /**
   * {@code EpollStreamUnsafe.epollInReady()}: an Epoll loop reads the next ready channel (its
   * {@code processReady} calls it once per ready channel with bytes to read).
   */
  static final class ReadyChannel {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
      TineBridge.loopPhase(ID, null, KEY);
    }
  }

  /** {@code SingleThreadEventExecutor.runAllTasks}: an event loop runs its queued tasks. */
  static final class RunAllTasks {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object loop) {
      TineBridge.loopPhase(ID, loop, TASKS_BEGIN);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.This Object loop) {
      TineBridge.loopPhase(ID, loop, TASKS_END);
    }
  }
}

package dev.tine.agent.instrument;

import dev.tine.agent.state.PoolFigures;
import dev.tine.agent.state.ServerFamily;
import dev.tine.agent.state.SizeControl;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.type.TypeDescription;

/**
 * An executor family the agent measures beside the JDK's pools: a server's request pool (Tomcat,
 * Jetty, Undertow, Netty). One file per family says which of its classes' methods mark a task's
 * arrival, start, end and rejection (as ByteBuddy advice calling the bridge's {@code fam*} methods
 * with the family's {@link #id}), and how to read its sizes. The agent's task path ({@link
 * AgentHooks}) and figures ({@code PoolState}) are the same for every family; adding one is a new
 * subclass and a line in {@link Families}.
 *
 * <p>Server classes are not on the agent's class path: sizes are read through the pool's public
 * getters by name, looked up once per class.
 */
abstract class Family implements ServerFamily {
  /** The family's index in {@link Families#ALL}; the advice passes it to the bridge. */
  final int id;

  /** Shown as the pool's kind. */
  final String label;

  @Override
  public final String label() {
    return label;
  }

  /** The server's setting that sizes this pool ({@code maxThreads}, {@code workerThreads}, ...). */
  final String setting;

  /**
   * Whether a task starts only if its arrival was seen (an entry is made for every arrival, timed
   * or not). For families whose start points also run tasks that did not arrive through the pool
   * (Jetty's strategy jobs, Netty's scheduled tasks): those are not counted.
   */
  final boolean startsOnlyIfArrived;

  /** What a second arrival of a task object that still has an entry means. */
  enum Repeat {
    /** It is queued again (Netty queues a handler context's task several times): both wait. */
    QUEUED,
    /**
     * The server queues a task object once at a time (it reuses them, one use after another): the
     * old entry is a use whose start was not seen (a thread that took it in a method entered before
     * the attach), which would otherwise date every later use back by one submission. Replaced.
     */
    STALE,
    /**
     * The same submission reaching a second point (a virtual thread's lazy submit): not counted.
     */
    SAME
  }

  final Repeat repeat;

  Family(int id, String label, String setting, boolean startsOnlyIfArrived, Repeat repeat) {
    this.id = id;
    this.label = label;
    this.setting = setting;
    this.startsOnlyIfArrived = startsOnlyIfArrived;
    this.repeat = repeat;
  }

  /** Something else the family counts ({@code TineBridge.famEvent}); nothing by default. */
  void event(Object pool, Object detail) {}

  /** Internal class name → the advice for it. */
  abstract Map<String, AsmVisitorWrapper> advice();

  /** Whether to instrument this class (one of {@link #advice}'s names) as it is. */
  boolean applies(TypeDescription type) {
    return true;
  }

  /** The pool an instrumented point names (the object itself, by default). Null: not measured. */
  Object poolOf(Object point) {
    return point;
  }

  /**
   * Whether an arrival with this {@code detail} (what the advice passed beside the task) is one the
   * family counts (all, by default).
   */
  boolean counts(Object detail) {
    return true;
  }

  /**
   * Whether the family's request point, reached with this detail, handles a request (yes, by
   * default; Netty's is every message a handler reads).
   */
  boolean isRequest(Object detail) {
    return true;
  }

  /**
   * Whether the family's request point, reached on {@code point} with this detail, handles a
   * request ({@link #isRequest} by default).
   */
  boolean isRequestAt(Object point, Object detail) {
    return isRequest(detail);
  }

  /**
   * Whether the pool hands the tasks that arrive at it on to another executor, which queues and
   * starts them ({@code AgentHooks.startDelegated}; Jetty's {@code ExecutorThreadPool}): none by
   * default.
   */
  boolean delegates(Object pool) {
    return false;
  }

  /** Whether the family has event loops ({@code TineHooks.loopPhase}): Netty's. */
  boolean hasLoops() {
    return false;
  }

  /**
   * When the server itself started the request its request point was reached with ({@code
   * System.nanoTime()}; Tomcat's first byte of the request read), or 0 to start it now.
   */
  long requestStart(Object detail) {
    return 0;
  }

  /**
   * Whether the request whose entry point (or later dispatch) returns now has left its thread
   * without ending ({@code detail}: the server's request object): a Servlet async request, which
   * the server dispatches again ({@code TineHooks.reqResume}) to end it. None by default.
   */
  boolean suspended(Object detail) {
    return false;
  }

  /**
   * Whether a pool of class {@code className}, measured as a JDK pool (no family's), is this
   * server's own request pool, so that the server's requests count for it (none, by default).
   */
  boolean ownsJdkPool(String className) {
    return false;
  }

  /**
   * Whether a pool of class {@code c}, measured as a JDK pool, is this server's own: its class or a
   * superclass is one ({@link #ownsJdkPool(String)}; an application's subclass of an older Tomcat's
   * pool is still Tomcat's request pool).
   */
  final boolean ownsJdkPool(Class<?> c) {
    return ownsJdk.get(c);
  }

  /**
   * Whether this server's request, on a thread where no task of the family's own pool runs, counts
   * for the JDK pool whose task the thread runs (a pool of class {@code c}): by default only where
   * that pool is the server's own ({@link #ownsJdkPool(Class)}). A server that can run its requests
   * only on the executor it was given says yes for any pool ({@code TomcatFamily}).
   */
  boolean requestsOnJdkPool(Class<?> c) {
    return ownsJdkPool(c);
  }

  private final ClassValue<Boolean> ownsJdk =
      new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> c) {
          for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            if (ownsJdkPool(k.getName())) return true;
          }
          return false;
        }
      };

  /** Whether a task arriving with this detail starts at once on the arriving thread (no wait). */
  boolean startsHere(Object detail) {
    return false;
  }

  /** Whether the end point reached with this detail ends the thread's task (yes, by default). */
  boolean endsHere(Object detail) {
    return true;
  }

  @Override
  public abstract boolean readSizes(Object pool, PoolFigures f) throws Throwable;

  /** Threads of the pool now (a gauge), or -1. */
  abstract int threads(Object pool);

  /** Tasks queued now (a gauge), or -1. */
  abstract int queued(Object pool);

  /** What to set {@link #setting} to for {@code threads} request threads. */
  @Override
  public String advice(int threads, PoolFigures f) {
    return setting + "=" + threads;
  }

  @Override
  public String extras() {
    return "";
  }

  // ---------------------------------------------------------------------------------------------
  // Getters by name

  private final Map<String, MethodHandle> getters = new ConcurrentHashMap<>();

  /** {@code pool.name()} (a public no-argument method), or throws. */
  final Object call(Object pool, String name) throws Throwable {
    Class<?> c = pool.getClass();
    String key = c.getName() + "#" + System.identityHashCode(c) + "#" + name;
    MethodHandle h = getters.get(key);
    if (h == null) {
      Method m = c.getMethod(name);
      // a public method of a class that may not be public (Netty's group subclasses): unreflect
      // the declaration from the public type that declares it
      h = MethodHandles.publicLookup().unreflect(publicDeclaration(m));
      h = h.asType(MethodType.methodType(Object.class, Object.class));
      getters.put(key, h);
    }
    return h.invokeExact(pool);
  }

  final int intOf(Object pool, String name) throws Throwable {
    return ((Number) call(pool, name)).intValue();
  }

  final int intOrMinus(Object pool, String name) {
    try {
      return pool == null ? -1 : intOf(pool, name);
    } catch (Throwable t) {
      return -1;
    }
  }

  private final Map<String, MethodHandle> setters = new ConcurrentHashMap<>();

  /** {@code pool.name(value)} (a public method taking one int), or throws. */
  final void callInt(Object pool, String name, int value) throws Throwable {
    Class<?> c = pool.getClass();
    String key = c.getName() + "#" + System.identityHashCode(c) + "#" + name;
    MethodHandle h = setters.get(key);
    if (h == null) {
      Method m = c.getMethod(name, int.class);
      h = MethodHandles.publicLookup().unreflect(publicDeclaration(m));
      h = h.asType(MethodType.methodType(void.class, Object.class, int.class));
      setters.put(key, h);
    }
    h.invokeExact(pool, value);
  }

  /**
   * A pool sized by a pair of public int getters and setters (core and maximum, or Jetty's min and
   * max threads), called by name.
   */
  final SizeControl pairControl(
      Object pool,
      SizeControl.Effective effective,
      String setting,
      String getCore,
      String setCore,
      String getMax,
      String setMax) {
    return new SizeControl(effective, setting) {
      @Override
      public int core() throws Throwable {
        return intOf(pool, getCore);
      }

      @Override
      public int max() throws Throwable {
        return intOf(pool, getMax);
      }

      @Override
      protected void setCore(int n) throws Throwable {
        callInt(pool, setCore, n);
      }

      @Override
      protected void setMax(int n) throws Throwable {
        callInt(pool, setMax, n);
      }
    };
  }

  private static Method publicDeclaration(Method m) {
    if (java.lang.reflect.Modifier.isPublic(m.getDeclaringClass().getModifiers())) return m;
    for (Class<?> c = m.getDeclaringClass(); c != null; c = c.getSuperclass()) {
      for (Class<?> i : c.getInterfaces()) {
        try {
          Method im = i.getMethod(m.getName(), m.getParameterTypes());
          if (java.lang.reflect.Modifier.isPublic(i.getModifiers())) return im;
        } catch (NoSuchMethodException e) {
          // not this one
        }
      }
      try {
        Method sm = c.getMethod(m.getName(), m.getParameterTypes());
        if (java.lang.reflect.Modifier.isPublic(sm.getDeclaringClass().getModifiers())) return sm;
      } catch (NoSuchMethodException e) {
        // not this one
      }
    }
    return m;
  }
}

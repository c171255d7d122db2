package dev.tine.agent.state;

import java.lang.reflect.Field;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * Per kind of pool: how its size is set at run time, or why it is not (see tine-agent/DESIGN.md,
 * "Resizing").
 */
public final class PoolSizing {
  private PoolSizing() {}

  /**
   * The application's {@code MeasuredExecutor}, by name. Joined at run time: the agent jar's
   * shading relocates {@code dev.tine.executor} (its own copy) and would rewrite a literal naming
   * it, which then never matches the application's class.
   */
  static final String MEASURED_EXECUTOR =
      String.join(".", "dev", "tine", "executor", "MeasuredExecutor");

  /** The pool's sizing now (its sizes decide a single-thread pool). */
  public static Sizing of(PoolState st, Object pool) {
    if (st.family != null) return st.family.sizing(pool);
    switch (st.kind) {
      case FORK_JOIN:
        return Sizing.refuse(
            "a ForkJoinPool's parallelism is not resized: it also bounds the spare threads the pool"
                + " adds for blocked workers, and the common pool's cannot change (JDK 19+'s"
                + " setParallelism exists; the agent leaves it to the application)");
      case TINE:
        return Sizing.refuse(
            "a WorkStealingPool's parallelism is fixed when it is built: each worker owns a deque"
                + " that the others steal from and the stall spare is sized from it");
      default:
        break;
    }
    if (!(pool instanceof ThreadPoolExecutor p))
      return Sizing.refuse(pool.getClass().getName() + ": the agent cannot set its size");
    if (p.getClass().getName().startsWith(MEASURED_EXECUTOR + "$")) return measuredExecutor(p);
    SizeControl c = SizeControl.of(p);
    // a single-thread pool is what the application built: judged on the sizes before the agent's
    // first change (a forced resize to 3 does not make it a pool tune may size)
    int core = p.getCorePoolSize(), max = p.getMaximumPoolSize();
    synchronized (st.sizes) {
      if (st.sizes.changed()) {
        core = st.sizes.originalCore;
        max = st.sizes.originalMax;
      }
    }
    if (p instanceof ScheduledThreadPoolExecutor && core == 1)
      return Sizing.refuseUnlessForced(
          c,
          "a single-thread scheduled pool (Executors.newSingleThreadScheduledExecutor makes one):"
              + " its tasks may rely on running one at a time");
    if (c.effective() == SizeControl.Effective.CORE && core == 1 && max == 1)
      return Sizing.refuseUnlessForced(
          c,
          "a single-thread pool (Executors.newSingleThreadExecutor makes one, behind a wrapper"
              + " that hides its setters): its tasks may rely on running one at a time, in order");
    return Sizing.of(c);
  }

  /**
   * The pool inside a {@code MeasuredExecutor} (tine-executor): a self-sizing one sizes itself, so
   * the agent does not fight it; a fixed one is set through its own {@code setPoolSize}, which
   * starts the new threads at once.
   */
  private static Sizing measuredExecutor(ThreadPoolExecutor p) {
    Object outer;
    try {
      Field f = p.getClass().getDeclaredField("this$0");
      f.setAccessible(true);
      outer = f.get(p);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return Sizing.refuse(
          "a MeasuredExecutor's pool whose executor the agent cannot reach (" + e + ")");
    }
    try {
      Class<?> c = outer.getClass();
      String name = String.valueOf(c.getMethod("name").invoke(outer));
      if ((boolean) c.getMethod("selfSizing").invoke(outer))
        return Sizing.refuse(
            "MeasuredExecutor "
                + name
                + " sizes itself from its own measurements (selfSizing): its bounds are set"
                + " where it is built (MeasuredExecutor.Builder.selfSizing(min, max))");
      var size = c.getMethod("poolSize");
      var set = c.getMethod("setPoolSize", int.class);
      return Sizing.of(
          new SizeControl(SizeControl.Effective.CORE, "pool size (MeasuredExecutor.setPoolSize)") {
            @Override
            public int core() throws Throwable {
              return (int) size.invoke(outer);
            }

            @Override
            public int max() throws Throwable {
              return core();
            }

            @Override
            protected void setCore(int n) throws Throwable {
              set.invoke(outer, n);
            }

            @Override
            protected void setMax(int n) throws Throwable {
              set.invoke(outer, n);
            }

            @Override
            public void setPair(int core, int max) throws Throwable {
              if (core != core()) setCore(core);
            }
          });
    } catch (ReflectiveOperationException | RuntimeException e) {
      return Sizing.refuse("a MeasuredExecutor the agent cannot size (" + e + ")");
    }
  }
}

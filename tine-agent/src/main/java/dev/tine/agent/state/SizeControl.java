package dev.tine.agent.state;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * How one pool's effective size is set at run time and read back: a pair (core, maximum) that the
 * pool requires in order (core ≤ maximum at every step: the JDK's {@code setCorePoolSize} above the
 * maximum and {@code setMaximumPoolSize} below the core throw), and which of the two bounds the
 * threads that run tasks.
 *
 * <ul>
 *   <li>{@link Effective#CORE}: a queue that never refuses a task (unbounded) means a thread beyond
 *       the core is never started, so the core is the size. A fixed pool (core = maximum) keeps the
 *       two equal; a {@code ScheduledThreadPoolExecutor}'s maximum is never used.
 *   <li>{@link Effective#MAX}: a queue that hands over (SynchronousQueue) or fills (bounded), or a
 *       server pool that starts threads before queueing (Tomcat's TaskQueue, Jetty, JBoss' {@code
 *       EnhancedQueueExecutor}): the maximum is the size; a core equal to it follows it.
 * </ul>
 */
public abstract class SizeControl {
  /** Which of the pair bounds the threads running tasks. */
  public enum Effective {
    CORE,
    MAX
  }

  private final Effective effective;
  private final String setting;

  protected SizeControl(Effective effective, String setting) {
    this.effective = effective;
    this.setting = setting;
  }

  /** {@return what the effective size is called in the pool's terms} */
  public final String setting() {
    return setting;
  }

  public final Effective effective() {
    return effective;
  }

  public abstract int core() throws Throwable;

  public abstract int max() throws Throwable;

  protected abstract void setCore(int n) throws Throwable;

  protected abstract void setMax(int n) throws Throwable;

  /** {@return the effective size now} */
  public int size() throws Throwable {
    return effective == Effective.CORE ? core() : max();
  }

  /** The (core, maximum) pair that gives the effective size {@code n} from (core, max) now. */
  public final int[] pairFor(int n, int core, int max) {
    boolean fixed = core == max;
    if (effective == Effective.CORE) return new int[] {n, fixed ? n : Math.max(max, n)};
    return new int[] {fixed ? n : Math.min(core, n), n};
  }

  /** Sets the effective size to {@code n}. */
  public void set(int n) throws Throwable {
    int[] p = pairFor(n, core(), max());
    setPair(p[0], p[1]);
  }

  /**
   * Sets core and maximum, in the order that keeps core ≤ maximum at every step: the maximum first
   * if it stays at or above the core now, else the core first.
   */
  public void setPair(int core, int max) throws Throwable {
    if (max >= core()) {
      if (max != max()) setMax(max);
      if (core != core()) setCore(core);
    } else {
      if (core != core()) setCore(core);
      if (max != max()) setMax(max);
    }
  }

  /** A JDK pool (and its subclasses: an older Tomcat's, an application's). */
  public static SizeControl of(ThreadPoolExecutor p) {
    if (p instanceof ScheduledThreadPoolExecutor)
      return new Jdk(p, Effective.CORE, "core pool size (a scheduled pool's maximum is unused)");
    BlockingQueue<Runnable> q = p.getQueue();
    // a Tomcat TaskQueue is unbounded but refuses a task while the pool can grow: the maximum
    // counts
    if (q.getClass().getName().startsWith("org.apache.tomcat.")) return jdkMax(p, "maxThreads");
    // remaining capacity alone: a LinkedTransferQueue's size() walks the queue
    if (q.remainingCapacity() >= Integer.MAX_VALUE / 2) {
      return new Jdk(
          p,
          Effective.CORE,
          p.getCorePoolSize() == p.getMaximumPoolSize()
              ? "pool size (core = maximum)"
              : "core pool size (an unbounded queue: the maximum is unused)");
    }
    return jdkMax(p, "maximum pool size");
  }

  private static SizeControl jdkMax(ThreadPoolExecutor p, String setting) {
    return new Jdk(p, Effective.MAX, setting);
  }

  /** The JDK's pool, called directly. */
  private static final class Jdk extends SizeControl {
    private final ThreadPoolExecutor p;

    Jdk(ThreadPoolExecutor p, Effective e, String setting) {
      super(e, setting);
      this.p = p;
    }

    @Override
    public int core() {
      return p.getCorePoolSize();
    }

    @Override
    public int max() {
      return p.getMaximumPoolSize();
    }

    @Override
    protected void setCore(int n) {
      p.setCorePoolSize(n);
    }

    @Override
    protected void setMax(int n) {
      p.setMaximumPoolSize(n);
    }
  }
}

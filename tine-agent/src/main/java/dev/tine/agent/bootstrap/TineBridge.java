package dev.tine.agent.bootstrap;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The calls that instrumented JDK code makes. Loaded by the bootstrap class loader (the agent
 * appends a jar holding only this package to its search path), so that code in {@code java.base}
 * can link to it; it forwards to the agent through the volatile {@link #hooks}.
 *
 * <p>Each method returns at once while no agent is installed ({@code hooks} null, also after the
 * agent is stopped), and never lets anything escape: a failure in the agent is counted in {@link
 * #failures()} and remembered in {@link #lastFailure()}, and the application's call goes on as if
 * the agent were not there.
 */
public final class TineBridge {
  private TineBridge() {}

  /** The installed agent, or null. */
  public static volatile TineHooks hooks;

  /**
   * Timed external ForkJoinPool submissions not yet started, over all pools. The advice on {@code
   * ForkJoinTask.doExec} (which runs for every fork, too) looks a task up only while this is
   * non-zero, so fork/join work pays one volatile read when nothing external is pending.
   */
  public static volatile int fjPending;

  private static final AtomicLong FAILURES = new AtomicLong();
  private static volatile Throwable lastFailure;

  /** Failures inside the agent's hooks since the JVM started (each one swallowed). */
  public static long failures() {
    return FAILURES.get();
  }

  /** The most recent such failure, or null. */
  public static Throwable lastFailure() {
    return lastFailure;
  }

  /** Counts a failure caught in the agent (also used by the agent's own threads). */
  public static void failed(Throwable t) {
    try {
      FAILURES.incrementAndGet();
      lastFailure = t;
    } catch (Throwable ignored) {
      // nothing more can be done without risking the caller
    }
  }

  public static void tpeCreated(Object pool) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.tpeCreated(pool);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void tpeExecute(Object pool, Object task) {
    TineHooks h = hooks;
    if (h == null || task == null) return;
    try {
      h.tpeExecute(pool, task);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void tpeReject(Object pool, Object task) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.tpeReject(pool, task);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void tpeIdle(Object pool) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.tpeIdle(pool);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void tpeTaken(Object pool, Object task) {
    TineHooks h = hooks;
    if (h == null || task == null) return;
    try {
      h.tpeTaken(pool, task);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void tpeWorkerStart(Object pool, Object firstTask) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.tpeWorkerStart(pool, firstTask);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void tpeWorkerExit(Object pool, Throwable thrown) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.tpeWorkerExit(pool, thrown);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void tpeRunStart(Object pool) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.tpeRunStart(pool);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void tpeRunEnd(Object pool, Throwable thrown) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.tpeRunEnd(pool, thrown);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void fjCreated(Object pool) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.fjCreated(pool);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void fjSubmit(Object pool, Object task) {
    TineHooks h = hooks;
    if (h == null || task == null) return;
    try {
      h.fjSubmit(pool, task);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void fjFork(Object task) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.fjFork(task);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void fjRejected(Object pool, Object task, Throwable thrown) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.fjRejected(pool, task, thrown);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static Object fjStart(Object task) {
    TineHooks h = hooks;
    if (h == null) return null;
    try {
      return h.fjStart(task);
    } catch (Throwable t) {
      failed(t);
      return null;
    }
  }

  public static void fjEnd(Object token) {
    TineHooks h = hooks;
    if (h == null || token == null) return;
    try {
      h.fjEnd(token);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void tineSubmit(Object pool) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.tineSubmit(pool);
    } catch (Throwable t) {
      failed(t);
    }
  }
}

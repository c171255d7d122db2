package dev.tine.agent.bootstrap;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.ObjIntConsumer;

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

  /**
   * Threads of an executor family's pool (Tomcat's) that were running its worker loop when the
   * agent was attached and have not started a task the agent saw: each may take its next task in a
   * {@code getTask} frame that was running before the attach, uninstrumented. The family's {@code
   * beforeExecute} advice calls into the agent only while this is non-zero (0 with {@code
   * -javaagent}).
   */
  public static volatile int unseenStarts;

  private static final AtomicLong FAILURES = new AtomicLong();
  private static volatile Throwable lastFailure;

  /** {@return failures inside the agent's hooks since the JVM started (each one swallowed)} */
  public static long failures() {
    return FAILURES.get();
  }

  /** {@return the most recent such failure, or null} */
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

  // ---------------------------------------------------------------------------------------------
  // Stack traces

  /**
   * Source file name (the class file's {@code SourceFile}) of every class the agent has
   * transformed, by class name. Kept after the agent stops: its classes stay redefined.
   */
  public static final Map<String, String> SOURCE_FILES = new ConcurrentHashMap<>();

  /**
   * Line number tables of the methods of those classes as their class files had them, by {@code
   * class.method}: {start bci, line} pairs (an empty table where a name is overloaded).
   */
  public static final Map<String, int[]> LINE_TABLES = new ConcurrentHashMap<>();

  /** Sets a stack trace element's file name (set once by the agent; null until then). */
  public static volatile BiConsumer<StackTraceElement, String> setFileName;

  /** Sets a stack trace element's line number (set with {@link #setFileName}). */
  public static volatile ObjIntConsumer<StackTraceElement> setLineNumber;

  /**
   * Called on every stack trace the JDK builds ({@code StackTraceElement.of}, exit). A frame of a
   * method that was already running when its class was redefined (a pool thread's {@code runWorker}
   * at attach, or at stop) has its line number but no file name: the JVM reads the file name
   * through the class's current constant pool, and gives up for an older version. Puts back the
   * name the class file had, so the trace reads as it would without the agent.
   */
  public static void restoreSourceFiles(StackTraceElement[] trace) {
    BiConsumer<StackTraceElement, String> set = setFileName;
    if (set == null || trace == null || SOURCE_FILES.isEmpty()) return;
    try {
      for (StackTraceElement e : trace) restore(set, e);
    } catch (Throwable t) {
      failed(t);
    }
  }

  /**
   * {@link #restoreSourceFiles} for one {@code StackWalker} frame's element. For such a frame the
   * JVM drops the line number too; while the agent runs, every such frame runs the bytecode the
   * class file had (the one retransformation that redefined it under that frame), so the line comes
   * from that class file's table at the frame's bytecode index.
   */
  public static void restoreSourceFile(StackTraceElement e, Object frame) {
    BiConsumer<StackTraceElement, String> set = setFileName;
    ObjIntConsumer<StackTraceElement> setLine = setLineNumber;
    if (set == null || setLine == null || e == null || SOURCE_FILES.isEmpty()) return;
    try {
      if (e.getFileName() != null || e.isNativeMethod()) return;
      restore(set, e);
      if (e.getLineNumber() < 0
          && hooks != null
          && frame instanceof StackWalker.StackFrame f
          && e.getFileName() != null) {
        // by name: the descriptor needs a walker that retains class references
        int[] table = LINE_TABLES.get(e.getClassName() + "." + f.getMethodName());
        int line = lineAt(table, f.getByteCodeIndex());
        if (line >= 0) setLine.accept(e, line);
      }
    } catch (Throwable t) {
      failed(t);
    }
  }

  /**
   * The {@code ThreadPoolExecutor} whose worker loop the thread {@code t} runs (its {@code
   * Runnable} is the pool's {@code Worker}), or null. Reads private fields of {@code
   * java.lang.Thread} and {@code ThreadPoolExecutor$Worker}, so the agent opens {@code java.lang}
   * and {@code java.util.concurrent} to this class's module (and no other) before it calls this:
   * once, after an attach, to find the pools whose every task started before it.
   */
  public static Object workerPool(Thread t) throws ReflectiveOperationException {
    java.lang.reflect.Field h = Thread.class.getDeclaredField("holder");
    h.setAccessible(true);
    Object holder = h.get(t);
    if (holder == null) return null;
    java.lang.reflect.Field f = holder.getClass().getDeclaredField("task");
    f.setAccessible(true);
    Object task = f.get(holder);
    if (task == null
        || !task.getClass().getName().equals("java.util.concurrent.ThreadPoolExecutor$Worker")) {
      return null;
    }
    java.lang.reflect.Field outer = task.getClass().getDeclaredField("this$0");
    outer.setAccessible(true);
    return outer.get(task);
  }

  /** The JVM's rule: the entry at {@code bci}, else the nearest one that starts before it. */
  static int lineAt(int[] table, int bci) {
    if (table == null || bci < 0) return -1;
    int best = -1, bestStart = -1;
    for (int i = 0; i + 1 < table.length; i += 2) {
      int start = table[i];
      if (start == bci) return table[i + 1];
      if (start < bci && start >= bestStart) {
        bestStart = start;
        best = table[i + 1];
      }
    }
    return best;
  }

  private static void restore(BiConsumer<StackTraceElement, String> set, StackTraceElement e) {
    if (e == null || e.getFileName() != null || e.isNativeMethod()) return;
    String file = SOURCE_FILES.get(e.getClassName());
    if (file != null) set.accept(e, file);
  }

  // ---------------------------------------------------------------------------------------------
  // Pools

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

  public static void tpeRunStart(Object pool, Object task) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.tpeRunStart(pool, task);
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

  // ---------------------------------------------------------------------------------------------
  // Executor families

  public static void famCreated(int fam, Object pool) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.famCreated(fam, pool);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void famArrive(int fam, Object pool, Object task, Object detail) {
    TineHooks h = hooks;
    if (h == null || task == null) return;
    try {
      h.famArrive(fam, pool, task, detail);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void famReject(int fam, Object pool, Object task) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.famReject(fam, pool, task);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void famStart(int fam, Object pool, Object task) {
    TineHooks h = hooks;
    if (h == null || task == null) return;
    try {
      h.famStart(fam, pool, task);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void famRunStart(int fam, Object pool, Object task) {
    TineHooks h = hooks;
    if (h == null || task == null) return;
    try {
      h.famRunStart(fam, pool, task);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void famEnd(int fam, Object pool, Object detail, Throwable thrown) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.famEnd(fam, pool, detail, thrown);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void famThread(
      int fam, Object pool, Object firstTask, boolean starting, Throwable thrown) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.famThread(fam, pool, firstTask, starting, thrown);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void famEvent(int fam, Object pool, Object detail) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.famEvent(fam, pool, detail);
    } catch (Throwable t) {
      failed(t);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Requests

  public static void reqBegin(int fam, Object detail) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.reqBegin(fam, detail);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void reqEnd(int fam, Object detail, Throwable thrown) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.reqEnd(fam, detail, thrown);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void reqDone(int fam) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.reqDone(fam);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void reqAt(int fam, Object point, Object detail, boolean begin, Throwable thrown) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.reqAt(fam, point, detail, begin, thrown);
    } catch (Throwable t) {
      failed(t);
    }
  }

  public static void reqResume(int fam, Object detail, boolean begin, Throwable thrown) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.reqResume(fam, detail, begin, thrown);
    } catch (Throwable t) {
      failed(t);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Event loops

  public static void loopPhase(int fam, Object loop, int phase) {
    TineHooks h = hooks;
    if (h == null) return;
    try {
      h.loopPhase(fam, loop, phase);
    } catch (Throwable t) {
      failed(t);
    }
  }
}

package dev.tine.agent.bootstrap;

/**
 * What the agent does at each instrumented point. The advice inlined into JDK classes calls {@link
 * TineBridge}'s static methods, which forward to the one installed implementation. This interface
 * and {@link TineBridge} are the only agent classes the bootstrap class loader sees (they are
 * appended to its search path before anything is instrumented), so they must depend on nothing but
 * {@code java.base}.
 *
 * <p>Every method runs on an application thread, inside the application's own call (submitting a
 * task, a pool thread taking one): it must not block, must not call the application's code except
 * where stated, and may throw (the bridge counts it and carries on).
 */
public interface TineHooks {
  /** A ThreadPoolExecutor (or subclass) finished a constructor. */
  void tpeCreated(Object pool);

  /** {@code ThreadPoolExecutor.execute(task)} was entered: an arrival (task not null). */
  void tpeExecute(Object pool, Object task);

  /** {@code ThreadPoolExecutor.reject(task)} was entered: the pool refused the task. */
  void tpeReject(Object pool, Object task);

  /**
   * A pool thread asks for its next task ({@code getTask} entered): its previous task, if any,
   * ended.
   */
  void tpeIdle(Object pool);

  /** {@code getTask} returned {@code task} (not null): it starts now on this thread. */
  void tpeTaken(Object pool, Object task);

  /** A pool thread starts ({@code Worker.run} entered); {@code firstTask} (or null) runs first. */
  void tpeWorkerStart(Object pool, Object firstTask);

  /** A pool thread ends ({@code Worker.run} returned, or threw {@code thrown}). */
  void tpeWorkerExit(Object pool, Throwable thrown);

  /**
   * {@code beforeExecute(thread, task)} returned: the task's own run starts now (its service time
   * with it); the task itself starts here if its start at {@code getTask} was not seen.
   */
  void tpeRunStart(Object pool, Object task);

  /**
   * {@code afterExecute} was entered: the task's run ended now; with a throwable, the task threw
   * and its thread is about to end.
   */
  void tpeRunEnd(Object pool, Throwable thrown);

  /** A ForkJoinPool finished a constructor. */
  void fjCreated(Object pool);

  /**
   * {@code task} is being submitted to {@code pool} through its submission methods: an arrival,
   * unless the calling thread is one of the pool's own workers (then it is like a fork).
   */
  void fjSubmit(Object pool, Object task);

  /**
   * {@code task.fork()} was called: from a thread outside any pool, an arrival at the common pool.
   */
  void fjFork(Object task);

  /**
   * A submission of {@code task} to {@code pool} threw {@code thrown} (a rejection if it is a
   * RejectedExecutionException).
   */
  void fjRejected(Object pool, Object task, Throwable thrown);

  /**
   * {@code ForkJoinTask.doExec} was entered (only while {@link TineBridge#fjPending} is non-zero):
   * returns a token for {@link #fjEnd} if {@code task} is a timed external submission, else null.
   */
  Object fjStart(Object task);

  /** The task of {@code token} (from {@link #fjStart}) finished running. */
  void fjEnd(Object token);

  /** A submission method of Tine's {@code dev.tine.WorkStealingPool} was entered. */
  void tineSubmit(Object pool);

  // Executor families (servers' pools): {@code fam} is the family's number, {@code pool} the object
  // the instrumented point names (the family maps it to its pool; null: the pool the calling thread
  // is bound to).

  /** A pool of the family finished a constructor. */
  void famCreated(int fam, Object pool);

  /** {@code task} arrives at the pool; {@code detail} is what else the point knows (or null). */
  void famArrive(int fam, Object pool, Object task, Object detail);

  /** The pool refused {@code task}. */
  void famReject(int fam, Object pool, Object task);

  /** {@code task} starts on the calling thread (its previous task, if any, ended). */
  void famStart(int fam, Object pool, Object task);

  /**
   * {@code beforeExecute(thread, task)} of a family's pool returned, while {@link
   * TineBridge#unseenStarts} is non-zero: {@code task} starts here if its start was not seen.
   */
  void famRunStart(int fam, Object pool, Object task);

  /** The calling thread's task ends (if {@code detail} says this point ends it). */
  void famEnd(int fam, Object pool, Object detail, Throwable thrown);

  /** A pool thread starts (with {@code firstTask}, or null) or ends ({@code thrown} or null). */
  void famThread(int fam, Object pool, Object firstTask, boolean starting, Throwable thrown);

  /** Something else family {@code fam} counts (what, in {@code detail}). */
  void famEvent(int fam, Object pool, Object detail);

  // Requests: a server's own per-request entry point (Tomcat's CoyoteAdapter.service, ...). A
  // request belongs to the pool whose task the calling thread runs.

  /**
   * A request's handling starts on the calling thread (server family {@code fam}; {@code detail}:
   * what the point handles, for a family whose point also handles what is not a request).
   */
  void reqBegin(int fam, Object detail);

  /** The point where the calling thread's request began returns ({@code thrown}: it threw). */
  void reqEnd(int fam, Object detail, Throwable thrown);

  /**
   * The server completed the calling thread's request before its entry point returned (Undertow's
   * exchange completion, where its access log logs): it ends now.
   */
  void reqDone(int fam);

  /**
   * A request point that needs the object it is reached on to tell a request ({@code point}: a
   * Netty handler context, whose handler may only collect the request's parts): as {@link
   * #reqBegin} ({@code begin}) or {@link #reqEnd}.
   */
  void reqAt(int fam, Object point, Object detail, boolean begin, Throwable thrown);

  /**
   * The server dispatches again a request that left its thread without ending ({@code detail}: the
   * server's request object; Tomcat's {@code asyncDispatch} of a Servlet async request): the
   * dispatch begins ({@code begin}) or returns. A request not suspended is not a request here.
   */
  void reqResume(int fam, Object detail, boolean begin, Throwable thrown);

  // Event loops (Netty's I/O loops): the calling loop thread enters or leaves a phase of its loop
  // ({@code phase}: the family's numbering), on the loop {@code loop}.

  void loopPhase(int fam, Object loop, int phase);
}

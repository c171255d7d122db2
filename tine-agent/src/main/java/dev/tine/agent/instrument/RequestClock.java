package dev.tine.agent.instrument;

import dev.tine.agent.state.PoolTally;
import dev.tine.agent.state.RequestView;

/**
 * One pool thread's request, between a server's per-request entry point and its exit (see {@link
 * RequestView} for what the figures mean). Kept in the thread's {@link AgentHooks.Slot}: a request
 * belongs to the pool whose task the thread runs, and its wait starts at that task's arrival (the
 * first request of the task) or at the thread's previous request's end in the same task.
 */
final class RequestClock {
  /** Nested entry points (a server calling its own entry again): only the outermost counts. */
  private int depth;

  private RequestView view;
  private long arrival, start;

  /** The task (its {@link AgentHooks.Slot#taskSeq}) whose arrival a request has already used. */
  private long taskUsed = -1;

  /** The end of the thread's previous request (0: none in the current task). */
  private long previousEnd;

  /** The server's own start of the open request (0: none), kept with it if it is suspended. */
  private long serverStart;

  /** The suspended request this thread's open request resumes (null: a request of its own). */
  private Suspension resumed;

  /**
   * A request that left its thread without ending (a Servlet async request between its dispatches):
   * its wait for the pool's threads and its time on them so far, summed over its dispatches. Its
   * request was counted where it began; it is recorded once, where it ends, as one request whose
   * wait and handling are those sums (so λ·(Wq+S) is the threads it held or waited for).
   */
  static final class Suspension {
    final RequestView view;

    /** The server's own start of the request (0: none): a later dispatch of the same one has it. */
    final long serverStart;

    /** Summed waits for a thread (-1: a dispatch was untimed, so the request is). */
    long waited;

    /** Summed time on threads. */
    long held;

    /** When it left its last thread, and the slot and task it left there. */
    long end;

    AgentHooks.Slot slot;
    long taskSeq;

    Suspension(RequestView view, long serverStart) {
      this.view = view;
      this.serverStart = serverStart;
    }

    /** It ends as it stands (at {@link #end}). */
    void record(boolean threw) {
      long start = end - held;
      view.tally.record(waited < 0 ? PoolTally.UNTIMED : start - waited, start, end, threw);
    }
  }

  /**
   * A request starts on a thread running {@code slot}'s task (which is timed or not); {@code
   * serverStart}: when the server says it started it (its own clock reading, earlier on this
   * thread), or 0 for now. Returns whether a request began (not a nested entry).
   */
  boolean begin(AgentHooks.Slot slot, long serverStart) {
    if (depth++ > 0) return false;
    view = slot.st.requests();
    if (view == null) return false; // the pool terminated
    long now = view.tally.arrive();
    boolean first = taskUsed != slot.taskSeq;
    if (first) {
      taskUsed = slot.taskSeq;
      arrival = slot.arrival; // UNTIMED if the task is not timed
    } else {
      arrival = slot.arrival == PoolTally.UNTIMED ? PoolTally.UNTIMED : previousEnd;
    }
    // the server's own start counts if it lies in this request's span on this thread (after the
    // task's start and the previous request's end): a reading left from elsewhere does not
    long floor = first ? slot.start : previousEnd;
    start =
        serverStart != 0 && serverStart - now <= 0 && serverStart - floor >= 0 ? serverStart : now;
    this.serverStart = serverStart;
    resumed = null;
    return true;
  }

  /** Whether the open request is the outermost entry (not a nested one). */
  boolean outermost() {
    return depth == 1;
  }

  /** Whether the open request resumes a suspended one. */
  boolean resumed() {
    return depth > 0 && resumed != null;
  }

  /**
   * The open (outermost) request leaves this thread without ending: returns what it has held so
   * far, for the dispatch that resumes it, or null if it was not counted.
   */
  Suspension suspend(AgentHooks.Slot slot) {
    if (depth != 1) return null;
    depth = 0;
    RequestView v = view;
    view = null;
    Suspension p = resumed;
    resumed = null;
    if (v == null) return null;
    long now = System.nanoTime();
    if (p == null) p = new Suspension(v, serverStart);
    add(p, now);
    p.slot = slot;
    p.taskSeq = slot.taskSeq;
    previousEnd = now;
    return p;
  }

  /**
   * A dispatch of suspended request {@code p} begins on this thread, in {@code slot}'s task: in the
   * task it left (it held the thread on, from where it left), else as its task's first request (the
   * task queued by its completion: its wait from the task's arrival, its time from the task's
   * start, the whole task being this dispatch), else after the task's previous request. Returns
   * false inside another request (not resumed here).
   */
  boolean resume(AgentHooks.Slot slot, Suspension p) {
    if (depth > 0) return false;
    depth = 1;
    view = p.view;
    resumed = p;
    serverStart = p.serverStart;
    if (p.slot == slot && p.taskSeq == slot.taskSeq) {
      arrival = p.end;
      start = p.end;
    } else if (taskUsed != slot.taskSeq) {
      taskUsed = slot.taskSeq;
      arrival = slot.arrival;
      start = slot.arrival == PoolTally.UNTIMED ? System.nanoTime() : slot.start;
    } else {
      arrival = slot.arrival == PoolTally.UNTIMED ? PoolTally.UNTIMED : previousEnd;
      start = previousEnd;
    }
    return true;
  }

  /**
   * Adds the open dispatch (from {@link #arrival} and {@link #start} to {@code now}) to {@code p}.
   */
  private void add(Suspension p, long now) {
    p.waited =
        p.waited < 0 || arrival == PoolTally.UNTIMED ? -1 : p.waited + Math.max(0, start - arrival);
    p.held += Math.max(0, now - start);
    p.end = now;
  }

  /** The entry point where the request began returns. */
  void end(boolean threw) {
    if (depth == 0 || --depth > 0) return;
    record(threw);
  }

  /**
   * The server completed the request before its entry point returned: it ends now, and what the
   * thread runs until the entry point returns (the connection's own work, the next request's head
   * read in passing) is no request of its own.
   */
  void done() {
    if (depth > 0) record(false);
  }

  private void record(boolean threw) {
    RequestView v = view;
    view = null;
    if (v == null) return; // not counted, or already ended
    long now = System.nanoTime();
    Suspension p = resumed;
    resumed = null;
    if (p != null) {
      add(p, now);
      p.record(threw);
    } else {
      v.tally.record(arrival, start, now, threw);
    }
    previousEnd = now;
  }

  /** Whether a request is open on this thread. */
  boolean open() {
    return depth > 0;
  }
}

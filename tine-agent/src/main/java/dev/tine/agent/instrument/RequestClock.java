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
    return true;
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
    v.tally.record(arrival, start, now, threw);
    previousEnd = now;
  }

  /** Whether a request is open on this thread. */
  boolean open() {
    return depth > 0;
  }
}

package dev.tine.agent.tune;

import dev.tine.agent.resize.ResizeResult;
import dev.tine.agent.top.AttachClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link Actuator} over the agent's MXBeans in the target: resizes and restores by the pool's id
 * ({@code #id}), and reads the pool's resize attributes (the agent's marker of a change by another
 * tool, and who made the agent's last change) from the attributes {@code tine tune} read last.
 */
final class AgentActuator implements Actuator {
  /** How tune signs its changes in the target's log and JFR events. */
  static final String REQUESTED_BY = "tine tune";

  private final AttachClient client;
  private final String requestedBy;
  private final long startedMillis;
  private final Map<Integer, Map<String, Object>> latest = new HashMap<>();

  AgentActuator(AttachClient client, long startedMillis) {
    this.client = client;
    this.requestedBy = REQUESTED_BY + " (pid " + ProcessHandle.current().pid() + ")";
    this.startedMillis = startedMillis;
  }

  /** The pool's attributes as last read (before each {@link Tuner#observe}). */
  void read(int id, Map<String, Object> attributes) {
    latest.put(id, attributes);
  }

  @Override
  public Outcome resize(PoolWindow pool, int size, String why) {
    try {
      return outcome(client.resize("#" + pool.id(), size, requestedBy, why));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Outcome restore(PoolWindow pool, String why) {
    try {
      return outcome(client.restoreAll("#" + pool.id(), false, requestedBy, why).get(0));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Outcome outcome(ResizeResult r) {
    if (r.ok()) return Outcome.done(r.from(), r.to(), r.message());
    return r.exitCode() == ResizeResult.RESIZED_BY_ANOTHER
        ? Outcome.resizedByOther(r.message())
        : Outcome.refused(r.message());
  }

  @Override
  public String notResizable(PoolWindow pool) {
    Map<String, Object> a = latest.getOrDefault(pool.id(), Map.of());
    if (Boolean.FALSE.equals(a.get("Resizable"))) {
      String why = String.valueOf(a.getOrDefault("NotResizableWhy", ""));
      return why.isEmpty() ? "the agent cannot set its size" : why;
    }
    return null;
  }

  @Override
  public String resizedByOther(PoolWindow pool, int sizeTuneKnows) {
    Map<String, Object> a = latest.getOrDefault(pool.id(), Map.of());
    String external = String.valueOf(a.getOrDefault("ExternalResize", ""));
    if (!external.isEmpty()) return external;
    String by = String.valueOf(a.getOrDefault("LastResizedBy", ""));
    long at =
        PoolWindow.num(a.get("LastResizedAtMillis")) > 0
            ? (long) PoolWindow.num(a.get("LastResizedAtMillis"))
            : 0;
    int current = PoolWindow.integer(a.get("CurrentSize"), -1);
    int original = PoolWindow.integer(a.get("OriginalSize"), -1);
    boolean mine = by.startsWith(requestedBy);
    boolean byTune = by.startsWith(REQUESTED_BY + " ");
    boolean since = at >= startedMillis;
    // a size a tune session before this one kept is this tool's own: tuning goes on from it; one
    // another session sets while this one runs is not (two loops on one pool would fight)
    if (byTune && !mine && since) return "resized meanwhile by another " + by;
    // a size another requester set through the agent (tine top --resize), now or before
    if (!by.isEmpty() && !byTune && (since || current != original))
      return "resized through the agent by " + by;
    if (current > 0 && sizeTuneKnows > 0 && current != sizeTuneKnows && !(mine && since))
      return "its size is " + current + ", not the " + sizeTuneKnows + " tune last saw or set";
    return null;
  }
}

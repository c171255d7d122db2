package dev.tine.agent.core;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The agent changed a pool's size (a resize, or a restore of its original size). Committed only
 * where JFR has initialized in the JVM (as {@link PoolStatisticsEvent}); the log line is written
 * either way.
 */
@Name(PoolResizedEvent.NAME)
@Category({"Tine", "Agent"})
@Label("Pool Resized (agent)")
@Description("tine-agent changed a pool's effective size: from, to, why and who asked")
@StackTrace(false)
final class PoolResizedEvent extends jdk.jfr.Event {
  static final String NAME = "dev.tine.agent.PoolResized";

  @Label("Pool")
  @Description("The pool's name, as tine top shows it")
  String pool;

  @Label("Setting")
  @Description("What the size is in the pool's terms (maximum pool size, maxThreads, ...)")
  String setting;

  @Label("From")
  int from;

  @Label("To")
  int to;

  @Label("Original")
  @Description("The size before the agent first changed it")
  int original;

  @Label("Why")
  String why;

  @Label("Requested By")
  String requestedBy;

  static void emit(
      String pool, String setting, int from, int to, int original, String why, String by) {
    PoolResizedEvent e = new PoolResizedEvent();
    if (!e.isEnabled()) return;
    e.pool = pool;
    e.setting = setting;
    e.from = from;
    e.to = to;
    e.original = original;
    e.why = why;
    e.requestedBy = by;
    e.commit();
  }
}

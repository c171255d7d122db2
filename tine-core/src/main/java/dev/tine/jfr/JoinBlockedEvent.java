package dev.tine.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Threshold;

/**
 * A worker's join that had to block: its target was not done after the join ran its own forks,
 * helped the target's thieves, spun and yielded. The duration runs from the first block to the end
 * of the join (the joiner blocks in timed waits and helps again between them). The stack trace is
 * the join's.
 *
 * <p>Public only so that the runtime's package can fill it; the module does not export this
 * package.
 */
@Name(JoinBlockedEvent.NAME)
@Category({"Tine", "Fork/Join"})
@Label("Blocked Join")
@Description(
    "A worker's join that blocked: its task was neither in the worker's own deque nor "
        + "anywhere it could help; the duration runs from the first block to the end of the join")
@Threshold("20 ms") // as the JDK's default.jfc has for its blocking events; tine.jfc says 1 ms
public final class JoinBlockedEvent extends Event {
  public static final String NAME = "dev.tine.JoinBlocked";

  @Label("Pool")
  public String pool;

  @Label("Task Class")
  @Description("The class of the task joined")
  public Class<?> taskClass;

  @Label("Timed Waits")
  @Description("Timed waits of at most 1 ms, with help between them, before the join ended")
  public int waits;

  @Label("Done")
  @Description(
      "Whether the task was done when the join ended (false: the join's deadline passed first)")
  public boolean done;
}

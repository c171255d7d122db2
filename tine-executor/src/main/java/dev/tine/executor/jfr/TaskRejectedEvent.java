package dev.tine.executor.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * A task the pool refused ({@code PoolMeter.reject()}), on the submitting thread: the stack trace
 * says who submitted it.
 *
 * <p>Public only so that the executor's package can fill it; the module does not export this
 * package.
 */
@Name(TaskRejectedEvent.NAME)
@Category({"Tine", "Executor"})
@Label("Task Rejected")
@Description("A task the pool refused (queue full, or shut down)")
public final class TaskRejectedEvent extends Event {
  public static final String NAME = "dev.tine.TaskRejected";

  @Label("Pool")
  public String pool;

  @Label("Pool Size")
  @Description("Threads in the pool (-1: unknown)")
  public int poolSize;

  @Label("Queue Length")
  @Description("Tasks queued (-1: unknown)")
  public int queueLength;
}

package dev.tine.executor;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * A task the pool refused ({@link PoolMeter#reject()}), on the submitting thread: the stack trace
 * says who submitted it.
 */
@Name(TaskRejectedEvent.NAME)
@Category({"Tine", "Executor"})
@Label("Task Rejected")
@Description("A task the pool refused (queue full, or shut down)")
final class TaskRejectedEvent extends Event {
  static final String NAME = "dev.tine.TaskRejected";

  @Label("Pool")
  String pool;

  @Label("Pool Size")
  @Description("Threads in the pool (-1: unknown)")
  int poolSize;

  @Label("Queue Length")
  @Description("Tasks queued (-1: unknown)")
  int queueLength;
}

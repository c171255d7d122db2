package dev.tine.agent.core;

import dev.tine.agent.state.PoolFigures;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Frequency;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Percentage;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * One pool's figures at one agent tick, for JDK Flight Recorder, named as {@code tine top} and the
 * Prometheus endpoint name the pool. Emitted by the ticker only while a recording enables it; the
 * class is not even loaded until JFR has initialized in the JVM.
 */
@Name(PoolStatisticsEvent.NAME)
@Category({"Tine", "Agent"})
@Label("Pool Statistics (agent)")
@Description(
    "A pool measured by tine-agent: arrival rate, service and queue-wait times, Little's L"
        + " and dead-time ratio over the agent's window, with the pool's sizes")
@StackTrace(false)
final class PoolStatisticsEvent extends jdk.jfr.Event {
  static final String NAME = "dev.tine.agent.PoolStatistics";

  @Label("Pool")
  @Description("The pool's name, as tine top shows it")
  String pool;

  @Label("Kind")
  String kind;

  @Label("Unit")
  @Description("What the rates, times and L count: requests (a server's pool) or tasks")
  String unit;

  @Label("Task Arrival Rate")
  @Description("Pool tasks offered per second (the same as the arrival rate unless per request)")
  @Frequency
  double taskArrivalRate;

  @Label("Task Service Time")
  @Timespan(Timespan.NANOSECONDS)
  long taskServiceTime;

  @Label("Task Queue Wait")
  @Timespan(Timespan.NANOSECONDS)
  long taskQueueWait;

  @Label("Window")
  @Timespan(Timespan.NANOSECONDS)
  long window;

  @Label("Arrival Rate")
  @Frequency
  double arrivalRate;

  @Label("Completion Rate")
  @Frequency
  double completionRate;

  @Label("Service Time")
  @Timespan(Timespan.NANOSECONDS)
  long serviceTime;

  @Label("Queue Wait")
  @Timespan(Timespan.NANOSECONDS)
  long queueWait;

  @Label("Queue Wait p99")
  @Timespan(Timespan.NANOSECONDS)
  long queueWaitP99;

  @Label("Little's L")
  @Description("λ·(Wq + S): mean tasks in the pool, queued and running")
  double littlesL;

  @Label("Dead-Time Ratio")
  @Percentage
  double deadTimeRatio;

  @Label("Rejected")
  @Description("Tasks rejected in the window")
  long rejected;

  @Label("Pool Size")
  int poolSize;

  @Label("Queue Length")
  int queueLength;

  @Label("Recommended Size")
  int recommendedSize;

  @Label("Loop I/O Share")
  @Description("An event-loop group's loops: mean share of the window handling ready channels")
  @Percentage
  double loopIoShare;

  @Label("Loop Task Share")
  @Description("An event-loop group's loops: mean share of the window running queued tasks")
  @Percentage
  double loopTaskShare;

  @Label("Loop Idle Share")
  @Description("An event-loop group's loops: mean share of the window neither (in select)")
  @Percentage
  double loopIdleShare;

  /** Emits {@code f} if a recording enables the event. */
  static void emit(PoolFigures f) {
    PoolStatisticsEvent e = new PoolStatisticsEvent();
    if (!e.isEnabled()) return;
    e.pool = f.name;
    e.kind = f.kind;
    e.unit = f.unit;
    PoolFigures t = f.tasks != null ? f.tasks : f;
    e.taskArrivalRate = t.arrivalRate;
    e.taskServiceTime = nanos(t.serviceMs);
    e.taskQueueWait = nanos(t.waitMs);
    e.window = (long) (f.windowSeconds * 1e9);
    e.arrivalRate = f.arrivalRate;
    e.completionRate = f.retirementRate;
    e.serviceTime = nanos(f.serviceMs);
    e.queueWait = nanos(f.waitMs);
    e.queueWaitP99 = nanos(f.waitP99Ms);
    e.littlesL = f.littlesL;
    e.deadTimeRatio = f.deadTimeRatio;
    e.rejected = f.windowRejected;
    e.poolSize = f.poolSize;
    e.queueLength = f.queueLength;
    e.recommendedSize = f.recommendedSize;
    e.loopIoShare = f.loopIoShare;
    e.loopTaskShare = f.loopTaskShare;
    e.loopIdleShare = f.loopIdleShare;
    e.commit();
  }

  private static long nanos(double ms) {
    return Double.isNaN(ms) ? Long.MIN_VALUE : (long) (ms * 1e6);
  }
}

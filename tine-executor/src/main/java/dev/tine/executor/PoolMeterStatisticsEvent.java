package dev.tine.executor;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Frequency;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Percentage;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A periodic sample of one {@link PoolMeter} (a {@link MeasuredExecutor}'s, or one measuring
 * another pool): Pepperdine's figures over the interval since the meter's previous sample. Emitted
 * for every live meter by one periodic hook ({@link MeterEvents}).
 */
@Name(PoolMeterStatisticsEvent.NAME)
@Category({"Tine", "Executor"})
@Label("Pool Meter Statistics")
@Description(
    "A measured pool's arrival rate, service and queue-wait times, Little's L, dead-time ratio, "
        + "rejections and sizes over the interval since its previous sample")
@StackTrace(false)
@Period("1 s")
final class PoolMeterStatisticsEvent extends Event {
  static final String NAME = "dev.tine.PoolMeterStatistics";

  @Label("Pool")
  @Description("The meter's name (a MeasuredExecutor's name)")
  String pool;

  @Label("Interval")
  @Description(
      "What the figures cover: the time since the meter's previous sample, since it was built, "
          + "or since a recording started, whichever is latest")
  @Timespan(Timespan.NANOSECONDS)
  long interval;

  @Label("Arrivals")
  @Description("Tasks offered to the pool (accepted or rejected)")
  long arrivals;

  @Label("Arrival Rate")
  @Description("λ: arrivals per second")
  @Frequency
  double arrivalRate;

  @Label("Completed")
  @Description("Tasks that ended, normally or not")
  long completed;

  @Label("Completion Rate")
  @Description("Completions per second")
  @Frequency
  double completionRate;

  @Label("Failed")
  long failed;

  @Label("Rejected")
  long rejected;

  @Label("Timed Tasks")
  @Description("Tasks whose times were recorded: the sample the mean times come from")
  long timedTasks;

  @Label("Service Time")
  @Description("S: mean time a task ran")
  @Timespan(Timespan.NANOSECONDS)
  long serviceTime;

  @Label("Queue Wait")
  @Description("Wq: mean time a task waited in the pool's queue (dead time)")
  @Timespan(Timespan.NANOSECONDS)
  long queueWait;

  @Label("Response Time")
  @Description("R = Wq + S")
  @Timespan(Timespan.NANOSECONDS)
  long responseTime;

  @Label("Little's L")
  @Description("Mean tasks in the pool (queued and running): completion rate × R")
  double littlesL;

  @Label("Dead-Time Ratio")
  @Description("Queue wait / (queue wait + service), summed over the timed tasks")
  @Percentage
  double deadTimeRatio;

  @Label("Pool Size")
  @Description("Threads in the pool at the sample (-1: unknown)")
  int poolSize;

  @Label("Queue Length")
  @Description("Tasks queued at the sample (-1: unknown)")
  int queueLength;
}

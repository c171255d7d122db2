package dev.tine.executor.jfr;

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
 * A periodic sample of one {@code PoolMeter} (a {@code MeasuredExecutor}'s, or one measuring
 * another pool): Pepperdine's figures over the interval since the meter's previous sample. Emitted
 * for every live meter by one periodic hook ({@code dev.tine.executor.MeterEvents}).
 *
 * <p>Public only so that the executor's package can fill it; the module does not export this
 * package.
 */
@Name(PoolMeterStatisticsEvent.NAME)
@Category({"Tine", "Executor"})
@Label("Pool Meter Statistics")
@Description(
    "A measured pool's arrival rate, service and queue-wait times, Little's L, dead-time ratio, "
        + "rejections and sizes over the interval since its previous sample")
@StackTrace(false)
@Period("1 s")
public final class PoolMeterStatisticsEvent extends Event {
  public static final String NAME = "dev.tine.PoolMeterStatistics";

  @Label("Pool")
  @Description("The meter's name (a MeasuredExecutor's name)")
  public String pool;

  @Label("Interval")
  @Description(
      "What the figures cover: the time since the meter's previous sample, since it was built, "
          + "or since a recording started, whichever is latest")
  @Timespan(Timespan.NANOSECONDS)
  public long interval;

  @Label("Arrivals")
  @Description("Tasks offered to the pool (accepted or rejected)")
  public long arrivals;

  @Label("Arrival Rate")
  @Description("λ: arrivals per second")
  @Frequency
  public double arrivalRate;

  @Label("Completed")
  @Description("Tasks that ended, normally or not")
  public long completed;

  @Label("Completion Rate")
  @Description("Completions per second")
  @Frequency
  public double completionRate;

  @Label("Failed")
  public long failed;

  @Label("Rejected")
  public long rejected;

  @Label("Timed Tasks")
  @Description("Tasks whose times were recorded: the sample the mean times come from")
  public long timedTasks;

  @Label("Service Time")
  @Description("S: mean time a task ran")
  @Timespan(Timespan.NANOSECONDS)
  public long serviceTime;

  @Label("Queue Wait")
  @Description("Wq: mean time a task waited in the pool's queue (dead time)")
  @Timespan(Timespan.NANOSECONDS)
  public long queueWait;

  @Label("Response Time")
  @Description("R = Wq + S")
  @Timespan(Timespan.NANOSECONDS)
  public long responseTime;

  @Label("Little's L")
  @Description("Mean tasks in the pool (queued and running): completion rate × R")
  public double littlesL;

  @Label("Dead-Time Ratio")
  @Description("Queue wait / (queue wait + service), summed over the timed tasks")
  @Percentage
  public double deadTimeRatio;

  @Label("Pool Size")
  @Description("Threads in the pool at the sample (-1: unknown)")
  public int poolSize;

  @Label("Queue Length")
  @Description("Tasks queued at the sample (-1: unknown)")
  public int queueLength;
}

package dev.tine.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A periodic sample of one {@code WorkStealingPool}: what its workers counted since the pool's
 * previous sample, and its workers at the sample. Emitted for every live pool by one periodic hook
 * ({@code dev.tine.PoolEvents}); the counts come from the workers' own counters, so sampling costs
 * the workers nothing.
 *
 * <p>Public only so that the runtime's package can fill it; the module does not export this
 * package.
 */
@Name(WorkStealingPoolStatisticsEvent.NAME)
@Category({"Tine", "Fork/Join"})
@Label("Work-Stealing Pool Statistics")
@Description(
    "A WorkStealingPool's scheduler counts over the interval since its previous sample, "
        + "and its workers at the sample")
@StackTrace(false)
@Period("1 s")
public final class WorkStealingPoolStatisticsEvent extends Event {
  public static final String NAME = "dev.tine.WorkStealingPoolStatistics";

  @Label("Pool")
  public String pool;

  @Label("Parallelism")
  public int parallelism;

  @Label("Interval")
  @Description(
      "What the counts cover: the time since the pool's previous sample, since it was built, "
          + "or since a recording started, whichever is latest")
  @Timespan(Timespan.NANOSECONDS)
  public long interval;

  @Label("Forks")
  @Description("fork() calls and second halves of joins, latent or eager")
  public long forks;

  @Label("Tasks Executed")
  public long tasksExecuted;

  @Label("Steals")
  @Description("Tasks taken from another worker's deque")
  public long steals;

  @Label("Failed Steals")
  @Description("Sweeps over every deque that found nothing")
  public long failedSteals;

  @Label("Promotions")
  @Description("Latent forks moved to a deque because a worker was hungry")
  public long promotions;

  @Label("Parks")
  @Description("Times a worker went to sleep")
  public long parks;

  @Label("Blocked Joins")
  @Description("Joins that had to block at least once")
  public long blockedJoins;

  @Label("Idle Time")
  @Description(
      "Time workers spent looking for work, summed over the workers (stretches that ended in the interval)")
  @Timespan(Timespan.NANOSECONDS)
  public long idleTime;

  @Label("Live Workers")
  @Description("Worker threads started and not retired, at the sample")
  public int liveWorkers;

  @Label("Active Workers")
  @Description("Live workers not asleep, at the sample")
  public int activeWorkers;

  @Label("Queued Tasks")
  @Description("Tasks in the external queue and the deques, at the sample (approximate)")
  public long queuedTasks;
}

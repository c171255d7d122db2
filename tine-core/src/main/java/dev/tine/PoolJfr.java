package dev.tine;

import dev.tine.jfr.JoinBlockedEvent;
import dev.tine.jfr.WorkStealingPoolStatisticsEvent;
import dev.tine.platform.FlightRecorderRegistration;
import dev.tine.stats.WorkerCounters;
import java.util.List;
import java.util.Map;

/**
 * The part of {@link PoolEvents} that uses {@code jdk.jfr}: loaded only from {@link PoolEvents}'s
 * initializer (which survives its absence), and called only once {@link PoolEvents#ready} (JFR
 * initialized, our events registered). Its methods take and return no {@code jdk.jfr} type, so that
 * callers such as {@link HelpingJoin} verify without JFR.
 */
final class PoolJfr {
  private PoolJfr() {}

  static void install() {
    FlightRecorderRegistration.install(
        () ->
            new FlightRecorderRegistration.Events(
                WorkStealingPoolStatisticsEvent.class,
                PoolJfr::sampleAll,
                List.of(JoinBlockedEvent.class)),
        () -> PoolEvents.ready = true,
        PoolEvents::rebaseAll);
  }

  /** The periodic hook: one sample per live pool. Runs on JFR's periodic thread. */
  private static void sampleAll() {
    for (Map.Entry<WorkStealingPool, PoolEvents.Sampler> e : PoolEvents.pools()) {
      sample(e.getKey(), e.getValue());
    }
  }

  static void sample(WorkStealingPool pool, PoolEvents.Sampler sampler) {
    WorkStealingPoolStatisticsEvent e = new WorkStealingPoolStatisticsEvent();
    if (!e.isEnabled()) {
      return;
    }
    long[] d = new long[WorkerCounters.COUNT];
    e.interval = sampler.sample(pool, d);
    e.pool = pool.name();
    e.parallelism = pool.parallelism();
    e.forks = d[WorkerCounters.FORKS];
    e.tasksExecuted = d[WorkerCounters.EXECUTED];
    e.steals = d[WorkerCounters.STEALS];
    e.failedSteals = d[WorkerCounters.FAILED_STEALS];
    e.promotions = d[WorkerCounters.PROMOTIONS];
    e.parks = d[WorkerCounters.PARKS];
    e.blockedJoins = d[WorkerCounters.JOINS_BLOCKED];
    e.idleTime = d[WorkerCounters.IDLE_NANOS];
    int live = pool.poolSize();
    e.liveWorkers = live;
    e.activeWorkers = Math.max(0, live - pool.sleepingWorkers());
    e.queuedTasks = pool.queuedTasks();
    e.commit();
  }

  /** From the blocking branch of a join: the event begun, or null if no recording wants it. */
  static Object beginJoinBlocked() {
    JoinBlockedEvent e = new JoinBlockedEvent();
    if (!e.isEnabled()) {
      return null;
    }
    e.begin();
    return e;
  }

  /** The join that began {@code event} ends (normally or not). */
  static void endJoinBlocked(Object event, Worker w, Task<?> task, int waits) {
    JoinBlockedEvent e = (JoinBlockedEvent) event;
    e.end();
    if (e.shouldCommit()) {
      e.pool = w.pool.name();
      e.taskClass = task.getClass();
      e.waits = waits;
      e.done = task.status() < 0;
      e.commit();
    }
  }
}

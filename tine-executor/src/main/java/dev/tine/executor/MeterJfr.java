package dev.tine.executor;

import dev.tine.executor.jfr.PoolMeterStatisticsEvent;
import dev.tine.executor.jfr.QueueWaitEvent;
import dev.tine.executor.jfr.TaskRejectedEvent;
import dev.tine.platform.FlightRecorderRegistration;
import java.util.List;
import java.util.Map;

/**
 * The part of {@link MeterEvents} that uses {@code jdk.jfr}: loaded only from {@link MeterEvents}'s
 * initializer (which survives its absence), and called only once {@link MeterEvents#ready} (JFR
 * initialized, our events registered). Its methods take and return no {@code jdk.jfr} type, so that
 * callers such as {@link ThreadRecorder} verify without JFR.
 */
final class MeterJfr {
  /**
   * Loaded on first use, after JFR has initialized (loading an event class before would initialize
   * it).
   */
  private static final class Probe {
    /** Never committed: only asked whether its type is enabled, without an allocation per task. */
    static final QueueWaitEvent QUEUE_WAIT = new QueueWaitEvent();
  }

  private MeterJfr() {}

  static void install() {
    FlightRecorderRegistration.install(
        () ->
            new FlightRecorderRegistration.Events(
                PoolMeterStatisticsEvent.class,
                MeterJfr::sampleAll,
                List.of(QueueWaitEvent.class, TaskRejectedEvent.class)),
        () -> MeterEvents.ready = true,
        MeterEvents::rebaseAll);
  }

  /** The periodic hook: one sample per live meter. Runs on JFR's periodic thread. */
  private static void sampleAll() {
    for (Map.Entry<PoolMeter, MeterEvents.Sampler> e : MeterEvents.meters()) {
      sample(e.getKey(), e.getValue());
    }
  }

  static void sample(PoolMeter meter, MeterEvents.Sampler sampler) {
    PoolMeterStatisticsEvent e = new PoolMeterStatisticsEvent();
    if (!e.isEnabled()) {
      return;
    }
    MeterEvents.Sample s = sampler.sample(meter);
    e.pool = meter.name();
    e.interval = s.intervalNanos();
    e.arrivals = s.arrivals();
    e.arrivalRate = s.arrivalRate();
    e.completed = s.completed();
    e.completionRate = s.completionRate();
    e.failed = s.failed();
    e.rejected = s.rejected();
    e.timedTasks = s.timed();
    e.serviceTime = s.serviceNanos();
    e.queueWait = s.waitNanos();
    e.responseTime = s.serviceNanos() + s.waitNanos();
    e.littlesL = s.littlesL();
    e.deadTimeRatio = s.deadTimeRatio();
    e.poolSize = meter.poolSizeGauge();
    e.queueLength = meter.queueLengthGauge();
    e.commit();
  }

  static void queueWait(PoolMeter meter, long waitNanos, long serviceNanos, boolean failed) {
    if (waitNanos < QueueWaitEvent.waitThresholdNanos() || !Probe.QUEUE_WAIT.isEnabled()) {
      return;
    }
    QueueWaitEvent e = new QueueWaitEvent();
    e.pool = meter.name();
    e.queueWait = waitNanos;
    e.serviceTime = Math.max(0, serviceNanos);
    e.failed = failed;
    if (e.shouldCommit()) {
      e.commit();
    }
  }

  static void rejected(PoolMeter meter) {
    TaskRejectedEvent e = new TaskRejectedEvent();
    if (!e.isEnabled()) {
      return;
    }
    e.pool = meter.name();
    e.poolSize = meter.poolSizeGauge();
    e.queueLength = meter.queueLengthGauge();
    e.commit();
  }
}

package dev.tine.executor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * JDK Flight Recorder events of {@link PoolMeter}s, so of every {@link MeasuredExecutor} and every
 * pool measured with a meter (see docs/design/observability.md). This class refers to no {@code
 * jdk.jfr} type; {@link MeterJfr} does, and is touched only once JFR is known to be there and in
 * use.
 *
 * <ul>
 *   <li><b>Registry.</b> Every meter registers as it is built and leaves when closed (after a last
 *       sample); the map holds meters weakly, so one never closed is forgotten once unreachable.
 *   <li><b>Samples</b> ({@code dev.tine.PoolMeterStatistics}): one periodic hook for all live
 *       meters harvests each (as a snapshot does) and emits λ, S, Wq, R, L, the dead-time ratio,
 *       rejections and sizes over the interval since the meter's previous sample, from differences
 *       of its exact counts and timing sums. A recording that starts moves every meter's baseline
 *       to its start.
 *   <li><b>Queue waits</b> ({@code dev.tine.QueueWait}): {@link ThreadRecorder#record} of a timed
 *       task checks {@link #ready}, then calls {@link MeterJfr}; <b>rejections</b> ({@code
 *       dev.tine.TaskRejected}): {@link PoolMeter#reject()} does (one frame fewer above the
 *       submitter in the event's stack trace).
 * </ul>
 *
 * <p><b>Cost without JFR.</b> Loading the first event class of a JVM initializes JFR's metadata
 * (about 200 ms of CPU here), so no event class is loaded until JFR initializes: until then the
 * cost is a listener registered with JFR as the first meter is built, a map entry per meter, and
 * one read of {@link #ready} per timed task and per rejection.
 */
final class MeterEvents {
  /** True once JFR has initialized in this JVM and the events are registered. */
  static volatile boolean ready;

  /** Live meters and their samplers. Guarded by itself. */
  private static final Map<PoolMeter, Sampler> METERS = new WeakHashMap<>();

  static {
    try {
      MeterJfr.install();
    } catch (LinkageError | RuntimeException e) {
      // No jdk.jfr module in this runtime, or JFR refused the listener: no events.
    }
  }

  private MeterEvents() {}

  /** As a meter is built (its counts are all zero). */
  static void register(PoolMeter meter) {
    Sampler s = new Sampler(System.nanoTime());
    synchronized (METERS) {
      METERS.put(meter, s);
    }
  }

  /** As a meter closes: a last sample (if a recording wants it), then forgotten. */
  static void closed(PoolMeter meter) {
    Sampler s;
    synchronized (METERS) {
      s = METERS.remove(meter);
    }
    if (s != null && ready) {
      try {
        MeterJfr.sample(meter, s);
      } catch (RuntimeException e) {
        // a lost sample must not fail close()
      }
    }
  }

  static List<Map.Entry<PoolMeter, Sampler>> meters() {
    synchronized (METERS) {
      List<Map.Entry<PoolMeter, Sampler>> l = new ArrayList<>(METERS.size());
      for (Map.Entry<PoolMeter, Sampler> e : METERS.entrySet()) {
        l.add(Map.entry(e.getKey(), e.getValue()));
      }
      return l;
    }
  }

  /** A recording started: every meter's next sample counts from now. */
  static void rebaseAll() {
    for (Map.Entry<PoolMeter, Sampler> e : meters()) {
      e.getValue().rebase(e.getKey());
    }
  }

  /** One meter's figures over one interval. */
  record Sample(
      long intervalNanos,
      long arrivals,
      long completed,
      long failed,
      long rejected,
      long timed,
      double arrivalRate,
      double completionRate,
      long serviceNanos,
      long waitNanos,
      double littlesL,
      double deadTimeRatio) {

    /** The figures between two readings of the totals, {@code intervalNanos} apart. */
    static Sample between(MeterTotals a, MeterTotals b, long intervalNanos) {
      double secs = Math.max(1e-9, intervalNanos / 1e9);
      long arrivals = b.arrivals - a.arrivals, completed = b.completed - a.completed;
      long timed = b.timed - a.timed;
      long wait = b.waitNanos - a.waitNanos, service = b.serviceNanos - a.serviceNanos;
      long meanWait = timed == 0 ? 0 : wait / timed, meanService = timed == 0 ? 0 : service / timed;
      double completionRate = completed / secs;
      return new Sample(
          intervalNanos,
          arrivals,
          completed,
          b.failed - a.failed,
          b.rejected - a.rejected,
          timed,
          arrivals / secs,
          completionRate,
          meanService,
          meanWait,
          completionRate * (meanWait + meanService) / 1e9, // Little's law, as ExecutorSnapshot
          wait + service == 0 ? 0 : (double) wait / (wait + service));
    }
  }

  /** One meter's sampling state: its totals and time at the previous sample. Guarded by itself. */
  static final class Sampler {
    private MeterTotals last = new MeterTotals();
    private MeterTotals now = new MeterTotals();
    private long lastNanos;

    Sampler(long nanos) {
      this.lastNanos = nanos;
    }

    /** The figures since the previous sample, which this becomes (harvests the meter first). */
    synchronized Sample sample(PoolMeter meter) {
      long t = meter.totals(now);
      Sample s = Sample.between(last, now, t - lastNanos);
      MeterTotals x = last;
      last = now;
      now = x;
      lastNanos = t;
      return s;
    }

    synchronized void rebase(PoolMeter meter) {
      lastNanos = meter.totals(last);
    }
  }
}

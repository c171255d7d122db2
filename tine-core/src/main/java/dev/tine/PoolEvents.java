package dev.tine;

import dev.tine.stats.WorkerCounters;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * JDK Flight Recorder events of {@link WorkStealingPool}s (see docs/design/observability.md),
 * without making JFR a requirement: this class refers to no {@code jdk.jfr} type, {@link PoolJfr}
 * does, and is touched only once JFR is known to be there and in use.
 *
 * <ul>
 *   <li><b>Registry.</b> Every pool registers as it is built and leaves as it terminates (after a
 *       last sample, so a pool's samples in a recording add up to what it counted in it); the map
 *       holds pools weakly, so one never closed is forgotten once unreachable.
 *   <li><b>Samples</b> ({@code dev.tine.WorkStealingPoolStatistics}): one periodic hook for all
 *       live pools reads each pool's worker counters (plain fields the workers write anyway, raw:
 *       {@link WorkStealingPool#resetStats()} does not move them) and emits the differences since
 *       the pool's previous sample. A recording that starts moves every pool's baseline to its
 *       start, so no sample in it covers time before it.
 *   <li><b>Blocked joins</b> ({@code dev.tine.JoinBlocked}): {@link HelpingJoin}'s blocking branch,
 *       already the slowest path of a join, checks {@link #ready} and then calls {@link PoolJfr}
 *       itself (one frame fewer above the join in the event's stack trace).
 * </ul>
 *
 * <p><b>Cost without JFR.</b> Loading the first event class of a JVM initializes JFR's metadata
 * (about 200 ms of CPU here), so no event class is loaded until JFR initializes (a recording is
 * created, {@code -XX:StartFlightRecording}, {@code jcmd JFR.start}): until then the only cost is a
 * listener registered with JFR as the first pool is built (about 1 ms) and a map entry per pool.
 * Nothing on a task's path changes. In a runtime without the {@code jdk.jfr} module the listener
 * cannot be registered and pools run without events.
 */
final class PoolEvents {
  /**
   * True once JFR has initialized in this JVM and the events are registered; from then on the
   * blocking branch of a join asks whether its event is enabled.
   */
  static volatile boolean ready;

  /** Live pools and their samplers. Guarded by itself. */
  private static final Map<WorkStealingPool, Sampler> POOLS = new WeakHashMap<>();

  static {
    try {
      PoolJfr.install();
    } catch (LinkageError | RuntimeException e) {
      // No jdk.jfr module in this runtime, or JFR refused the listener: no events.
    }
  }

  private PoolEvents() {}

  /** As a pool is built (its counters are all zero). */
  static void register(WorkStealingPool pool) {
    Sampler s = new Sampler(System.nanoTime());
    synchronized (POOLS) {
      POOLS.put(pool, s);
    }
  }

  /** As a pool terminates: a last sample (if a recording wants it), then forgotten. */
  static void terminated(WorkStealingPool pool) {
    Sampler s;
    synchronized (POOLS) {
      s = POOLS.remove(pool);
    }
    if (s != null && ready) {
      try {
        PoolJfr.sample(pool, s);
      } catch (RuntimeException e) {
        // a lost sample must not fail the pool's termination
      }
    }
  }

  /** The live pools and their samplers, for the periodic hook. */
  static List<Map.Entry<WorkStealingPool, Sampler>> pools() {
    synchronized (POOLS) {
      List<Map.Entry<WorkStealingPool, Sampler>> l = new ArrayList<>(POOLS.size());
      for (Map.Entry<WorkStealingPool, Sampler> e : POOLS.entrySet()) {
        l.add(Map.entry(e.getKey(), e.getValue()));
      }
      return l;
    }
  }

  /** A recording started: every pool's next sample counts from now. */
  static void rebaseAll() {
    for (Map.Entry<WorkStealingPool, Sampler> e : pools()) {
      e.getValue().rebase(e.getKey());
    }
  }

  /**
   * Adds every worker slot's raw counters into {@code sums} (length {@link WorkerCounters#COUNT}).
   */
  static void readCounters(WorkStealingPool pool, long[] sums, long[] scratch) {
    java.util.Arrays.fill(sums, 0L);
    // The table has a slot for every slot of the workers array (it grows first), and a slot counts
    // nothing before its worker is in the array; neither ever shrinks.
    Worker[] ws = pool.workers;
    int slots = ws.length;
    for (int i = 0; i < slots; i++) {
      pool.statsTable.read(i, ws, scratch);
      for (int k = 0; k < WorkerCounters.COUNT; k++) {
        sums[k] += scratch[k];
      }
    }
  }

  /** One pool's sampling state: the counters and time of its previous sample. Guarded by itself. */
  static final class Sampler {
    private final long[] last = new long[WorkerCounters.COUNT];
    private final long[] now = new long[WorkerCounters.COUNT];
    private final long[] scratch = new long[WorkerCounters.COUNT];
    private long lastNanos;

    Sampler(long nanos) {
      this.lastNanos = nanos;
    }

    /**
     * Reads the pool's counters and writes into {@code delta} what they counted since the previous
     * sample, which this becomes; returns the interval in nanoseconds.
     */
    synchronized long sample(WorkStealingPool pool, long[] delta) {
      long t = System.nanoTime();
      readCounters(pool, now, scratch);
      for (int k = 0; k < WorkerCounters.COUNT; k++) {
        delta[k] = now[k] - last[k];
        last[k] = now[k];
      }
      long interval = t - lastNanos;
      lastNanos = t;
      return interval;
    }

    synchronized void rebase(WorkStealingPool pool) {
      lastNanos = System.nanoTime();
      readCounters(pool, last, scratch);
    }
  }
}

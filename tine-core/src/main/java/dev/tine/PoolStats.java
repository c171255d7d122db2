package dev.tine;

import dev.tine.stats.WorkerCounters;
import java.util.List;

/**
 * An immutable snapshot of a {@link WorkStealingPool}'s counters: totals and one row per worker
 * slot. Counts are events since the pool was built or since {@link WorkStealingPool#resetStats()};
 * CPU and BLOCKED/WAITING figures come from {@link java.lang.management.ThreadMXBean} and cover
 * each worker thread's whole life (-1 where the JVM does not provide them; BLOCKED/WAITING times
 * need {@link WorkStealingPool.Builder#threadContentionMonitoring(boolean)}).
 *
 * <p>Definitions: <b>forks</b> calls of {@code fork()}, latent or eager, and second halves of
 * primitive and scope joins ({@link Tine#joinLong}, {@link Scope}), latent or forked eagerly (an
 * {@code eagerForks(true)} pool); <b>localPops</b> tasks a worker took back from its own deque or
 * latent stack outside an inline join; <b>steals</b> tasks taken from another worker's deque;
 * <b>failedSteals</b> sweeps over all deques that found nothing; <b>joins</b> joins by workers of
 * incomplete tasks, and primitive and scope joins that took their latent second half back (it ran
 * by a direct call); <b>joinsHelped</b> of those, the ones whose target was not in the joiner's own
 * deque, so it had to help; <b>joinsBlocked</b> of those, the ones that had to block at least once;
 * <b>parks</b> times a worker went to sleep; <b>idleNanos</b> time spent looking for work;
 * <b>latentForks</b> {@code Task} forks recorded latent; <b>promotions</b> latent forks (tasks,
 * primitive and scope joins' second halves, loop halves) moved to a deque; <b>promotedStolen</b> of
 * those, the ones a thief took; <b>inlineJoins</b> joins of a never-promoted {@code Task} fork, run
 * by a direct call (included in joins and in tasks executed). A primitive or scope join costs about
 * a call, so its counts are one plain increment of its worker's own field on the fast path (the
 * fork) and slow-path counts of the halves not taken back (counted even with the counters off,
 * reported only with them on); <b>claims</b> latent forks taken from a worker that was blocked
 * outside Tine (a latch, a queue, a timed get), which its owner could not promote.
 */
public final class PoolStats {
  private final String poolName;
  private final int parallelism;
  private final int poolSize;
  private final int sleeping;
  private final long queued;
  private final List<WorkerStats> workers;
  private final long[] totals = new long[WorkerCounters.COUNT];

  PoolStats(
      String poolName,
      int parallelism,
      int poolSize,
      int sleeping,
      long queued,
      List<WorkerStats> workers) {
    this.poolName = poolName;
    this.parallelism = parallelism;
    this.poolSize = poolSize;
    this.sleeping = sleeping;
    this.queued = queued;
    this.workers = List.copyOf(workers);
    for (WorkerStats w : this.workers) {
      for (int k = 0; k < totals.length; k++) {
        totals[k] += w.c[k];
      }
    }
  }

  /** {@return the pool's name} */
  public String poolName() {
    return poolName;
  }

  /** {@return the pool's configured number of workers} */
  public int parallelism() {
    return parallelism;
  }

  /** {@return live worker threads when the snapshot was taken} */
  public int poolSize() {
    return poolSize;
  }

  /** {@return sleeping workers when the snapshot was taken} */
  public int sleeping() {
    return sleeping;
  }

  /** {@return queued tasks when the snapshot was taken} */
  public long queued() {
    return queued;
  }

  /** {@return one row per worker slot} */
  public List<WorkerStats> workers() {
    return workers;
  }

  /** {@return tasks run to completion (normally or not), summed over the workers} */
  public long tasksExecuted() {
    return totals[WorkerCounters.EXECUTED];
  }

  /**
   * {@return calls of {@code fork()}, latent or eager, and second halves of primitive and scope
   * joins, latent or eager, summed over the workers; a primitive or scope join below its worker's
   * outermost six latent entries that recorded nothing forked nothing and is not counted}
   */
  public long forks() {
    return totals[WorkerCounters.FORKS];
  }

  /**
   * {@return tasks popped from the worker's own deque or latent stack outside an inline join,
   * summed over the workers}
   */
  public long localPops() {
    return totals[WorkerCounters.LOCAL_POPS];
  }

  /** {@return tasks taken from another worker's deque, summed over the workers} */
  public long steals() {
    return totals[WorkerCounters.STEALS];
  }

  /** {@return sweeps over all deques that found nothing, summed over the workers} */
  public long failedSteals() {
    return totals[WorkerCounters.FAILED_STEALS];
  }

  /**
   * {@return joins of incomplete tasks by workers, and primitive and scope joins that took their
   * recorded second half back, summed over the workers}
   */
  public long joins() {
    return totals[WorkerCounters.JOINS];
  }

  /**
   * {@return joins whose target was not in the joiner's own deque, so it helped, summed over the
   * workers}
   */
  public long joinsHelped() {
    return totals[WorkerCounters.JOINS_HELPED];
  }

  /** {@return joins that had to block at least once, summed over the workers} */
  public long joinsBlocked() {
    return totals[WorkerCounters.JOINS_BLOCKED];
  }

  /** {@return times a worker went to sleep, summed over the workers} */
  public long parks() {
    return totals[WorkerCounters.PARKS];
  }

  /** {@return nanoseconds spent looking for work, summed over the workers} */
  public long idleNanos() {
    return totals[WorkerCounters.IDLE_NANOS];
  }

  /** {@return {@code Task} forks recorded latent, summed over the workers} */
  public long latentForks() {
    return totals[WorkerCounters.LATENT_FORKS];
  }

  /** {@return latent forks moved to a deque, summed over the workers} */
  public long promotions() {
    return totals[WorkerCounters.PROMOTIONS];
  }

  /** {@return promoted forks a thief took, summed over the workers} */
  public long promotedStolen() {
    return totals[WorkerCounters.PROMOTED_STOLEN];
  }

  /**
   * {@return joins of a never-promoted {@code Task} fork, run by a direct call, summed over the
   * workers}
   */
  public long inlineJoins() {
    return totals[WorkerCounters.INLINE_JOINS];
  }

  /** {@return latent forks taken from a worker blocked outside Tine, summed over the workers} */
  public long claims() {
    return totals[WorkerCounters.CLAIMS];
  }

  /** {@return the sum of the workers' CPU time in nanoseconds, or -1 if unavailable} */
  public long cpuNanos() {
    long sum = 0;
    boolean any = false;
    for (WorkerStats w : workers) {
      if (w.cpuNanos >= 0) {
        sum += w.cpuNanos;
        any = true;
      }
    }
    return any ? sum : -1;
  }

  /** {@return steals as a fraction of tasks executed (Lea's figure 4-6)} */
  public double stealRatio() {
    long ex = tasksExecuted();
    return ex == 0 ? 0.0 : (double) steals() / ex;
  }

  /** A readable table: one line per worker and a total line. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            "pool %s: parallelism %d, live %d, sleeping %d, queued %d%n",
            poolName, parallelism, poolSize, sleeping, queued));
    String head =
        "%-6s %12s %12s %12s %10s %10s %12s %10s %10s %8s %10s %12s %10s %10s %10s %8s %10s %8s %10s%n";
    sb.append(
        String.format(
            head,
            "worker",
            "executed",
            "forks",
            "localPops",
            "steals",
            "failedStl",
            "joins",
            "joinHelp",
            "joinBlock",
            "parks",
            "idle ms",
            "inlineJoin",
            "promoted",
            "promStolen",
            "cpu ms",
            "blocked",
            "blocked ms",
            "waited",
            "waited ms"));
    for (WorkerStats w : workers) {
      appendRow(
          sb,
          String.valueOf(w.index),
          w.c,
          w.cpuNanos,
          w.blockedCount,
          w.blockedMillis,
          w.waitedCount,
          w.waitedMillis);
    }
    long blockedN = 0, blockedMs = 0, waitedN = 0, waitedMs = 0;
    for (WorkerStats w : workers) {
      blockedN += Math.max(0, w.blockedCount);
      blockedMs += Math.max(0, w.blockedMillis);
      waitedN += Math.max(0, w.waitedCount);
      waitedMs += Math.max(0, w.waitedMillis);
    }
    appendRow(sb, "total", totals, cpuNanos(), blockedN, blockedMs, waitedN, waitedMs);
    return sb.toString();
  }

  private static void appendRow(
      StringBuilder sb,
      String label,
      long[] c,
      long cpuNanos,
      long blockedN,
      long blockedMs,
      long waitedN,
      long waitedMs) {
    sb.append(
        String.format(
            "%-6s %12d %12d %12d %10d %10d %12d %10d %10d %8d %10d %12d %10d %10d %10s %8s %10s %8s %10s%n",
            label,
            c[WorkerCounters.EXECUTED],
            c[WorkerCounters.FORKS],
            c[WorkerCounters.LOCAL_POPS],
            c[WorkerCounters.STEALS],
            c[WorkerCounters.FAILED_STEALS],
            c[WorkerCounters.JOINS],
            c[WorkerCounters.JOINS_HELPED],
            c[WorkerCounters.JOINS_BLOCKED],
            c[WorkerCounters.PARKS],
            c[WorkerCounters.IDLE_NANOS] / 1_000_000,
            c[WorkerCounters.INLINE_JOINS],
            c[WorkerCounters.PROMOTIONS],
            c[WorkerCounters.PROMOTED_STOLEN],
            opt(cpuNanos < 0 ? -1 : cpuNanos / 1_000_000),
            opt(blockedN),
            opt(blockedMs),
            opt(waitedN),
            opt(waitedMs)));
  }

  private static String opt(long v) {
    return v < 0 ? "-" : Long.toString(v);
  }

  /** One worker slot's figures. */
  public static final class WorkerStats {
    final int index;
    final String threadName;
    final long[] c;
    final long cpuNanos, blockedCount, blockedMillis, waitedCount, waitedMillis;

    WorkerStats(
        int index,
        String threadName,
        long[] counters,
        long cpuNanos,
        long blockedCount,
        long blockedMillis,
        long waitedCount,
        long waitedMillis) {
      this.index = index;
      this.threadName = threadName;
      this.c = counters;
      this.cpuNanos = cpuNanos;
      this.blockedCount = blockedCount;
      this.blockedMillis = blockedMillis;
      this.waitedCount = waitedCount;
      this.waitedMillis = waitedMillis;
    }

    /** {@return the worker slot's index, from 0} */
    public int index() {
      return index;
    }

    /** {@return the live thread's name, or null if the slot has no live worker} */
    public String threadName() {
      return threadName;
    }

    /** {@return tasks run to completion (normally or not), by this worker} */
    public long tasksExecuted() {
      return c[WorkerCounters.EXECUTED];
    }

    /**
     * {@return calls of {@code fork()}, latent or eager, and second halves of primitive and scope
     * joins, latent or eager, by this worker}
     */
    public long forks() {
      return c[WorkerCounters.FORKS];
    }

    /**
     * {@return tasks popped from the worker's own deque or latent stack outside an inline join, by
     * this worker}
     */
    public long localPops() {
      return c[WorkerCounters.LOCAL_POPS];
    }

    /** {@return tasks taken from another worker's deque, by this worker} */
    public long steals() {
      return c[WorkerCounters.STEALS];
    }

    /** {@return sweeps over all deques that found nothing, by this worker} */
    public long failedSteals() {
      return c[WorkerCounters.FAILED_STEALS];
    }

    /**
     * {@return joins of incomplete tasks by workers, and primitive and scope joins that took their
     * second half back, by this worker}
     */
    public long joins() {
      return c[WorkerCounters.JOINS];
    }

    /**
     * {@return joins whose target was not in the joiner's own deque, so it helped, by this worker}
     */
    public long joinsHelped() {
      return c[WorkerCounters.JOINS_HELPED];
    }

    /** {@return joins that had to block at least once, by this worker} */
    public long joinsBlocked() {
      return c[WorkerCounters.JOINS_BLOCKED];
    }

    /** {@return times a worker went to sleep, by this worker} */
    public long parks() {
      return c[WorkerCounters.PARKS];
    }

    /** {@return nanoseconds spent looking for work, by this worker} */
    public long idleNanos() {
      return c[WorkerCounters.IDLE_NANOS];
    }

    /** {@return {@code Task} forks recorded latent, by this worker} */
    public long latentForks() {
      return c[WorkerCounters.LATENT_FORKS];
    }

    /** {@return latent forks moved to a deque, by this worker} */
    public long promotions() {
      return c[WorkerCounters.PROMOTIONS];
    }

    /** {@return promoted forks a thief took, by this worker} */
    public long promotedStolen() {
      return c[WorkerCounters.PROMOTED_STOLEN];
    }

    /**
     * {@return joins of a never-promoted {@code Task} fork, run by a direct call, by this worker}
     */
    public long inlineJoins() {
      return c[WorkerCounters.INLINE_JOINS];
    }

    /** {@return latent forks taken from a worker blocked outside Tine, by this worker} */
    public long claims() {
      return c[WorkerCounters.CLAIMS];
    }

    /** {@return CPU time of this slot's threads in ns (-1 if unavailable)} */
    public long cpuNanos() {
      return cpuNanos;
    }

    /** {@return times the live thread entered BLOCKED (-1 if none live)} */
    public long blockedCount() {
      return blockedCount;
    }

    /** {@return ms the live thread spent BLOCKED (-1 unless contention monitoring is on)} */
    public long blockedMillis() {
      return blockedMillis;
    }

    /** {@return times the live thread entered WAITING or TIMED_WAITING (-1 if none live)} */
    public long waitedCount() {
      return waitedCount;
    }

    /** {@return ms the live thread spent WAITING (-1 unless contention monitoring is on)} */
    public long waitedMillis() {
      return waitedMillis;
    }
  }
}

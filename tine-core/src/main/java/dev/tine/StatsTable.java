package dev.tine;

import dev.tine.stats.WorkerCounters;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A pool's statistics per worker slot: the workers' own counters (plain fields each worker writes,
 * see {@link WorkerCounters}), the CPU time of workers that have exited (so a slot's total survives
 * retirement), and the baseline of the last reset. {@link #snapshot} adds each live worker's CPU
 * time and BLOCKED/WAITING figures from {@link ThreadMXBean}.
 *
 * <p>Slots only grow (spare workers for managed blocking add some), so totals never go backwards.
 * Guarded by this object's monitor, except {@link #counters} (volatile, replaced when growing).
 * Lock order: the pool's lock, then this one; this one never takes the pool's.
 */
final class StatsTable {
  /** Per-slot counters; they outlive a retired worker. Replaced (grown) under this monitor. */
  private volatile WorkerCounters[] counters;

  /** Per-slot CPU time of workers that have exited. Guarded by this monitor. */
  private long[] exitedCpuNanos;

  /** Counter values at the last reset, or null. Guarded by this monitor. */
  private long[][] baseline;

  StatsTable(int slots) {
    WorkerCounters[] cs = new WorkerCounters[slots];
    for (int i = 0; i < slots; i++) {
      cs[i] = new WorkerCounters();
    }
    this.counters = cs;
    this.exitedCpuNanos = new long[slots];
  }

  WorkerCounters counters(int slot) {
    return counters[slot];
  }

  /** Adds slots up to {@code slots} (a spare worker's). */
  synchronized void grow(int slots) {
    WorkerCounters[] cs = counters;
    if (cs.length >= slots) {
      return;
    }
    WorkerCounters[] next = Arrays.copyOf(cs, slots);
    for (int i = cs.length; i < slots; i++) {
      next[i] = new WorkerCounters();
    }
    exitedCpuNanos = Arrays.copyOf(exitedCpuNanos, slots);
    counters = next;
  }

  /** Called by an exiting worker thread: adds its own CPU time to its slot. */
  void recordExitedCpu(int slot) {
    ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
    if (tmx.isCurrentThreadCpuTimeSupported() && tmx.isThreadCpuTimeEnabled()) {
      long cpu = tmx.getCurrentThreadCpuTime();
      synchronized (this) {
        exitedCpuNanos[slot] += cpu;
      }
    }
  }

  private synchronized long exitedCpu(int slot) {
    return slot < exitedCpuNanos.length ? exitedCpuNanos[slot] : 0L;
  }

  /**
   * Slot {@code slot}'s counters into {@code out}, with the join counts that its live worker {@code
   * w} (null if none) keeps in its latent stack: a latent primitive or scope fork is a fork, and
   * one taken back by its join a join. During a worker's exit a reading may count its joins twice
   * for an instant (they move to the slot before the worker leaves the array).
   */
  void read(int slot, Worker[] ws, long[] out) {
    counters[slot].read(out); // its acquire fence covers the reads below
    Worker w = slot < ws.length ? ws[slot] : null;
    if (w != null && w.recordStats) {
      LatentStack s = w.latent;
      long forks = s.functionForks;
      out[WorkerCounters.FORKS] += forks;
      out[WorkerCounters.JOINS] += forks - s.functionForksNotTakenBack;
    }
  }

  /** Counter {@code index} summed over every slot since the pool was built (no reset applies). */
  long total(int index, Worker[] ws) {
    WorkerCounters[] cs = counters;
    long[] out = new long[WorkerCounters.COUNT];
    long sum = 0;
    for (int i = 0; i < cs.length; i++) {
      read(i, ws, out);
      sum += out[index];
    }
    return sum;
  }

  /** Makes the next snapshot count from now. */
  void reset(Worker[] ws) {
    WorkerCounters[] cs = counters;
    long[][] now = new long[cs.length][WorkerCounters.COUNT];
    for (int i = 0; i < cs.length; i++) {
      read(i, ws, now[i]);
    }
    synchronized (this) {
      baseline = now;
    }
  }

  /** Counters since the last reset, per slot, with each live worker's thread figures. */
  PoolStats snapshot(WorkStealingPool pool, Worker[] ws) {
    WorkerCounters[] cs = counters;
    int slots = cs.length;
    long[][] now = new long[slots][WorkerCounters.COUNT];
    for (int i = 0; i < slots; i++) {
      read(i, ws, now[i]);
    }
    long[][] base;
    synchronized (this) {
      base = baseline;
    }
    ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
    List<PoolStats.WorkerStats> rows = new ArrayList<>(slots);
    for (int i = 0; i < slots; i++) {
      long[] c = now[i].clone();
      if (base != null && i < base.length) {
        for (int k = 0; k < c.length; k++) {
          c[k] -= base[i][k];
        }
      }
      Worker w = i < ws.length ? ws[i] : null;
      long cpu = -1, blockedN = -1, blockedMs = -1, waitedN = -1, waitedMs = -1;
      String threadName = null;
      if (w != null && w.isAlive()) {
        threadName = w.getName();
        if (tmx.isThreadCpuTimeSupported() && tmx.isThreadCpuTimeEnabled()) {
          cpu = tmx.getThreadCpuTime(w.threadId());
        }
        ThreadInfo info = tmx.getThreadInfo(w.threadId());
        if (info != null) {
          blockedN = info.getBlockedCount();
          waitedN = info.getWaitedCount();
          blockedMs = info.getBlockedTime();
          waitedMs = info.getWaitedTime();
        }
      }
      long exited = exitedCpu(i);
      if (exited > 0) {
        cpu = Math.max(cpu, 0L) + exited;
      }
      rows.add(
          new PoolStats.WorkerStats(i, threadName, c, cpu, blockedN, blockedMs, waitedN, waitedMs));
    }
    return new PoolStats(
        pool.name(),
        pool.parallelism(),
        pool.poolSize(),
        pool.sleepingWorkers(),
        pool.queuedTasks(),
        rows);
  }
}

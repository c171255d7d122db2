package dev.tine.executor;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The {@link ThreadRecorder}s registered with one {@link PoolMeter}: an intrusive list (through
 * {@code ThreadRecorder.prev/next}, so linking allocates nothing) and the harvest of each into a
 * bucket, with its thread's CPU time. Not thread-safe: the meter's lock guards it and the list
 * fields of its recorders.
 */
final class RegisteredRecorders {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** Whether the JVM measures other threads' CPU time (it may still be switched off: then -1). */
  static final boolean THREAD_CPU = THREADS.isThreadCpuTimeSupported();

  private ThreadRecorder head;
  private int count;

  /**
   * The calling thread's CPU time, to register with its recorder (read outside the lock), or -1.
   */
  static long currentThreadCpuNanos() {
    return THREAD_CPU ? THREADS.getCurrentThreadCpuTime() : -1;
  }

  void add(ThreadRecorder r, long threadCpuNanos) {
    r.lastCpuNanos = threadCpuNanos;
    r.next = head;
    if (head != null) head.prev = r;
    head = r;
    count++;
  }

  int count() {
    return count;
  }

  /** Harvests {@code r} a last time into {@code into} and takes it out; no-op if already out. */
  void release(ThreadRecorder r, MeasurementBucket into) {
    if (r.released) return;
    harvest(r, into);
    unlink(r);
  }

  /**
   * Harvests every recorder into {@code into}, and takes out those whose thread has ended: a
   * recorder's owner may never release it (a thread of a pool the meter's owner did not create).
   */
  void harvestAll(MeasurementBucket into) {
    for (ThreadRecorder r = head; r != null; ) {
      ThreadRecorder next = r.next;
      // Checked before harvesting: a thread seen ended (isAlive false) has all its records visible.
      boolean ended = r.threadEnded();
      harvest(r, into);
      if (ended) unlink(r);
      r = next;
    }
    if (THREAD_CPU) into.threadCpuNanos = Math.max(0, into.threadCpuNanos); // known, if only 0
  }

  /** One recorder's counts, timings and CPU time since its last harvest. */
  private static void harvest(ThreadRecorder r, MeasurementBucket into) {
    long c = r.completed(), f = r.failed();
    into.completed += c - r.harvestedCompleted;
    into.failed += f - r.harvestedFailed;
    r.harvestedCompleted = c;
    r.harvestedFailed = f;
    r.harvestTimingsInto(into.timings);
    if (THREAD_CPU) {
      long cpu = THREADS.getThreadCpuTime(r.threadId); // -1 once the thread has ended
      if (cpu >= 0 && r.lastCpuNanos >= 0) {
        into.threadCpuNanos = MeasurementBucket.addKnown(into.threadCpuNanos, cpu - r.lastCpuNanos);
      }
      if (cpu >= 0) r.lastCpuNanos = cpu;
    }
  }

  private void unlink(ThreadRecorder r) {
    if (r.prev != null) r.prev.next = r.next;
    else head = r.next;
    if (r.next != null) r.next.prev = r.prev;
    r.prev = r.next = null;
    r.released = true;
    count--;
  }
}

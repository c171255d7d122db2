package dev.tine.agent.state;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The threads seen working for one pool (weakly held): for the pool's name (their common prefix),
 * its CPU time, and which of them hold a recorder. Added to by pool threads (once each), read and
 * pruned by the ticker; a lock guards it, never held while anything else runs.
 */
public final class ThreadSet {
  static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  static final boolean CPU = THREADS.isThreadCpuTimeSupported();

  /** One thread of the pool. */
  public static final class Member {
    final WeakReference<Thread> thread;
    final long tid;

    /** Its CPU time when last read (-1: unknown); guarded by the set's lock. */
    long lastCpu = -1;

    /** Its recorder, or null; guarded by the set's lock. */
    PoolTally recorder;

    boolean gone;

    Member(Thread t) {
      this.thread = new WeakReference<>(t);
      this.tid = t.threadId();
    }
  }

  /**
   * Threads followed at most per pool (about 120 bytes each): beyond, a pool thread is still timed
   * and counted, but its CPU time and name are not read.
   */
  static final int MAX_MEMBERS = 256;

  private final Map<Long, Member> members = new HashMap<>();

  /** Threads not followed because {@link #MAX_MEMBERS} were. */
  int untracked;

  /**
   * Names of threads seen (live or not), the most recent last, at most NAMES: a pool keeps its name
   * after its threads end.
   */
  private final java.util.ArrayDeque<String> names = new java.util.ArrayDeque<>();

  private static final int NAMES = 32;

  private void remember(String name) {
    names.remove(name);
    names.addLast(name);
    if (names.size() > NAMES) names.removeFirst();
  }

  /** CPU time of the pool's threads counted so far (ns). */
  private long cpuNanos;

  /**
   * Adds the calling thread (or returns it if present), with the CPU time it has used so far as its
   * start.
   */
  public synchronized Member join(Thread t, PoolTally recorder) {
    Member m = members.get(t.threadId());
    if (m != null && m.thread.refersTo(t)) {
      if (m.recorder == null) m.recorder = recorder;
      return m;
    }
    m = new Member(t);
    m.recorder = recorder;
    if (members.size() >= MAX_MEMBERS) {
      untracked++;
      return m; // not kept: its CPU time and name are not counted (the pool's heap stays bounded)
    }
    if (CPU && t == Thread.currentThread()) m.lastCpu = THREADS.getCurrentThreadCpuTime();
    members.put(m.tid, m);
    remember(t.getName());
    return m;
  }

  /** For threads found by the ticker (ForkJoinPool workers): adds it if absent. */
  public synchronized void ensure(Thread t) {
    Member m = members.get(t.threadId());
    if ((m == null || !m.thread.refersTo(t)) && members.size() < MAX_MEMBERS) {
      m = new Member(t);
      m.lastCpu = CPU ? THREADS.getThreadCpuTime(m.tid) : -1; // counts from now on
      members.put(m.tid, m);
      remember(t.getName());
    }
  }

  /**
   * The calling thread leaves the pool: counts its CPU time up to now and returns its recorder (for
   * the caller to release), or null.
   */
  public synchronized PoolTally leave(Member m) {
    if (m.gone) return null;
    m.gone = true;
    members.remove(m.tid, m);
    if (CPU && m.lastCpu >= 0) {
      long cpu = THREADS.getCurrentThreadCpuTime();
      if (cpu >= m.lastCpu) cpuNanos += cpu - m.lastCpu;
    }
    PoolTally r = m.recorder;
    m.recorder = null;
    return r;
  }

  /**
   * Ticker: reads every live member's CPU time into the total, drops ended threads, and returns how
   * many of those recorded (the caller updates its counts).
   */
  synchronized int refresh() {
    int dropped = 0;
    for (Iterator<Member> it = members.values().iterator(); it.hasNext(); ) {
      Member m = it.next();
      Thread t = m.thread.get();
      if (t == null || !t.isAlive()) {
        it.remove();
        m.gone = true;
        if (m.recorder != null) {
          dropped++;
          m.recorder = null;
        }
        continue;
      }
      remember(t.getName()); // threads may rename themselves (RMI's do)
      if (CPU) {
        long cpu = THREADS.getThreadCpuTime(m.tid);
        if (cpu >= 0) {
          if (m.lastCpu < 0) {
            // first reading for a thread that joined before we could read it: count from here
          } else if (cpu >= m.lastCpu) {
            cpuNanos += cpu - m.lastCpu;
          }
          m.lastCpu = cpu;
        }
      }
    }
    return dropped;
  }

  /** CPU time of the pool's threads so far (ns), or -1 if the JVM does not measure it. */
  synchronized long cpuNanos() {
    return CPU ? cpuNanos : -1;
  }

  /** Names of the threads seen lately (live or ended), at most 32. */
  synchronized List<String> names() {
    return new ArrayList<>(names);
  }

  synchronized int size() {
    return members.size();
  }

  /** Forgets every thread (the agent stops); returns how many recorded. */
  synchronized int clear() {
    int out = 0;
    for (Member m : members.values()) {
      if (m.recorder != null) out++;
      m.recorder = null;
      m.gone = true;
    }
    members.clear();
    return out;
  }
}

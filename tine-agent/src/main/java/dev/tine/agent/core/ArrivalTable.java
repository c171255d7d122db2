package dev.tine.agent.core;

import java.lang.ref.WeakReference;

/**
 * Arrival times of tasks waiting in pools, kept beside the tasks instead of in a wrapper, so the
 * pool, its queue, {@code remove(task)}, {@code shutdownNow()} and {@code beforeExecute} /
 * {@code afterExecute} keep seeing the application's own objects.
 *
 * <ul>
 *   <li><b>Identity</b>: keys are compared with {@code ==} and hashed with {@link
 *       System#identityHashCode}; a task's own {@code equals}/{@code hashCode} are never called (two
 *       equal tasks are two arrivals, and the application's code never runs inside the agent).
 *   <li><b>Duplicates</b>: the same object submitted several times while queued (a stateless
 *       Runnable reused) holds one entry per submission; {@link #remove} takes the oldest, which is
 *       right for FIFO queues and close for others.
 *   <li><b>Weak</b>: a task the pool dropped without running it ({@code remove}, {@code purge},
 *       {@code shutdownNow}, a discard policy) does not stay reachable because of the agent; its entry
 *       goes when the task is collected ({@link #expunge}, and on the way during puts).
 *   <li><b>Bounded</b>: at most {@code capacity} entries; beyond that {@link #put} refuses and the
 *       task runs untimed (still counted). A full table is first expunged of collected tasks.
 * </ul>
 *
 * Striped: each stripe is a small chained hash table under its own monitor, so submitters and pool
 * threads rarely meet on a lock; no lock is held while anything outside this class runs.
 */
public class ArrivalTable {
  /** Returned by {@link #remove} when the task has no entry (untimed, or arrived before the agent). */
  public static final long ABSENT = Long.MIN_VALUE;

  /** One waiting submission: the task (weakly), when it arrived, and who it belongs to. */
  public static final class Entry extends WeakReference<Object> {
    final int hash;
    public final long arrival;
    /** The pool's state (for tables shared by pools); may be null. */
    public final Object owner;
    /** Set by the remover when it takes the entry (the entry is then private to it). */
    public long start;
    Entry next;

    Entry(Object task, int hash, long arrival, Object owner, Entry next) {
      super(task);
      this.hash = hash;
      this.arrival = arrival;
      this.owner = owner;
      this.next = next;
    }
  }

  private static final class Stripe {
    Entry[] buckets = new Entry[8];
    int count;
  }

  private final Stripe[] stripes;
  private final int stripeMask;
  private final int perStripeCapacity;

  /**
   * @param capacity most entries held (rounded up to a multiple of the stripe count)
   */
  public ArrivalTable(int capacity) {
    int n = Integer.highestOneBit(Math.max(4, Math.min(64, 4 * Runtime.getRuntime().availableProcessors())) - 1) << 1;
    stripes = new Stripe[n];
    for (int i = 0; i < n; i++) stripes[i] = new Stripe();
    stripeMask = n - 1;
    perStripeCapacity = Math.max(1, (capacity + n - 1) / n);
  }

  private static int spread(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    return h ^ (h >>> 13);
  }

  /**
   * Records that {@code task} arrived at {@code arrival}.
   *
   * @return false if the table is full (the task stays untimed)
   */
  public boolean put(Object task, long arrival, Object owner) {
    int h = spread(System.identityHashCode(task));
    Stripe s = stripes[h & stripeMask];
    synchronized (s) {
      if (s.count >= perStripeCapacity) {
        expunge(s);
        if (s.count >= perStripeCapacity) return false;
      }
      Entry[] b = s.buckets;
      if (s.count >= b.length && b.length < (1 << 20)) {
        b = resize(s);
      }
      int i = (h >>> 8) & (b.length - 1);
      b[i] = new Entry(task, h, arrival, owner, b[i]);
      s.count++;
      return true;
    }
  }

  /**
   * Takes the oldest entry of {@code task}, or null if it has none. Clears collected entries met on
   * the way.
   */
  public Entry take(Object task) {
    int h = spread(System.identityHashCode(task));
    Stripe s = stripes[h & stripeMask];
    synchronized (s) {
      if (s.count == 0) return null;
      Entry[] b = s.buckets;
      int i = (h >>> 8) & (b.length - 1);
      // Newest first in the chain: the oldest match is the last one.
      Entry found = null, foundPrev = null, prev = null;
      for (Entry e = b[i]; e != null; ) {
        Entry next = e.next;
        if (e.hash == h && e.refersTo(task)) {
          found = e;
          foundPrev = prev;
          prev = e;
        } else if (e.refersTo(null)) {
          if (prev == null) b[i] = next;
          else prev.next = next;
          s.count--;
          onExpunged(e);
        } else {
          prev = e;
        }
        e = next;
      }
      if (found == null) return null;
      if (foundPrev == null) b[i] = found.next;
      else foundPrev.next = found.next;
      found.next = null;
      s.count--;
      return found;
    }
  }

  /** Takes the oldest entry of {@code task}: its arrival time, or {@link #ABSENT}. */
  public long remove(Object task) {
    Entry e = take(task);
    if (e == null) return ABSENT;
    e.clear();
    return e.arrival;
  }

  /** Entries held now (collected tasks included until expunged). */
  public int size() {
    int n = 0;
    for (Stripe s : stripes) {
      synchronized (s) {
        n += s.count;
      }
    }
    return n;
  }

  /** Drops the entries of collected tasks; returns how many. */
  public int expunge() {
    int n = 0;
    for (Stripe s : stripes) {
      synchronized (s) {
        n += expunge(s);
      }
    }
    return n;
  }

  /** Drops every entry (the agent stops). */
  public void clear() {
    for (Stripe s : stripes) {
      synchronized (s) {
        Entry[] b = s.buckets;
        for (int i = 0; i < b.length; i++) {
          for (Entry e = b[i]; e != null; e = e.next) onExpunged(e);
          b[i] = null;
        }
        s.count = 0;
      }
    }
  }

  private int expunge(Stripe s) {
    int n = 0;
    Entry[] b = s.buckets;
    for (int i = 0; i < b.length; i++) {
      Entry prev = null;
      for (Entry e = b[i]; e != null; ) {
        Entry next = e.next;
        if (e.refersTo(null)) {
          if (prev == null) b[i] = next;
          else prev.next = next;
          s.count--;
          n++;
          onExpunged(e);
        } else {
          prev = e;
        }
        e = next;
      }
    }
    return n;
  }

  private static Entry[] resize(Stripe s) {
    Entry[] old = s.buckets;
    Entry[] b = new Entry[old.length * 2];
    // Keep each chain's order (newest first) so the oldest duplicate stays last.
    // Old chain i splits into new chains i and i + old.length only, so appending keeps the order.
    for (Entry head : old) {
      for (Entry e = head; e != null; ) {
        Entry next = e.next;
        int i = (e.hash >>> 8) & (b.length - 1);
        e.next = null;
        if (b[i] == null) {
          b[i] = e;
        } else {
          Entry t = b[i];
          while (t.next != null) t = t.next;
          t.next = e;
        }
        e = next;
      }
    }
    s.buckets = b;
    return b;
  }

  /** Called under a stripe lock for each entry dropped without being taken (collected, or cleared). */
  protected void onExpunged(Entry e) {}
}

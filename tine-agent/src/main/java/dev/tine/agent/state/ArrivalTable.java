package dev.tine.agent.state;

import java.lang.ref.WeakReference;

/**
 * Arrival times of tasks waiting in pools, kept beside the tasks instead of in a wrapper, so the
 * pool, its queue, {@code remove(task)}, {@code shutdownNow()} and {@code beforeExecute} / {@code
 * afterExecute} keep seeing the application's own objects.
 *
 * <ul>
 *   <li><b>Identity</b>: keys are compared with {@code ==} and hashed with {@link
 *       System#identityHashCode}; a task's own {@code equals}/{@code hashCode} are never called
 *       (two equal tasks are two arrivals, and the application's code never runs inside the agent).
 *   <li><b>Duplicates</b>: the same object submitted several times while queued (a stateless
 *       Runnable reused) keeps one arrival per submission in its entry; {@link #take} hands out the
 *       oldest, which is right for FIFO queues and close for others, in constant time. An arrival
 *       whose start the agent missed is found out when the task arrives again ({@link #isWaiting}).
 *   <li><b>Weak</b>: a task the pool dropped without running it ({@code remove}, {@code purge},
 *       {@code shutdownNow}, a discard policy) does not stay reachable because of the agent; its
 *       entry goes when the task is collected ({@link #expunge}, and on the way during puts and
 *       takes).
 *   <li><b>Bounded</b>: at most about {@code capacity} arrivals; beyond that {@link #put} refuses
 *       (a full stripe is first expunged of collected tasks) and the caller puts the arrival in the
 *       pool's {@link ArrivalCurve} (a JDK FIFO queue), or the task runs untimed (still counted).
 * </ul>
 *
 * Striped: each stripe is a small chained hash table under its own monitor, so submitters and pool
 * threads rarely meet on a lock; no lock is held while anything outside this class runs.
 */
public class ArrivalTable {
  /**
   * Returned by {@link #remove} when the task has no entry (untimed, or arrived before the agent).
   */
  public static final long ABSENT = Long.MIN_VALUE;

  /** One waiting task (weakly): its oldest arrival, later ones if queued again, and its owner. */
  public static final class Entry extends WeakReference<Object> {
    final int hash;

    /** The oldest arrival not yet taken. */
    public long arrival;

    /** The pool's state (for tables shared by pools); may be null. */
    public final Object owner;

    /** Set by the taker (the entry is then private to it). */
    public long start;

    Entry next;

    /** Later arrivals of the same task, a ring; null until the task is queued twice. */
    private long[] dups;

    private int dupHead, dupCount;

    Entry(Object task, int hash, long arrival, Object owner) {
      super(task);
      this.hash = hash;
      this.arrival = arrival;
      this.owner = owner;
    }

    int arrivals() {
      return 1 + dupCount;
    }

    void addDup(long a) {
      if (dups == null) dups = new long[4];
      if (dupCount == dups.length) {
        long[] d = new long[dups.length * 2];
        for (int i = 0; i < dupCount; i++) d[i] = dups[(dupHead + i) % dups.length];
        dups = d;
        dupHead = 0;
      }
      dups[(dupHead + dupCount) % dups.length] = a;
      dupCount++;
    }

    long pollDup() {
      long a = dups[dupHead];
      dupHead = (dupHead + 1) % dups.length;
      dupCount--;
      return a;
    }
  }

  private static final class Stripe {
    Entry[] buckets = new Entry[8];

    /** Entries in the stripe. */
    int entries;

    /** Arrivals held (entries and their duplicates). */
    int count;
  }

  private final Stripe[] stripes;
  private final int stripeMask;
  private final int perStripeCapacity;

  /**
   * @param capacity arrivals held at most (rounded up to a multiple of the stripe count)
   */
  public ArrivalTable(int capacity) {
    int n =
        Integer.highestOneBit(
                Math.max(4, Math.min(64, 4 * Runtime.getRuntime().availableProcessors())) - 1)
            << 1;
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
    int verdict =
        0; // 0: not asked yet; 1: the task is waiting; 2: its arrivals on record are stale
    for (; ; ) {
      synchronized (s) {
        Entry[] b = s.buckets;
        int i = (h >>> 8) & (b.length - 1);
        Entry prev = null;
        boolean ask = false;
        for (Entry e = b[i]; e != null; ) {
          Entry next = e.next;
          if (e.hash == h && e.refersTo(task)) {
            if (verdict == 0) {
              ask = true;
              break;
            }
            if (verdict == 1) {
              if (s.count >= perStripeCapacity) return false;
              e.addDup(arrival);
              s.count++;
              return true;
            }
            // stale: its arrivals go, as if the task had been collected, and this one starts anew
            unlink(s, b, i, prev, e);
            onCollected(e);
            e.clear();
          } else if (e.refersTo(null)) {
            unlink(s, b, i, prev, e);
            onCollected(e);
          } else {
            prev = e;
          }
          e = next;
        }
        if (!ask) {
          if (s.count >= perStripeCapacity) {
            expunge(s);
            if (s.count >= perStripeCapacity) return false;
          }
          if (s.entries >= b.length && b.length < (1 << 20)) {
            b = resize(s);
            i = (h >>> 8) & (b.length - 1);
          }
          Entry e = new Entry(task, h, arrival, owner);
          e.next = b[i];
          b[i] = e;
          s.entries++;
          s.count++;
          return true;
        }
      }
      // Asked outside the stripe's lock: the owner may read its pool's queue.
      verdict = isWaiting(task) ? 1 : 2;
    }
  }

  /**
   * Asked when {@code task} arrives again while it still has an arrival on record: whether it is
   * waiting in its pool now (queued more than once, its arrivals all live). If not, the arrivals on
   * record are stale (left by a start the agent did not see) and are dropped, so a task object the
   * application reuses is not matched one submission behind forever. Called with no lock held. By
   * default every arrival is kept.
   */
  protected boolean isWaiting(Object task) {
    return true;
  }

  /**
   * Takes the oldest arrival of {@code task}: an entry private to the caller (its {@code arrival},
   * {@code owner}, and {@code start} for the caller's use), or null if it has none.
   */
  public Entry take(Object task) {
    int h = spread(System.identityHashCode(task));
    Stripe s = stripes[h & stripeMask];
    synchronized (s) {
      if (s.count == 0) return null;
      Entry[] b = s.buckets;
      int i = (h >>> 8) & (b.length - 1);
      Entry prev = null;
      for (Entry e = b[i]; e != null; ) {
        Entry next = e.next;
        if (e.hash == h && e.refersTo(task)) {
          s.count--;
          if (e.dupCount > 0) {
            Entry t = new Entry(task, h, e.arrival, e.owner);
            e.arrival = e.pollDup();
            return t;
          }
          unlink(s, b, i, prev, e);
          return e;
        }
        if (e.refersTo(null)) {
          unlink(s, b, i, prev, e);
          onCollected(e);
        } else {
          prev = e;
        }
        e = next;
      }
      return null;
    }
  }

  /** Takes the oldest arrival of {@code task}: its time, or {@link #ABSENT}. */
  public long remove(Object task) {
    Entry e = take(task);
    if (e == null) return ABSENT;
    e.clear();
    return e.arrival;
  }

  /** {@return arrivals held now (collected tasks' included until expunged)} */
  public int size() {
    int n = 0;
    for (Stripe s : stripes) {
      synchronized (s) {
        n += s.count;
      }
    }
    return n;
  }

  /**
   * Drops the entries of collected tasks.
   *
   * @return how many arrivals went with them
   */
  public int expunge() {
    int n = 0;
    for (Stripe s : stripes) {
      synchronized (s) {
        n += expunge(s);
      }
    }
    return n;
  }

  /** Drops every entry (the agent stops, or the pool terminated). */
  public void clear() {
    for (Stripe s : stripes) {
      synchronized (s) {
        Entry[] b = s.buckets;
        for (int i = 0; i < b.length; i++) {
          for (Entry e = b[i]; e != null; e = e.next) {
            for (int k = e.arrivals(); k > 0; k--) onExpunged(e);
          }
          b[i] = null;
        }
        s.count = s.entries = 0;
      }
    }
  }

  private static void unlink(Stripe s, Entry[] b, int i, Entry prev, Entry e) {
    if (prev == null) b[i] = e.next;
    else prev.next = e.next;
    e.next = null;
    s.entries--;
  }

  /** A collected entry was unlinked: its arrivals leave the count, and the owner hears of each. */
  private void onCollected(Entry e) {
    Stripe s = stripes[e.hash & stripeMask];
    s.count -= e.arrivals();
    for (int k = e.arrivals(); k > 0; k--) onExpunged(e);
  }

  private int expunge(Stripe s) {
    int n = 0;
    Entry[] b = s.buckets;
    for (int i = 0; i < b.length; i++) {
      Entry prev = null;
      for (Entry e = b[i]; e != null; ) {
        Entry next = e.next;
        if (e.refersTo(null)) {
          unlink(s, b, i, prev, e);
          n += e.arrivals();
          onCollected(e);
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
    for (Entry head : old) {
      for (Entry e = head; e != null; ) {
        Entry next = e.next;
        int i = (e.hash >>> 8) & (b.length - 1);
        e.next = b[i];
        b[i] = e;
        e = next;
      }
    }
    s.buckets = b;
    return b;
  }

  /**
   * Called under a stripe lock once per arrival dropped without being taken (collected, or
   * cleared).
   */
  protected void onExpunged(Entry e) {}
}

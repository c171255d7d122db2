package dev.tine.agent.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ArrivalTableTest {
  /** A task whose equality the application defined: the table must neither use nor call it. */
  static final class Touchy implements Runnable {
    @Override
    public void run() {}

    @Override
    public boolean equals(Object o) {
      throw new AssertionError("equals called");
    }

    @Override
    public int hashCode() {
      throw new AssertionError("hashCode called");
    }
  }

  /** Equal to every other instance, same hash: a map keyed by equality would merge them. */
  static final class AllEqual implements Runnable {
    @Override
    public void run() {}

    @Override
    public boolean equals(Object o) {
      return o instanceof AllEqual;
    }

    @Override
    public int hashCode() {
      return 1;
    }
  }

  @Test
  void keysAreIdentitiesAndTheirEqualsAndHashCodeAreNeverCalled() {
    ArrivalTable t = new ArrivalTable(100);
    Touchy a = new Touchy(), b = new Touchy();
    assertTrue(t.put(a, 10, null));
    assertTrue(t.put(b, 20, null));
    assertEquals(20, t.remove(b));
    assertEquals(10, t.remove(a));
    assertEquals(ArrivalTable.ABSENT, t.remove(a));
  }

  @Test
  void equalButDistinctTasksKeepTheirOwnArrivals() {
    ArrivalTable t = new ArrivalTable(100);
    AllEqual a = new AllEqual(), b = new AllEqual();
    t.put(a, 1, null);
    t.put(b, 2, null);
    assertEquals(2, t.remove(b), "b's own arrival, not a's");
    assertEquals(1, t.remove(a));
  }

  @Test
  void theSameTaskQueuedTwiceGivesItsArrivalsOldestFirst() {
    ArrivalTable t = new ArrivalTable(100);
    Runnable r = () -> {};
    t.put(r, 5, null);
    t.put(r, 6, null);
    t.put(r, 7, null);
    assertEquals(5, t.remove(r));
    assertEquals(6, t.remove(r));
    assertEquals(7, t.remove(r));
    assertEquals(ArrivalTable.ABSENT, t.remove(r));
  }

  @Test
  void aTaskQueuedManyTimesCostsConstantTimePerArrival() {
    ArrivalTable t = new ArrivalTable(1 << 20);
    Runnable r = () -> {};
    long t0 = System.nanoTime();
    for (int i = 0; i < 100_000; i++) assertTrue(t.put(r, i, null));
    for (int i = 0; i < 100_000; i++) assertEquals(i, t.remove(r));
    assertEquals(0, t.size());
    // a linear scan per arrival would take minutes here; constant time takes milliseconds
    assertTrue(System.nanoTime() - t0 < 20_000_000_000L);
  }

  @Test
  void duplicatesOfACollectedTaskAreAllExpunged() throws Exception {
    AtomicInteger expunged = new AtomicInteger();
    ArrivalTable t =
        new ArrivalTable(100) {
          @Override
          protected void onExpunged(Entry e) {
            expunged.incrementAndGet();
          }
        };
    Object task = new Object();
    WeakReference<Object> ref = new WeakReference<>(task);
    t.put(task, 1, null);
    t.put(task, 2, null);
    t.put(task, 3, null);
    assertEquals(3, t.size());
    task = null;
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (ref.get() != null && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(10);
    }
    assertEquals(3, t.expunge());
    assertEquals(3, expunged.get());
    assertEquals(0, t.size());
  }

  @Test
  void anArrivalWhoseStartWasMissedIsDroppedWhenTheTaskArrivesAgainUnqueued() {
    // A pool thread that was inside getTask when the agent arrived takes a task without the agent
    // seeing it: the arrival stays. A server reusing its task objects must not then be matched one
    // submission behind: when the task arrives again and is not queued, the old arrival goes.
    java.util.Set<Object> queued =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    AtomicInteger dropped = new AtomicInteger();
    ArrivalTable t =
        new ArrivalTable(100) {
          @Override
          protected boolean isWaiting(Object task) {
            return queued.contains(task);
          }

          @Override
          protected void onExpunged(Entry e) {
            dropped.incrementAndGet();
          }
        };
    Touchy reused = new Touchy();
    assertTrue(t.put(reused, 100, null)); // taken unseen: never removed
    for (long a = 200; a <= 1000; a += 100) {
      assertTrue(t.put(reused, a, null));
      assertEquals(a, t.remove(reused), "matched to its own submission");
    }
    assertEquals(1, dropped.get(), "the stale arrival, once");
    // Queued twice for real: both arrivals are kept, oldest first.
    assertTrue(t.put(reused, 2000, null));
    queued.add(reused);
    assertTrue(t.put(reused, 2100, null));
    assertEquals(2000, t.remove(reused));
    assertEquals(2100, t.remove(reused));
    assertEquals(1, dropped.get());
  }

  @Test
  void fullTableRefusesThenAcceptsAgainOnceEmptied() {
    ArrivalTable t = new ArrivalTable(64);
    List<Object> keep = new ArrayList<>();
    int accepted = 0;
    for (int i = 0; i < 10_000; i++) {
      Object o = new Object();
      keep.add(o);
      if (t.put(o, i, null)) accepted++;
    }
    assertTrue(
        accepted <= 64 + 64, "bounded: accepted " + accepted); // capacity rounds up per stripe
    assertTrue(accepted >= 16, "accepted " + accepted);
    assertEquals(accepted, t.size());
    for (Object o : keep) t.remove(o);
    assertEquals(0, t.size());
    assertTrue(t.put(new Object(), 1, null));
  }

  @Test
  void anEntryDoesNotKeepItsTaskAliveAndGoesWhenTheTaskIsCollected() throws Exception {
    AtomicInteger expunged = new AtomicInteger();
    ArrivalTable t =
        new ArrivalTable(100) {
          @Override
          protected void onExpunged(Entry e) {
            expunged.incrementAndGet();
          }
        };
    Object task = new Object();
    WeakReference<Object> ref = new WeakReference<>(task);
    t.put(task, 1, null);
    task = null;
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (ref.get() != null && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(10);
    }
    assertNull(ref.get(), "the table kept the task reachable");
    assertEquals(1, t.expunge());
    assertEquals(1, expunged.get());
    assertEquals(0, t.size());
  }

  @Test
  void concurrentPutsAndTakesLoseNothing() throws Exception {
    ArrivalTable t = new ArrivalTable(1 << 16);
    int threads = 4, per = 20_000;
    Object[][] tasks = new Object[threads][per];
    for (Object[] row : tasks) for (int i = 0; i < per; i++) row[i] = new Object();
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger wrong = new AtomicInteger();
    List<Thread> ts = new ArrayList<>();
    for (int k = 0; k < threads; k++) {
      int kk = k;
      ts.add(
          Thread.ofPlatform()
              .start(() -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < per; i++) {
                  if (!t.put(tasks[kk][i], kk * 1_000_000L + i, null)) wrong.incrementAndGet();
                  if (i >= 8) {
                    long a = t.remove(tasks[kk][i - 8]);
                    if (a != kk * 1_000_000L + i - 8) wrong.incrementAndGet();
                  }
                }
              }));
    }
    go.countDown();
    for (Thread th : ts) th.join();
    assertEquals(0, wrong.get());
    assertEquals(threads * 8, t.size());
  }
}

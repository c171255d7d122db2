package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * The external queue's takes lose nothing to a {@link StackOverflowError}: a child JVM under {@code
 * -Xint} (every {@code VarHandle} access and small method a call that can overflow) fills a queue,
 * then takes from it ({@code poll}, and {@code remove} of a given task) once in every frame as a
 * recursion unwinds from the stack's edge, so the overflow strikes each call of a take in turn. A
 * take that threw must have left its task queued: every task is taken exactly once or still there.
 * Concurrent takers and offerers (two threads on one queue) must not lose or duplicate either.
 *
 * <p>Before, the queue was a {@code ConcurrentLinkedQueue}, whose poll and remove unlink nodes with
 * calls after the commit: the same sweep over it (run here too, as the control) loses tasks.
 */
class ExternalQueueOverflowTest {
  /** The operations under test: the runtime's queue, or the JDK's as a control. */
  interface Queue {
    void offer(Task<?> t);

    Task<?> poll();

    boolean remove(Task<?> t);
  }

  static Queue ours() {
    ExternalQueue q = new ExternalQueue();
    return new Queue() {
      @Override
      public void offer(Task<?> t) {
        q.offer(t);
      }

      @Override
      public Task<?> poll() {
        return q.poll();
      }

      @Override
      public boolean remove(Task<?> t) {
        return q.remove(t);
      }
    };
  }

  static Queue jdk() {
    ConcurrentLinkedQueue<Task<?>> q = new ConcurrentLinkedQueue<>();
    return new Queue() {
      @Override
      public void offer(Task<?> t) {
        q.offer(t);
      }

      @Override
      public Task<?> poll() {
        return q.poll();
      }

      @Override
      public boolean remove(Task<?> t) {
        return q.remove(t); // Task's equals is identity
      }
    };
  }

  static final int N = 60_000;
  static Queue q;
  static Task<?>[] tasks;
  static int[] taken;
  static boolean removing;
  static int next; // the task a remove aims at

  /** Recurses to the stack's edge; on the way back every frame takes once. */
  static void sweep() {
    try {
      sweep();
    } catch (StackOverflowError e) {
      // the edge
    }
    take();
  }

  static void take() {
    if (removing) {
      int i = next;
      if (i < N && q.remove(tasks[i])) {
        taken[i]++; // plain store, no call: a take that returned is recorded
      }
      next = i + 1; // a remove that threw is simply not retried
      return;
    }
    Task<?> t = q.poll();
    if (t != null) {
      taken[((Leaf) t).id]++;
    }
  }

  static final class Leaf extends Task<Void> {
    final int id;

    Leaf(int id) {
      this.id = id;
    }

    @Override
    protected Void compute() {
      return null;
    }
  }

  /** The child JVM: prints "takes T lost L twice D" for {@code args[0]} ours|jdk, poll|remove. */
  public static void main(String[] args) throws Exception {
    q = args[0].equals("ours") ? ours() : jdk();
    removing = args[1].equals("remove");
    tasks = new Task<?>[N];
    taken = new int[N];
    for (int i = 0; i < N; i++) {
      tasks[i] = new Leaf(i);
      q.offer(tasks[i]);
    }
    int takes = 0;
    for (int round = 0; round < 3; round++) {
      Thread t = new Thread(null, ExternalQueueOverflowTest::sweep, "sweep", 1 << 20);
      t.start();
      t.join();
      InterpretedChild.progress("round " + round);
    }
    for (int c : taken) {
      takes += c;
    }
    // What is still queued, taken at the top of a stack.
    removing = false;
    for (Task<?> t; (t = q.poll()) != null; ) {
      taken[((Leaf) t).id]++;
    }
    int lost = 0, twice = 0;
    for (int c : taken) {
      lost += c == 0 ? 1 : 0;
      twice += c > 1 ? 1 : 0;
    }
    System.out.println("takes " + takes + " lost " + lost + " twice " + twice);
  }

  static int[] run(String queue, String op) throws IOException, InterruptedException {
    String out = InterpretedChild.run(ExternalQueueOverflowTest.class, queue, op);
    String last = InterpretedChild.lastLine(out);
    assertTrue(last.startsWith("takes "), out);
    String[] w = last.split(" ");
    return new int[] {Integer.parseInt(w[1]), Integer.parseInt(w[3]), Integer.parseInt(w[5])};
  }

  @Test
  void aTakeThatOverflowsLeavesItsTaskQueued() throws Exception {
    for (String op : List.of("poll", "remove")) {
      int[] r = run("ours", op);
      assertTrue(r[0] > 1000, op + ": enough takes near the edge to matter: " + r[0]);
      assertEquals(0, r[1], op + ": tasks lost by a take that overflowed");
      assertEquals(0, r[2], op + ": tasks taken twice");
    }
  }

  /** The control: the JDK's queue under the same sweep loses tasks (so the sweep reaches). */
  @Test
  void theSweepReachesWhereConcurrentLinkedQueueLosesTasks() throws Exception {
    int lost = 0;
    for (String op : List.of("poll", "remove")) {
      lost += run("jdk", op)[1];
    }
    assertTrue(lost > 0, "the JDK's queue lost nothing: the sweep does not reach the takes' calls");
  }

  /** Two offerers (taking some back) and two pollers at once: every task taken exactly once. */
  @Test
  void concurrentOffersAndTakesLoseAndDuplicateNothing() throws Exception {
    ExternalQueue eq = new ExternalQueue();
    int per = 200_000;
    Leaf[] all = new Leaf[2 * per];
    for (int i = 0; i < all.length; i++) {
      all[i] = new Leaf(i);
    }
    AtomicIntegerArray counts = new AtomicIntegerArray(all.length);
    AtomicInteger done = new AtomicInteger();
    CyclicBarrier start = new CyclicBarrier(4);
    List<Thread> ts = new ArrayList<>();
    for (int k = 0; k < 2; k++) {
      int from = k * per;
      ts.add(
          Thread.ofPlatform()
              .start(() -> {
                await(start);
                for (int i = from; i < from + per; i++) {
                  eq.offer(all[i]);
                  if ((i & 7) == 0 && eq.remove(all[i])) {
                    counts.incrementAndGet(i); // a joiner taking its target back, now and then
                  }
                }
                done.incrementAndGet();
              }));
    }
    for (int k = 0; k < 2; k++) {
      ts.add(
          Thread.ofPlatform()
              .start(() -> {
                await(start);
                while (done.get() < 2 || !eq.isEmpty()) {
                  Task<?> t = eq.poll();
                  if (t != null) {
                    counts.incrementAndGet(((Leaf) t).id);
                  }
                }
              }));
    }
    for (Thread t : ts) {
      t.join();
    }
    int lost = 0, twice = 0;
    for (int i = 0; i < all.length; i++) {
      lost += counts.get(i) == 0 ? 1 : 0;
      twice += counts.get(i) > 1 ? 1 : 0;
    }
    assertEquals(0, lost, "tasks neither polled nor removed");
    assertEquals(0, twice, "tasks taken twice");
    assertEquals(0, eq.size());
  }

  private static void await(CyclicBarrier b) {
    try {
      b.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}

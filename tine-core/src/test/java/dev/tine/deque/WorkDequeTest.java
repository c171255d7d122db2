package dev.tine.deque;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class WorkDequeTest {

  @Test
  void ownerIsLifoThievesAreFifo() {
    WorkDeque<Integer> d = new WorkDeque<>(4);
    for (int i = 0; i < 10; i++) d.push(i); // grows 4 -> 8 -> 16
    assertEquals(16, d.capacity());
    assertEquals(10, d.size());
    assertEquals(9, d.pop());
    assertEquals(0, d.steal());
    assertEquals(1, d.steal());
    assertEquals(8, d.pop());
    assertEquals(7, d.peek());
    List<Integer> rest = new ArrayList<>();
    for (Integer x; (x = d.pop()) != null; ) rest.add(x);
    assertEquals(List.of(7, 6, 5, 4, 3, 2), rest);
    assertNull(d.pop());
    assertNull(d.steal());
    assertEquals(0, d.size());
  }

  @Test
  void wrapsAroundWithoutGrowingWhenDrained() {
    WorkDeque<Integer> d = new WorkDeque<>(4);
    for (int round = 0; round < 1000; round++) {
      d.push(round);
      d.push(-round);
      assertEquals(round, d.steal());
      assertEquals(-round, d.pop());
    }
    assertEquals(4, d.capacity());
  }

  @Test
  void pushReportsSizeBefore() {
    WorkDeque<Integer> d = new WorkDeque<>();
    assertEquals(0, d.push(1));
    assertEquals(1, d.push(2));
    d.steal();
    assertEquals(1, d.push(3));
  }

  /**
   * One owner pushing and popping, three thieves stealing: every element is taken exactly once,
   * including the races on the last element, across many growths.
   */
  @Test
  void concurrentExactlyOnce() throws Exception {
    int n = 2_000_000;
    WorkDeque<Integer> d = new WorkDeque<>(2);
    AtomicIntegerArray taken = new AtomicIntegerArray(n);
    AtomicBoolean done = new AtomicBoolean();
    int thieves = 3;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> ts = new ArrayList<>();
    for (int k = 0; k < thieves; k++) {
      Thread t =
          new Thread(() -> {
            try {
              start.await();
            } catch (InterruptedException e) {
              return;
            }
            while (!done.get() || d.size() > 0) {
              Integer x = d.steal();
              if (x != null) taken.incrementAndGet(x);
            }
          });
      t.start();
      ts.add(t);
    }
    start.countDown();
    int next = 0;
    java.util.SplittableRandom r = new java.util.SplittableRandom(1);
    while (next < n) {
      int pushes = 1 + r.nextInt(4);
      for (int i = 0; i < pushes && next < n; i++) d.push(next++);
      int pops = r.nextInt(4);
      for (int i = 0; i < pops; i++) {
        Integer x = d.pop();
        if (x != null) taken.incrementAndGet(x);
      }
    }
    for (Integer x; (x = d.pop()) != null; ) taken.incrementAndGet(x);
    done.set(true);
    for (Thread t : ts) t.join();
    for (int i = 0; i < n; i++) {
      assertEquals(1, taken.get(i), "element " + i);
    }
    assertTrue(d.size() == 0);
  }
}

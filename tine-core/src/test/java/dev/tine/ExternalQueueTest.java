package dev.tine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The external queue removes a task by identity: a joiner taking its own target out of the queue,
 * or a submission rolled back because the pool stopped, must never take another task that a user's
 * {@code equals} calls equal.
 */
class ExternalQueueTest {
  /** A task class whose equals says every task of its class is the same. */
  static final class AllEqual extends Task<Integer> {
    final int id;

    AllEqual(int id) {
      this.id = id;
    }

    @Override
    protected Integer compute() {
      return id;
    }

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
  void removesTheSameTaskNotAnEqualOne() {
    ExternalQueue q = new ExternalQueue();
    AllEqual a = new AllEqual(1), b = new AllEqual(2), c = new AllEqual(3);
    q.offer(a);
    q.offer(b);
    assertTrue(q.remove(b), "b is queued");
    assertFalse(q.remove(c), "c was never queued, though it equals a");
    assertSame(a, q.poll(), "a is still queued, first");
    assertNull(q.poll());
    assertFalse(q.remove(a), "a was polled already");
  }
}

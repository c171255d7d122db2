package dev.tine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The pool's queue for tasks submitted by threads that are not its workers: lock-free, FIFO.
 * Workers poll it first when they scan ({@link Stealing}); a joiner whose target was submitted and
 * not started takes it out ({@link #remove}), as does a submission that the pool's shutdown
 * overtook (its rollback). Both remove by identity.
 *
 * <p>A linked list in the style of Michael and Scott's queue, where a node's item is taken by a CAS
 * to null (as in the JDK's {@code ConcurrentLinkedQueue}). <b>Errors inside:</b> every take ({@link
 * #poll}, {@link #remove}) commits with that CAS and calls nothing after it, so a {@link
 * StackOverflowError} deep in a user's recursion either strikes before the commit (the task stays
 * queued) or not at all: the caller holds the task from the moment the call returns (see {@link
 * Worker}'s class comment). Unlinking taken nodes happens before a take's commit, never after.
 * ({@code ConcurrentLinkedQueue}'s poll and remove unlink after their commit, with calls, and an
 * overflow there lost the task: {@code ExternalQueueTest}'s interpreted sweep.)
 *
 * <p>Invariants: nodes are linked only at the end ({@code next} from null to a node, by CAS); a
 * node's item goes from a task to null once, by CAS, and only that CAS hands the task out; {@code
 * head} moves only past a node whose item is null and whose {@code next} is set, so {@code head}
 * never passes the last node, and a node left behind {@code head} keeps its {@code next}, so a
 * lagging {@code tail} still reaches the end through it.
 *
 * <p>The offer's CAS is a volatile write: a submitter that offers, then reads the sleep word, pairs
 * with a sleeper that registers, then reads this queue ({@link Sleep}'s handshake).
 */
final class ExternalQueue {
  private static final class Node {
    volatile Task<?> item;
    volatile Node next;

    Node(Task<?> item) {
      this.item = item;
    }
  }

  private static final VarHandle HEAD, TAIL, ITEM, NEXT;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      HEAD = l.findVarHandle(ExternalQueue.class, "head", Node.class);
      TAIL = l.findVarHandle(ExternalQueue.class, "tail", Node.class);
      ITEM = l.findVarHandle(Node.class, "item", Task.class);
      NEXT = l.findVarHandle(Node.class, "next", Node.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private volatile Node head;
  private volatile Node tail;

  ExternalQueue() {
    Node n = new Node(null);
    head = n;
    tail = n;
  }

  void offer(Task<?> task) {
    Node n = new Node(task);
    for (; ; ) {
      Node t = tail;
      Node next = t.next;
      if (next != null) {
        TAIL.compareAndSet(this, t, next); // help a lagging tail
      } else if (NEXT.compareAndSet(t, null, n)) { // the commit: queued
        try {
          TAIL.compareAndSet(this, t, n);
        } catch (StackOverflowError e) {
          // optional: the next offer moves the tail
        }
        return;
      }
    }
  }

  /** Takes the oldest task, or null if none is queued. Nothing is called after the commit. */
  Task<?> poll() {
    for (Node p = head; p != null; ) {
      Task<?> x = p.item;
      if (x != null) {
        if (ITEM.compareAndSet(p, x, null)) {
          return x; // the commit was the last call
        }
        continue; // another taker won it: look at the same node again (now null)
      }
      p = skip(p);
    }
    return null;
  }

  /**
   * {@code p}'s item is null: moves {@code head} past it if {@code p} is the head and not the last
   * node, and returns the node after it (null at the end).
   */
  private Node skip(Node p) {
    Node next = p.next;
    if (next != null && p == head) {
      if (p == tail) {
        TAIL.compareAndSet(this, p, next); // the tail never stays behind the head
      }
      HEAD.compareAndSet(this, p, next);
    }
    return next;
  }

  Task<?> peek() {
    for (Node p = head; p != null; p = p.next) {
      Task<?> x = p.item;
      if (x != null) {
        return x;
      }
    }
    return null;
  }

  boolean isEmpty() {
    return peek() == null;
  }

  int size() {
    int n = 0;
    for (Node p = head; p != null; p = p.next) {
      if (p.item != null) {
        n++;
      }
    }
    return n;
  }

  /**
   * Removes {@code task} if it is queued, by identity (a task class's own {@code equals} is never
   * consulted); true if this call removed it. The removal is the item's CAS, the same one a poll
   * commits with, so exactly one of a poller and a remover gets the task. Nothing is called after
   * the commit; the node is unlinked by a later poll.
   */
  boolean remove(Task<?> task) {
    for (Node p = head; p != null; p = p.next) {
      if (p.item == task) {
        return ITEM.compareAndSet(p, task, null); // the commit was the last call
      }
    }
    return false;
  }
}

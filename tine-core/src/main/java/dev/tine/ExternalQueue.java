package dev.tine;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The pool's queue for tasks submitted by threads that are not its workers: lock-free, FIFO.
 * Workers poll it first when they scan ({@link Stealing}); a joiner whose target was submitted and
 * not started takes it out ({@link #remove}), as does a submission that the pool's shutdown
 * overtook (its rollback). Both remove by identity.
 *
 * <p>Known gap: {@code ConcurrentLinkedQueue}'s poll and remove make calls after their commit
 * (unlinking dead nodes), so a {@link StackOverflowError} there, deep in a user's recursion, could
 * lose the task they took; the runtime's own queues keep their commits call-free (see {@link
 * Worker}'s class comment).
 *
 * <p>The offer's CAS is a volatile write: a submitter that offers, then reads the sleep word, pairs
 * with a sleeper that registers, then reads this queue ({@link Sleep}'s handshake).
 */
final class ExternalQueue {
  private final ConcurrentLinkedQueue<Task<?>> queue = new ConcurrentLinkedQueue<>();

  void offer(Task<?> task) {
    queue.offer(task);
  }

  Task<?> poll() {
    return queue.poll();
  }

  Task<?> peek() {
    return queue.peek();
  }

  boolean isEmpty() {
    return queue.isEmpty();
  }

  int size() {
    return queue.size();
  }

  /**
   * Removes {@code task} if it is queued, by identity (a task class's own {@code equals} is never
   * consulted); true if this call removed it. The removal is the queue's atomic one, so exactly one
   * of a poller and a remover gets the task.
   */
  boolean remove(Task<?> task) {
    if (queue.isEmpty()) {
      return false;
    }
    // The queue's remove() calls equals on its argument: an identity matcher.
    return queue.remove(
        new Object() {
          @Override
          public boolean equals(Object o) {
            return o == task;
          }

          @Override
          public int hashCode() {
            return System.identityHashCode(task);
          }
        });
  }
}

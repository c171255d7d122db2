package dev.tine.executor;

/**
 * A task {@link PoolMeter#arrive()} chose for timing, as {@link MeasuredExecutor} queues it: it
 * carries the arrival time and notes when the task started and ended on its pool thread, for the
 * pool's {@code afterExecute} to record. Untimed tasks are queued as they were submitted.
 */
final class TimedTask implements Runnable {
  final Runnable task;
  final long arrival;

  /**
   * {@code System.nanoTime()} around {@code task.run()}; written and read on the pool thread only.
   */
  long start, end;

  TimedTask(Runnable task, long arrival) {
    this.task = task;
    this.arrival = arrival;
  }

  @Override
  public void run() {
    start = System.nanoTime();
    try {
      task.run();
    } finally {
      end = System.nanoTime();
    }
  }
}

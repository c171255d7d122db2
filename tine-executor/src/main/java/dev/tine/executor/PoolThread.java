package dev.tine.executor;

/**
 * A {@link MeasuredExecutor}'s pool thread: holds its {@link ThreadRecorder} in a field, so a task
 * is recorded without a lookup. It registers the recorder with the meter as it starts and releases
 * it as it ends (a task threw from {@code execute}, the pool shrank or shut down), so threads that
 * ThreadPoolExecutor replaces leave nothing behind and their figures stay counted.
 */
final class PoolThread extends Thread {
  private final PoolMeter meter;

  /**
   * Set as this thread starts, released as it ends; confined to this thread. Null if not even a
   * recorder without timings could be allocated: tasks are then counted by the meter's shared
   * counter ({@link PoolMeter#completed}).
   */
  private ThreadRecorder recorder;

  PoolThread(Runnable r, String name, PoolMeter meter) {
    super(r, name);
    this.meter = meter;
  }

  @Override
  public void run() {
    // Registered here rather than in the thread factory: a thread that is created but never
    // started (the pool shut down meanwhile, or start() failed) has nothing to release.
    try {
      recorder = meter.recorder();
    } catch (OutOfMemoryError e) {
      // Still run the pool's tasks: a thread that does not run would leave ThreadPoolExecutor
      // short of one, and queued tasks with no one to run them.
      recorder = null;
    }
    try {
      super.run();
    } finally {
      if (recorder != null) meter.release(recorder);
      recorder = null;
    }
  }

  /** One task this thread ran (from the pool's afterExecute, on this thread). */
  void record(long arrival, long start, long end, boolean failed) {
    ThreadRecorder r = recorder;
    if (r != null) r.record(arrival, start, end, failed);
    else meter.completed(failed);
  }
}

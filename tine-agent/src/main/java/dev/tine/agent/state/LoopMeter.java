package dev.tine.agent.state;

/**
 * One event loop (a Netty {@code NioEventLoop}: one thread that selects, handles the ready
 * channels' I/O, then runs its queued tasks): how its time splits between handling I/O, running
 * tasks and the rest (idle: blocked in {@code select}, and the loop's own few instructions between
 * phases), and how many requests it handled. Written by the loop's own thread only (a single
 * writer, so a volatile {@code +=} loses nothing), read by the ticker, which keeps the readings of
 * the window's ticks.
 *
 * <p>A phase is counted when it ends: a phase longer than a tick moves its time into the window in
 * which it ended.
 */
public final class LoopMeter {
  /** The loop thread's name. */
  public final String thread;

  private volatile long ioNanos, taskNanos, requests;

  // ticker only: the readings of the last ticks (nanoTime, I/O, tasks, requests)
  private final long[][] ring;
  private int newest, filled;

  LoopMeter(String thread, int slots, long now) {
    this.thread = thread;
    ring = new long[Math.max(2, slots)][4];
    ring[0][0] = now;
    filled = 1;
  }

  /** The loop handled ready channels for {@code nanos} (its thread only). */
  public void io(long nanos) {
    ioNanos += nanos;
  }

  /** The loop ran its queued tasks for {@code nanos} (its thread only). */
  public void tasks(long nanos) {
    taskNanos += nanos;
  }

  /** A request began on the loop (its thread only). */
  public void request() {
    requests++;
  }

  /** Over the window: I/O share, task share, requests per second (ticker only). */
  record Window(double io, double tasks, double requestRate, double seconds) {}

  Window tick(long now) {
    newest = (newest + 1) % ring.length;
    long[] r = ring[newest];
    r[0] = now;
    r[1] = ioNanos;
    r[2] = taskNanos;
    r[3] = requests;
    filled = Math.min(filled + 1, ring.length);
    long[] o = ring[(newest - filled + 1 + ring.length) % ring.length];
    double span = now - o[0];
    if (span <= 0) return new Window(Double.NaN, Double.NaN, Double.NaN, 0);
    // a phase counted when it ends can reach back before the window: never more than all of it
    double io = Math.min(1, (r[1] - o[1]) / span);
    double tasks = Math.min(1 - io, (r[2] - o[2]) / span);
    return new Window(io, tasks, (r[3] - o[3]) / (span / 1e9), span / 1e9);
  }
}

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

  // ticker only: readings (nanoTime, I/O, tasks, requests), one every stride ticks, at most
  // TallyWindow.MAX_SLOTS + 1 of them whatever the window (a longer one slides in coarser steps)
  private final long[] ring;
  private final int slots, stride;
  private int newest, filled, ticks;

  /** A loop's meter whose window is {@code windowTicks} ticks, from {@code now}. */
  LoopMeter(String thread, int windowTicks, long now) {
    this.thread = thread;
    int w = Math.max(1, windowTicks);
    slots = Math.min(w, TallyWindow.MAX_SLOTS) + 1;
    stride = (w + slots - 2) / (slots - 1);
    ring = new long[slots * 4];
    ring[0] = now;
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
    long io = ioNanos, tasks = taskNanos, req = requests;
    if (++ticks % stride == 0) {
      newest = (newest + 1) % slots;
      int b = newest * 4;
      ring[b] = now;
      ring[b + 1] = io;
      ring[b + 2] = tasks;
      ring[b + 3] = req;
      filled = Math.min(filled + 1, slots);
    }
    int o = ((newest - filled + 1 + slots) % slots) * 4;
    double span = now - ring[o];
    if (span <= 0) return new Window(Double.NaN, Double.NaN, Double.NaN, 0);
    // a phase counted when it ends can reach back before the window: never more than all of it
    double ioShare = Math.min(1, (io - ring[o + 1]) / span);
    double taskShare = Math.min(1 - ioShare, (tasks - ring[o + 2]) / span);
    return new Window(ioShare, taskShare, (req - ring[o + 3]) / (span / 1e9), span / 1e9);
  }

  /** The loops' figures over the window (ticker only). */
  static void figures(LoopMeter[] ls, PoolFigures f) {
    long now = System.nanoTime();
    f.loopNames = new String[ls.length];
    f.loopIoShares = new double[ls.length];
    f.loopTaskShares = new double[ls.length];
    f.loopRequestRates = new double[ls.length];
    double io = 0, tasks = 0;
    for (int i = 0; i < ls.length; i++) {
      LoopMeter.Window w = ls[i].tick(now);
      f.loopNames[i] = ls[i].thread;
      f.loopIoShares[i] = w.io();
      f.loopTaskShares[i] = w.tasks();
      f.loopRequestRates[i] = w.requestRate();
      io += w.io();
      tasks += w.tasks();
    }
    f.loopIoShare = io / ls.length;
    f.loopTaskShare = tasks / ls.length;
    f.loopIdleShare = Math.max(0, 1 - f.loopIoShare - f.loopTaskShare);
  }

  /** A loop's meter from now, its readings over {@code config}'s window. */
  static LoopMeter of(String thread, dev.tine.agent.AgentConfig config) {
    long ticks = config.window().toNanos() / Math.max(1, config.tick().toNanos());
    return new LoopMeter(thread, (int) Math.min(ticks, Integer.MAX_VALUE), System.nanoTime());
  }

  /** {@code ls} and {@code m}. */
  static LoopMeter[] with(LoopMeter[] ls, LoopMeter m) {
    LoopMeter[] n = java.util.Arrays.copyOf(ls, ls.length + 1);
    n[ls.length] = m;
    return n;
  }
}

package dev.tine.bench.run;

/**
 * The box's parallel ceiling: the same sequential work on one thread, then on two independent
 * threads at once. {@code 2 * t1 / t2} is the best speedup two workers can reach here right now
 * (on a shared 2-vCPU box it varies from 1.2 to 1.9 minute to minute), so speedups are read
 * against it, measured in the same run.
 */
public final class Ceiling {
  private static volatile long sink;
  private final int n;

  /** Calibrates the unit of work to about {@code targetMillis} on one thread. */
  public static Ceiling calibrate(int targetMillis) {
    int n = 20;
    for (; n < 40; n++) {
      long t0 = System.nanoTime();
      sink = work(n);
      if ((System.nanoTime() - t0) / 1_000_000 >= targetMillis / 2) {
        break;
      }
    }
    return new Ceiling(n + 1);
  }

  private Ceiling(int n) {
    this.n = n;
  }

  private static long work(int n) {
    return n < 2 ? n : work(n - 1) + work(n - 2);
  }

  /** One measurement: the throughput ratio of two threads over one (1.0 .. 2.0). */
  public double measureOnce() throws InterruptedException {
    long t0 = System.nanoTime();
    sink = work(n);
    long t1 = System.nanoTime() - t0;
    Thread a = new Thread(() -> sink = work(n));
    Thread b = new Thread(() -> sink = work(n));
    long s = System.nanoTime();
    a.start();
    b.start();
    a.join();
    b.join();
    long t2 = System.nanoTime() - s;
    return 2.0 * t1 / t2;
  }
}

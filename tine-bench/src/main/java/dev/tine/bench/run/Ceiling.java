package dev.tine.bench.run;

/**
 * The box's parallel ceiling: the same sequential work on one thread, then on n independent threads
 * at once. {@code n * t1 / tn} is the best speedup n workers can reach here right now (on a shared
 * 2-vCPU box the two-thread figure varies from 1.2 to 1.9 minute to minute), so speedups are read
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

  /** One measurement at two threads: the throughput ratio of two threads over one (1.0 .. 2.0). */
  public double measureOnce() throws InterruptedException {
    return measureOnce(2);
  }

  /** One measurement: the throughput of {@code threads} threads over one (1.0 .. threads). */
  public double measureOnce(int threads) throws InterruptedException {
    long t0 = System.nanoTime();
    sink = work(n);
    long t1 = System.nanoTime() - t0;
    Thread[] ts = new Thread[threads];
    for (int i = 0; i < threads; i++) ts[i] = new Thread(() -> sink = work(n));
    long s = System.nanoTime();
    for (Thread t : ts) t.start();
    for (Thread t : ts) t.join();
    long tn = System.nanoTime() - s;
    return threads * (double) t1 / tn;
  }
}

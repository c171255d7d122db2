package dev.tine.bench.run;

import java.util.concurrent.ForkJoinPool;

/**
 * The JDK's ready-made parallel forms size their work by the common pool's parallelism, even when
 * they run inside another pool: parallel streams split into about 4 x parallelism pieces, and
 * {@code Arrays.parallelSort} sorts sequentially when it is 1 — the default on a 2-core machine
 * (available processors − 1). So the bench sets it, before the common pool exists, to the largest
 * thread count it runs (at least 2), unless the user set it.
 */
public final class CommonPool {
  public static final String PROPERTY = "java.util.concurrent.ForkJoinPool.common.parallelism";

  private CommonPool() {}

  /**
   * Asks for parallelism {@code p} unless the property is set; returns the parallelism in effect.
   */
  public static int request(int p) {
    if (System.getProperty(PROPERTY) == null) System.setProperty(PROPERTY, Integer.toString(p));
    return ForkJoinPool.getCommonPoolParallelism();
  }
}

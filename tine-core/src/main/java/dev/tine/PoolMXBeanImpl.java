package dev.tine;

import dev.tine.platform.MXBeanRegistration;
import javax.management.ObjectName;

/** Adapts a pool to {@link WorkStealingPoolMXBean}; each getter reads a fresh snapshot. */
final class PoolMXBeanImpl implements WorkStealingPoolMXBean {
  private final WorkStealingPool pool;

  PoolMXBeanImpl(WorkStealingPool pool) {
    this.pool = pool;
  }

  @Override
  public String getName() {
    return pool.name();
  }

  @Override
  public int getParallelism() {
    return pool.parallelism();
  }

  @Override
  public int getPoolSize() {
    return pool.poolSize();
  }

  @Override
  public int getSleepingWorkers() {
    return pool.sleepingWorkers();
  }

  @Override
  public long getQueuedTasks() {
    return pool.queuedTasks();
  }

  @Override
  public long getTasksExecuted() {
    return pool.stats().tasksExecuted();
  }

  @Override
  public long getForks() {
    return pool.stats().forks();
  }

  @Override
  public long getLocalPops() {
    return pool.stats().localPops();
  }

  @Override
  public long getSteals() {
    return pool.stats().steals();
  }

  @Override
  public long getFailedSteals() {
    return pool.stats().failedSteals();
  }

  @Override
  public long getJoins() {
    return pool.stats().joins();
  }

  @Override
  public long getJoinsHelped() {
    return pool.stats().joinsHelped();
  }

  @Override
  public long getJoinsBlocked() {
    return pool.stats().joinsBlocked();
  }

  @Override
  public long getParks() {
    return pool.stats().parks();
  }

  @Override
  public long getIdleMillis() {
    return pool.stats().idleNanos() / 1_000_000;
  }

  @Override
  public long getLatentForks() {
    return pool.stats().latentForks();
  }

  @Override
  public long getPromotions() {
    return pool.stats().promotions();
  }

  @Override
  public long getPromotedStolen() {
    return pool.stats().promotedStolen();
  }

  @Override
  public long getInlineJoins() {
    return pool.stats().inlineJoins();
  }

  @Override
  public String getForkMode() {
    return pool.latentForks() ? "latent" : "eager";
  }

  @Override
  public long getWorkerCpuMillis() {
    long ns = pool.stats().cpuNanos();
    return ns < 0 ? -1 : ns / 1_000_000;
  }

  @Override
  public double getStealRatio() {
    return pool.stats().stealRatio();
  }

  @Override
  public boolean isShutdown() {
    return pool.isShutdown();
  }

  @Override
  public void resetStats() {
    pool.resetStats();
  }

  /** Registers {@code pool}'s MXBean under a free name; null if JMX is unavailable. */
  static ObjectName register(WorkStealingPool pool) {
    return MXBeanRegistration.register(new PoolMXBeanImpl(pool), "WorkStealingPool", pool.name());
  }

  static void unregister(ObjectName mxBeanName) {
    MXBeanRegistration.unregister(mxBeanName);
  }
}

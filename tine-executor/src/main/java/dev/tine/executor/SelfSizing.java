package dev.tine.executor;

/**
 * The self-sizing rule, applied once per tick to the last two ticks' measurements.
 *
 * <ol>
 *   <li><b>Demand</b> (Little's law): {@code L = completions/s × mean response time} is how many
 *       tasks were in the executor, queued or running, on average. A pool of L threads would have
 *       run all of them at once. If tasks are queueing and none completed (a stall), demand is the
 *       current size plus the queue.
 *   <li><b>What the CPUs can take</b> (Goetz): {@code N = cores × U × (1 + W/C)}, with C the CPU
 *       time per task estimated from the process's CPU time and W = service − C the time a task
 *       spends blocked. CPU-bound tasks give N ≈ cores × U; tasks that mostly sleep give a large N.
 *   <li>The target is {@code min(ceil(L), ceil(N))}, clamped to [min, max].
 *   <li><b>No oscillation</b>: grow at once (queueing costs latency now), shrink only when the
 *       target has been lower for three ticks in a row, and by at most half the gap per tick;
 *       ignore changes of one thread when the dead-time ratio is below 5%.
 * </ol>
 *
 * A closed system (N clients each waiting for its answer) converges in one or two ticks: with a
 * pool that is too small L still counts every waiting client, so the first decision is already
 * about right.
 */
final class SelfSizing {
  /** Growing by one thread is skipped while less than this share of the time had work queued. */
  static final double GROW_BY_ONE_MIN_DEAD_TIME = 0.05;

  /** Ticks in a row with a lower target before the pool shrinks. */
  static final int SHRINK_AFTER_TICKS = 3;

  private final int min, max;
  private final double targetUtilization;
  private final int cores;

  /**
   * Ticks in a row whose target was below the size. Confined to the tick listener (ticks never
   * overlap).
   */
  private int lowerStreak;

  SelfSizing(int min, int max, double targetUtilization, int cores) {
    this.min = min;
    this.max = max;
    this.targetUtilization = targetUtilization;
    this.cores = cores;
  }

  /** The size to use next, given the recent measurements and the current size. */
  int decide(ExecutorSnapshot s, int current) {
    double demand;
    if (s.completed() == 0) {
      demand = s.queueLength() > 0 ? current + s.queueLength() : current;
    } else {
      demand = s.littlesL();
    }
    double cpuCap = Double.POSITIVE_INFINITY;
    double c = s.cpuPerTaskMs();
    if (!Double.isNaN(c) && c > 0) {
      double w = Math.max(0, s.avgServiceMs() - c);
      cpuCap = cores * targetUtilization * (1 + w / c);
    }
    int target = (int) Math.ceil(Math.min(demand, cpuCap) - 1e-9);
    target = Math.max(min, Math.min(max, Math.max(1, target)));
    if (target > current) {
      lowerStreak = 0;
      if (target == current + 1 && s.deadTimeRatio() < GROW_BY_ONE_MIN_DEAD_TIME) {
        return current; // one more thread would not remove any measurable queueing
      }
      return target;
    }
    if (target < current) {
      if (++lowerStreak < SHRINK_AFTER_TICKS) {
        return current;
      }
      return Math.max(target, current - Math.max(1, (current - target) / 2));
    }
    lowerStreak = 0;
    return current;
  }
}

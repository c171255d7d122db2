package dev.tine;

/**
 * When a worker promotes work for others: the policy of promotion, and nothing of its mechanics
 * (those are {@link LatentJoins}'s, which asks {@link #toPromote} how much). Owner-only code: every
 * method takes the worker it runs on.
 *
 * <p>A worker whose deque is empty promotes work ({@link #shouldPromote}): at a fork or a join, at
 * parallelism above 1 ({@code Worker.promoteIntoEmptyDeque}), it promotes its oldest latent fork,
 * or the older half of them while some worker is hungry ({@code WorkStealingPool.hungry}); see
 * {@link #toPromote}. Only when the deque is empty: a thief takes what is there first, which bounds
 * promotions by steals. The reasons and the measurements are in {@code
 * docs/design/latent-forks.md}.
 */
final class Promotion {
  private Promotion() {}

  /**
   * Whether to promote (or split) work now: someone is hungry and our deque, which thieves take
   * first, is empty. The one check behind {@link Tine#poll}, lazy loop splitting and promotion at
   * joins.
   */
  static boolean shouldPromote(Worker w) {
    return w.pool.hungry != 0 && w.deque.size() == 0;
  }

  /**
   * How many latent forks to promote into our empty deque: the oldest, or, if someone is hungry,
   * the older half of them (a thief that finishes a promoted piece then finds the next one at once;
   * measured on Micro's flat fan-out: Tine/JDK 1.19 promoting one, see the design note).
   */
  static int toPromote(Worker w) {
    return w.pool.hungry != 0 ? Math.max(1, w.latent.size() / 2) : 1;
  }

  static void countPromotion(Worker w) {
    if (w.recordStats) w.counters.promotions++;
  }
}

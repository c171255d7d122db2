package dev.tine;

/**
 * Latent forks leaving the latent stack: promotion to the owner's deque, where thieves can take
 * them, and a primitive join taking its own entry back (reclaim). Owner-only code: every method
 * takes the worker it runs on.
 *
 * <p><b>When.</b> A worker whose deque is empty offers work ({@link #shouldOffer}): at a fork or a
 * join, at parallelism above 1 ({@code Worker.stockDeque}), it promotes its oldest latent fork, or
 * the older half of them while some worker is hungry ({@code WorkStealingPool.hungry}). Only when
 * the deque is empty: a thief takes what is there first, which bounds promotions by steals. The
 * reasons and the measurements are in {@code docs/design/latent-forks.md}.
 *
 * <p><b>Invariants.</b>
 *
 * <ol>
 *   <li>Oldest first: the deque keeps age order, and the oldest fork is the biggest piece of a
 *       divide-and-conquer tree.
 *   <li>A promotion allocates first (a primitive join's {@link Jobs.Job}), then commits the latent
 *       stack, then holds the task in {@code Worker.inHand} until the deque push returned: an error
 *       at any call leaves the task either latent or in hand, never nowhere.
 *   <li>A promoted primitive-join entry leaves its job in its slot; the joiner finds it there
 *       ({@link #reclaim}) and joins the job instead of calling the function.
 * </ol>
 */
final class Promotion {
  private Promotion() {}

  /**
   * Whether to offer work now: someone is hungry and our deque, which thieves take first, is empty.
   * The one check behind {@link Tine#poll}, lazy loop splitting and promotion at joins.
   */
  static boolean shouldOffer(Worker w) {
    return w.pool.hungry != 0 && w.deque.size() == 0;
  }

  /** Promotes latent forks (see {@link #tryPromote}); an overflow cuts it short harmlessly. */
  static void offer(Worker w) {
    try {
      tryPromote(w);
    } catch (StackOverflowError e) {
      // optional work: the latent forks stay ours (see the class comment)
    }
  }

  /**
   * Our deque is empty: stock it with the oldest latent fork, or, if someone is hungry, with the
   * older half of them (a thief that finishes a promoted piece then finds the next one at once;
   * measured on Micro's flat fan-out: Tine/JDK 1.19 promoting one, see the design note). Only when
   * the deque is empty: a thief takes what is there first, which bounds promotions by steals.
   */
  static void tryPromote(Worker w) {
    int n = w.pool.hungry != 0 ? Math.max(1, w.latent.size() / 2) : 1;
    for (int i = 0; i < n && promoteOldest(w); i++) {
      // oldest first keeps the deque in age order
    }
  }

  /**
   * Promotes every latent fork: before blocking, so that others can run them meanwhile. A task an
   * earlier error left in hand is published first (otherwise no promotion happens).
   */
  static void publishAll(Worker w) {
    Task<?> h = w.inHand;
    if (h != null && h.markPromoted()) {
      int before = w.deque.push(h);
      w.inHand = null;
      w.signalIfFirst(before);
    } else if (h != null) {
      w.inHand = null; // already complete: nothing to run
    }
    while (promoteOldest(w)) {
      // oldest first
    }
  }

  /**
   * Moves the oldest latent entry to the deque: a task as itself, a primitive join's second half as
   * a {@link Jobs.Job} that its joiner will find in the entry's slot. Oldest first, because in
   * divide-and-conquer code the oldest fork is the biggest piece (Lea's FIFO steals, for the same
   * reason).
   *
   * @return false if there was nothing to promote
   */
  static boolean promoteOldest(Worker w) {
    for (; ; ) {
      if (w.inHand != null) {
        return false; // an earlier promotion was cut short: that task runs first
      }
      int b = w.latent.oldest();
      if (b < 0) {
        return false;
      }
      int kind = w.latent.kind(b);
      Task<?> t =
          kind == LatentStack.KIND_TASK
              ? (Task<?>) w.latent.item(b)
              : new Jobs.Job(w.latent.item(b), w.latent.arg(b), kind); // allocate before any change
      w.latent.commitOldest(b, kind == LatentStack.KIND_TASK ? null : t);
      w.inHand = t; // no call since the commit: from here on the task cannot be lost
      if (!t.markPromoted()) {
        w.inHand = null;
        continue; // cancelled by its owner while latent: nothing to run
      }
      int before = w.deque.push(t);
      w.inHand = null; // the deque has it
      if (w.recordStats) w.counters.promotions++;
      w.signalIfFirst(before);
      return true;
    }
  }

  /** Inside {@link Task#execLatent}: take the newest latent task off, and restock the deque. */
  static void takeLatentTop(Worker w) {
    w.latent.dropPeekedTask(); // awaitJoin peeked it; no blocking since
    if (w.stockDeque && w.deque.size() == 0 && w.latent.sizeChecked() > 0) {
      offer(w); // joins, like forks, are where a worker restocks its deque
    }
  }

  /** Records the latent second half of a primitive join; returns its slot. */
  static int forkFunction(Worker w, Object fn, long arg, int kind) {
    int slot = w.latent.pushFunction(fn, arg, kind); // not counted: see PoolStats
    if (w.stockDeque && w.deque.size() == 0) {
      offer(w);
    }
    return slot;
  }

  /**
   * The slow way back to slot's entry: run the forks the first half left behind (forked, never
   * joined), then either the entry is latent (returns null: the caller runs it inline) or it was
   * promoted or claimed, and its job task is returned for the caller to join.
   */
  static Jobs.Job reclaim(Worker w, int slot) {
    Task<?> h = w.inHand;
    if (h != null) {
      w.runTask(h); // left in hand by an error: it runs before anything else
    }
    while (w.latent.top() > slot + 1) {
      Object x = w.latent.popTask();
      if (x == null) {
        break; // a dead primitive-join entry above ours (its join was cut short): dropped below
      }
      Task<?> t = (Task<?>) x;
      w.inHand = t; // no call since the pop
      w.runTask(t);
    }
    if (w.latent.isLatent(slot)) {
      w.latent.truncate(slot);
      return null;
    }
    Object x = w.latent.item(slot);
    if (!(x instanceof Jobs.Job job)) {
      throw new IllegalStateException("w.latent slot " + slot + " holds " + x + ", not its job");
    }
    w.latent.truncate(slot);
    return job;
  }

  /** Eager mode's primitive join: the second half as a task on the deque. */
  static Jobs.Job forkJobEagerly(Worker w, Object fn, long arg, int kind) {
    Jobs.Job job = new Jobs.Job(fn, arg, kind);
    w.push(job); // counted as a fork
    return job;
  }

  static void countPromotion(Worker w) {
    if (w.recordStats) w.counters.promotions++;
  }
}

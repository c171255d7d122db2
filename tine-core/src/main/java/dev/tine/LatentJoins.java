package dev.tine;

import java.lang.invoke.VarHandle;
import java.util.function.BiFunction;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntToLongFunction;
import java.util.function.LongBinaryOperator;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The slow paths of every join, {@link Scope}'s and {@link Tine}'s alike: the fork that the fast
 * push could not record (and the promotion it may make), the join that finds its second half gone
 * (take back), the join whose first half threw, and an eager pool's joins. The join methods
 * themselves stay in {@code Scope} and {@code Tine}, small and with one call site per half (see
 * Scope's class comment); everything they do not do inline is here. A join whose pop fails (its
 * second half was promoted or claimed, or the first half left unjoined forks above it) leaves
 * through one call that returns the join's value ({@code joinSlow}, one per shape: it runs those
 * forks and takes the slot back, then joins the job or, the half still latent, calls {@code g},
 * then combines), so that a JVM which has seen promotions compiles that one call into the fast
 * path, not the take-back, the job's join and a second combine (the latent-forks note has the
 * measurements), and its calls go down: into the {@link LatentStack}, the deque and a {@link
 * PromotedJob} (none of them calls back here); the policy of when and how much to promote ({@link
 * #shouldPromote}, {@link #toPromote}) is here too. Two ways lead back in: running a task (a
 * take-back runs what was left in hand; a join waits, helping) re-enters user code, and so perhaps
 * this file; and waiting for a handed-off half ({@code job.join()} → {@code Task.join} → {@code
 * HelpingJoin}, or {@code Compensation} before blocking) calls {@link #promoteAll} first, which
 * only moves entries to the deque and cannot reach the join that waits. Owner-only code: every
 * method runs on the worker that owns the scope. A scope's slow paths check the owner ({@link
 * #checkOwner}) before they change anything ({@link #forkSlow} as its first act, so an escaped
 * scope's join that comes this way records nothing); a push that succeeds without promoting into
 * the deque does not look (Scope's class comment says what that leaves uncaught), and the first
 * half throwing on another thread reports that exception without touching the stack.
 *
 * <p><b>A trip.</b> {@code pool.invoke(s -> s.joinLong(f, 1, g, 2, Long::sum))} on a pool whose
 * other worker is hungry: {@code Scope.joinLong}'s fast push finds no function in the slot, so
 * {@link #forkSlow} records the half ({@link LatentStack#tryPushNewFunction}) and, the deque being
 * empty, {@link #offer}s it: {@link LatentStack#takeOldest} makes it a {@link PromotedJob} and
 * leaves the job in the slot, the deque push publishes it, and a thief runs it. When {@code f}
 * returns, {@code tryPopFunction} fails, and the join returns {@code joinSlow}, whose {@link
 * #takeBack} takes the slot back ({@link LatentStack#takeBack}) and finds the job, which it joins,
 * waiting and helping, before it combines.
 *
 * <p><b>Errors inside.</b> A {@link StackOverflowError} can strike at any call. A promotion
 * therefore takes the entry off the stack with one call whose commit is its last act and stores the
 * task in {@code Worker.inHand} right after it returns (the rule in {@link Worker}'s class
 * comment): see {@link #promoteOldest}. A promotion that an error cuts short leaves the fork latent
 * or in hand, never nowhere; a take-back runs what is in hand first.
 */
final class LatentJoins {
  private LatentJoins() {}

  // ---------------------------------------------------------------------------------------------
  // Fork

  /**
   * The fast push failed ({@code slot < 0}: nothing recorded yet; the slot held another function,
   * or the stack needs {@link LatentStack}'s slow path), or the deque is empty and a fork should be
   * promoted into it ({@code slot >= 0}: recorded). Returns the entry's slot.
   */
  static int forkSlow(Scope s, int slot, Object g, long arg, int kind) {
    checkOwner(s); // before anything is recorded: an escaped scope's join changes nothing
    if (slot < 0) {
      Object item = itemFor(s, g); // may allocate: before any store
      slot = s.tryPushNewFunction(item, arg, kind);
      if (slot < 0) {
        slot = s.pushFunction(item, arg, kind); // counted there, as every function push
      }
      if (s.dequeEmptied == 0) {
        return slot;
      }
    }
    stock(s.worker);
    return slot;
  }

  /**
   * The deque may have been emptied ({@link LatentStack#dequeEmptied}): if it is empty, promote
   * into it; then clear the word only if the deque is seen non-empty after the clear. The fence
   * orders the clear before the deque read, and a thief stores 1 after its steal's CAS, so a steal
   * this read misses sets the word again: an empty deque is never left with the word 0. With
   * nothing to promote the word stays set, and the next fork promotes that fork. Optional work, as
   * {@link #promoteSome}: an overflow inside leaves the word set (a plain store in the handler) and
   * the forks latent, and the next fork or join tries again.
   */
  static void stock(Worker w) {
    try {
      if (w.deque.size() == 0) {
        promoteSome(w);
      }
      if (w.deque.size() != 0) {
        w.latent.dequeEmptied = 0;
        VarHandle.fullFence();
        if (w.deque.size() == 0) {
          w.latent.dequeEmptied = 1;
        }
      }
    } catch (StackOverflowError e) {
      w.latent.dequeEmptied = 1; // not known to be stocked: look again next time
    }
  }

  /**
   * What to store for function {@code g}: {@code g} itself, or a wrapper if {@code g} implements
   * more than one of the functional interfaces that joins record. The fast push matches the raw
   * function and trusts the kind stored with it, so an object that could be pushed with two kinds
   * must never sit in a slot raw (see {@link LatentStack#tryPushFunction}). Throws {@code
   * NullPointerException} for a null {@code g}, before anything is recorded.
   */
  private static Object itemFor(Scope s, Object g) {
    Class<?> c = g.getClass(); // a null g throws here, before anything is recorded
    if (c == s.singleKindClass) {
      return g; // the common case: one class at a join site (a closure's, a method reference's)
    }
    if (JoinKinds.SINGLE_KIND.get(c)) {
      s.singleKindClass = c;
      return g;
    }
    return new JoinKinds.Ambiguous(g);
  }

  // ---------------------------------------------------------------------------------------------
  // Promotion: the policy (when, how many) and the mechanics

  /**
   * Whether to promote (or split) work now: someone is hungry and our deque, which thieves take
   * first, is empty. The one check behind {@link Tine#poll} and lazy loop splitting ({@code
   * Ranges}). Only when the deque is empty: a thief takes what is there first, which bounds
   * promotions by steals (the latent-forks design note has the reasons and the measurements).
   */
  static boolean shouldPromote(Worker w) {
    return w.pool.hungry != 0 && w.deque.size() == 0;
  }

  /**
   * How many latent forks to promote into our empty deque: the oldest, or, if someone is hungry
   * ({@code WorkStealingPool.hungry}), every one but the newest. A worker in a long leaf (Micro's
   * depth-2 searches, MM's blocks) promotes again only at its next fork or join, so what it leaves
   * latent meanwhile is hidden from every idle worker: promoting one cost Micro 1.19x the JDK at
   * p=2, and the older half still 1.46-1.78x at 8 and 16 workers of a 16-core machine, where all of
   * them gave 0.87-1.17x (see the design note, "Promotion at 16 workers"). The newest stays: it is
   * the fork just made or the half just recorded, which its owner joins first, inline, and {@code
   * tryUnfork} takes back (with every one promoted a hungry thief could take it, and {@code
   * PortingApiTest}'s take-back at p=2 failed in one of two full runs). A lone entry is promoted
   * all the same.
   */
  static int toPromote(Worker w) {
    return w.pool.hungry != 0 ? Math.max(1, w.latent.size() - 1) : 1;
  }

  static void countPromotion(Worker w) {
    if (w.recordStats) w.counters.promotions++;
  }

  /**
   * Promotes into our empty deque as many latent forks as {@link #toPromote} says, oldest first,
   * and after the first never the newest (the count is of slots, and a cancelled fork is skipped
   * without being counted); an overflow anywhere in it (the count included) cuts it short
   * harmlessly: the latent forks stay ours.
   */
  static void promoteSome(Worker w) {
    try {
      for (int i = 0, n = toPromote(w); i < n && promoteOldest(w, i > 0); i++) {
        // oldest first keeps the deque in age order
      }
    } catch (StackOverflowError e) {
      // optional work: the latent forks stay ours
    }
  }

  /**
   * Inside {@link Task#execLatent}: take the newest latent task off, and promote into an empty
   * deque.
   */
  static void takeLatentTop(Worker w) {
    w.latent.dropPeekedTask(); // awaitJoin peeked it; no blocking since
    if (w.latent.dequeEmptied != 0 && w.latent.sizeChecked() > 0) {
      stock(w); // joins, like forks, are where a worker promotes into its empty deque
    }
  }

  /**
   * Promotes every latent fork: before blocking, so that others can run them meanwhile. A task an
   * earlier error left in hand is promoted first (otherwise no promotion happens).
   */
  static void promoteAll(Worker w) {
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
   * Moves the oldest latent entry to the deque: a task as itself, a join's second half as a {@link
   * PromotedJob} that its joiner will find in the entry's slot. Oldest first, because in
   * divide-and-conquer code the oldest fork is the biggest piece (Lea's FIFO steals, for the same
   * reason).
   *
   * @return false if there was nothing to promote
   */
  static boolean promoteOldest(Worker w) {
    return promoteOldest(w, false);
  }

  /** {@link #promoteOldest}, leaving the newest entry latent if {@code keepNewest}. */
  static boolean promoteOldest(Worker w, boolean keepNewest) {
    for (; ; ) {
      if (w.inHand != null) {
        return false; // an earlier promotion was cut short: that task runs first
      }
      if (keepNewest && w.latent.size() <= 1) {
        return false;
      }
      Object x = w.latent.takeOldest(PromotedJob.PROMOTER);
      if (x == null) {
        return false;
      }
      // Worker's rule: takeOldest's commit is its last act, and only its return separates that
      // commit from this store (a null test and a checkcast are not calls). An overflow before the
      // commit leaves the entry latent; from this store on, the task is in hand.
      Task<?> t = (Task<?>) x;
      w.inHand = t;
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

  // ---------------------------------------------------------------------------------------------
  // Join

  /**
   * The second half is not the newest latent entry: it was promoted or claimed (or a join was cut
   * short). Runs the forks the first half left behind (forked, never joined), then either the entry
   * is still latent (returns null: the caller runs it inline) or it left, and the job that carries
   * it is returned for the caller to join.
   */
  static PromotedJob takeBack(Scope s, int slot) {
    checkOwner(s);
    PromotedJob job = takeBackUnchecked(s, slot);
    if (job != null) {
      s.functionForksNotTakenBack++; // joined as a task, which counts itself
    }
    return job;
  }

  private static PromotedJob takeBackUnchecked(Scope s, int slot) {
    Worker w = s.worker;
    Task<?> h = w.inHand;
    if (h != null) {
      w.runTask(h); // left in hand by an error: it runs before anything else
    }
    for (Object x; (x = s.popTaskAbove(slot)) != null; ) {
      w.inHand = (Task<?>) x; // no call since the pop
      HelpingJoin.runOwn(w, w.inHand); // an overflowed run's leftovers fail, not run (runOwn)
    }
    Object x = s.takeBack(slot);
    if (x == LatentStack.STILL_LATENT) {
      return null;
    }
    if (x instanceof PromotedJob job) {
      return job;
    }
    throw new IllegalStateException(
        "a join could not find its second half: it was neither waiting where the join left it nor"
            + " handed to another worker (found "
            + x
            + "). This is a bug in Tine; please report it with this stack trace.");
  }

  /**
   * The first half threw: drop the second half if it is still latent, else wait for it quietly, so
   * that the first half's exception is the one that propagates (the caller rethrows it).
   */
  static void firstHalfThrew(Scope s, int slot) {
    if (Thread.currentThread() != s.worker) {
      return; // an escaped scope: the first half's exception is the one to report
    }
    if (slot == LatentStack.NOT_RECORDED) {
      return; // nothing recorded or counted: the second half is dropped with the join's frame
    }
    s.functionForksNotTakenBack++; // dropped or waited for quietly: not joined
    PromotedJob job = takeBackUnchecked(s, slot);
    if (job != null) {
      firstHalfThrew(job);
    }
  }

  /** The first half threw and the second is a job: wait for it quietly (an eager join's case). */
  static void firstHalfThrew(PromotedJob job) {
    try {
      job.join();
    } catch (Throwable ignored) {
      // the first half's exception is the one reported
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Eager pools (eagerForks(true)): the second half on the deque at once

  /** The second half as a task on the deque, counted as a fork. */
  static PromotedJob forkEagerly(Worker w, Object g, long arg, int kind) {
    PromotedJob job = new PromotedJob(g, arg, kind);
    w.push(job);
    return job;
  }

  /** Throws if a scope is used from a thread that is not its worker. */
  static void checkOwner(Scope s) {
    if (Thread.currentThread() != s.worker) {
      throw new IllegalStateException(
          "a Scope was used from thread "
              + Thread.currentThread().getName()
              + ", but it belongs to worker "
              + s.worker.getName()
              + ": use the scope passed to the running function; never store one or hand it to"
              + " another thread");
    }
  }

  // The eager twins of every join shape, kept out of the join methods, which stay small for the
  // JIT (see Scope's class comment). Each forks its second half as a job, runs the first, and
  // joins.

  // spotless:off
  // GENERATED by JoinShapes
  // DO NOT EDIT: written from the join-shape table in tine-core/src/test/java/dev/tine/JoinShapes.java.
  // Regenerate: ./mvnw -B -ntp -pl tine-core test -Dtest=JoinShapesTest -Dtine.regenerate=true

  static long joinEagerly(
      Worker w,
      IntToLongFunction f,
      int a,
      IntToLongFunction g,
      int b,
      LongBinaryOperator combine) {
    PromotedJob job = forkEagerly(w, g, b, JoinKinds.INT_TO_LONG);
    long ra;
    try {
      ra = f.applyAsLong(a);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.applyAsLong(ra, job.joinLong());
  }

  static long joinEagerly(Worker w, LongSupplier a, LongSupplier b, LongBinaryOperator combine) {
    PromotedJob job = forkEagerly(w, b, 0L, JoinKinds.TO_LONG);
    long ra;
    try {
      ra = a.getAsLong();
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.applyAsLong(ra, job.joinLong());
  }

  @SuppressWarnings("unchecked")
  static <A, B, R> R joinEagerly(
      Worker w,
      Supplier<? extends A> a,
      Supplier<? extends B> b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    PromotedJob job = forkEagerly(w, b, 0L, JoinKinds.TO_OBJECT);
    A ra;
    try {
      ra = a.get();
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.apply(ra, (B) job.join());
  }

  static void joinEagerly(Worker w, Runnable a, Runnable b) {
    PromotedJob job = forkEagerly(w, b, 0L, JoinKinds.TO_VOID);
    try {
      a.run();
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    job.join();
  }

  static long joinEagerly(
      Scope s, Scope.IntToLong f, int a, Scope.IntToLong g, int b, LongBinaryOperator combine) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, g, b, JoinKinds.SCOPE_INT_TO_LONG);
    long ra;
    try {
      ra = f.apply(s, a);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.applyAsLong(ra, job.joinLong());
  }

  static double joinEagerly(
      Scope s,
      Scope.IntToDouble f,
      int a,
      Scope.IntToDouble g,
      int b,
      DoubleBinaryOperator combine) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, g, b, JoinKinds.SCOPE_INT_TO_DOUBLE);
    double ra;
    try {
      ra = f.apply(s, a);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.applyAsDouble(ra, job.joinDouble());
  }

  @SuppressWarnings("unchecked")
  static <A, B, R> R joinEagerly(
      Scope s,
      Scope.IntTo<? extends A> f,
      int a,
      Scope.IntTo<? extends B> g,
      int b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, g, b, JoinKinds.SCOPE_INT_TO_OBJECT);
    A ra;
    try {
      ra = f.apply(s, a);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.apply(ra, (B) job.join());
  }

  static long joinEagerly(
      Scope s, Scope.LongToLong f, long a, Scope.LongToLong g, long b, LongBinaryOperator combine) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, g, b, JoinKinds.SCOPE_LONG_TO_LONG);
    long ra;
    try {
      ra = f.apply(s, a);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.applyAsLong(ra, job.joinLong());
  }

  static double joinEagerly(
      Scope s,
      Scope.LongToDouble f,
      long a,
      Scope.LongToDouble g,
      long b,
      DoubleBinaryOperator combine) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, g, b, JoinKinds.SCOPE_LONG_TO_DOUBLE);
    double ra;
    try {
      ra = f.apply(s, a);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.applyAsDouble(ra, job.joinDouble());
  }

  @SuppressWarnings("unchecked")
  static <A, B, R> R joinEagerly(
      Scope s,
      Scope.LongTo<? extends A> f,
      long a,
      Scope.LongTo<? extends B> g,
      long b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, g, b, JoinKinds.SCOPE_LONG_TO_OBJECT);
    A ra;
    try {
      ra = f.apply(s, a);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.apply(ra, (B) job.join());
  }

  static long joinEagerly(
      Scope s,
      Scope.RangeToLong f,
      int aLo,
      int aHi,
      Scope.RangeToLong g,
      int bLo,
      int bHi,
      LongBinaryOperator combine) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, g, Scope.range(bLo, bHi), JoinKinds.SCOPE_RANGE_TO_LONG);
    long ra;
    try {
      ra = f.apply(s, aLo, aHi);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.applyAsLong(ra, job.joinLong());
  }

  static double joinEagerly(
      Scope s,
      Scope.RangeToDouble f,
      int aLo,
      int aHi,
      Scope.RangeToDouble g,
      int bLo,
      int bHi,
      DoubleBinaryOperator combine) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, g, Scope.range(bLo, bHi), JoinKinds.SCOPE_RANGE_TO_DOUBLE);
    double ra;
    try {
      ra = f.apply(s, aLo, aHi);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.applyAsDouble(ra, job.joinDouble());
  }

  @SuppressWarnings("unchecked")
  static <A, B, R> R joinEagerly(
      Scope s,
      Scope.RangeTo<? extends A> f,
      int aLo,
      int aHi,
      Scope.RangeTo<? extends B> g,
      int bLo,
      int bHi,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, g, Scope.range(bLo, bHi), JoinKinds.SCOPE_RANGE_TO_OBJECT);
    A ra;
    try {
      ra = f.apply(s, aLo, aHi);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.apply(ra, (B) job.join());
  }

  static void joinEagerly(
      Scope s, Scope.RangeAction f, int aLo, int aHi, Scope.RangeAction g, int bLo, int bHi) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, g, Scope.range(bLo, bHi), JoinKinds.SCOPE_RANGE_TO_VOID);
    try {
      f.run(s, aLo, aHi);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    job.join();
  }

  static long joinEagerly(Scope s, Scope.ToLong a, Scope.ToLong b, LongBinaryOperator combine) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, b, 0L, JoinKinds.SCOPE_TO_LONG);
    long ra;
    try {
      ra = a.apply(s);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.applyAsLong(ra, job.joinLong());
  }

  static double joinEagerly(
      Scope s, Scope.ToDouble a, Scope.ToDouble b, DoubleBinaryOperator combine) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, b, 0L, JoinKinds.SCOPE_TO_DOUBLE);
    double ra;
    try {
      ra = a.apply(s);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.applyAsDouble(ra, job.joinDouble());
  }

  @SuppressWarnings("unchecked")
  static <A, B, R> R joinEagerly(
      Scope s,
      Scope.To<? extends A> a,
      Scope.To<? extends B> b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    checkOwner(s);
    PromotedJob job = forkEagerly(s.worker, b, 0L, JoinKinds.SCOPE_TO_OBJECT);
    A ra;
    try {
      ra = a.apply(s);
    } catch (Throwable e) {
      firstHalfThrew(job);
      throw e;
    }
    return combine.apply(ra, (B) job.join());
  }

  /** {@code INT_TO_LONG}: the join's slow path, when its pop fails (see the class comment). */
  static long joinSlow(
      Scope s, int slot, long ra, IntToLongFunction g, int b, LongBinaryOperator combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.applyAsLong(ra, job != null ? job.joinLong() : g.applyAsLong(b));
  }

  /** {@code TO_LONG}: the join's slow path, when its pop fails (see the class comment). */
  static long joinSlow(Scope s, int slot, long ra, LongSupplier b, LongBinaryOperator combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.applyAsLong(ra, job != null ? job.joinLong() : b.getAsLong());
  }

  /** {@code TO_OBJECT}: the join's slow path, when its pop fails (see the class comment). */
  @SuppressWarnings("unchecked")
  static <A, B, R> R joinSlow(
      Scope s,
      int slot,
      A ra,
      Supplier<? extends B> b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.apply(ra, job != null ? (B) job.join() : b.get());
  }

  /** {@code TO_VOID}: the join's slow path, when its pop fails (see the class comment). */
  static void joinSlow(Scope s, int slot, Runnable b) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    if (job != null) {
      job.join();
    } else {
      b.run();
    }
  }

  /** {@code SCOPE_INT_TO_LONG}: the join's slow path, when its pop fails (see the class comment). */
  static long joinSlow(
      Scope s, int slot, long ra, Scope.IntToLong g, int b, LongBinaryOperator combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.applyAsLong(ra, job != null ? job.joinLong() : g.apply(s, b));
  }

  /** {@code SCOPE_INT_TO_DOUBLE}: the join's slow path, when its pop fails (see the class comment). */
  static double joinSlow(
      Scope s, int slot, double ra, Scope.IntToDouble g, int b, DoubleBinaryOperator combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.applyAsDouble(ra, job != null ? job.joinDouble() : g.apply(s, b));
  }

  /** {@code SCOPE_INT_TO_OBJECT}: the join's slow path, when its pop fails (see the class comment). */
  @SuppressWarnings("unchecked")
  static <A, B, R> R joinSlow(
      Scope s,
      int slot,
      A ra,
      Scope.IntTo<? extends B> g,
      int b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.apply(ra, job != null ? (B) job.join() : g.apply(s, b));
  }

  /** {@code SCOPE_LONG_TO_LONG}: the join's slow path, when its pop fails (see the class comment). */
  static long joinSlow(
      Scope s, int slot, long ra, Scope.LongToLong g, long b, LongBinaryOperator combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.applyAsLong(ra, job != null ? job.joinLong() : g.apply(s, b));
  }

  /** {@code SCOPE_LONG_TO_DOUBLE}: the join's slow path, when its pop fails (see the class comment). */
  static double joinSlow(
      Scope s, int slot, double ra, Scope.LongToDouble g, long b, DoubleBinaryOperator combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.applyAsDouble(ra, job != null ? job.joinDouble() : g.apply(s, b));
  }

  /** {@code SCOPE_LONG_TO_OBJECT}: the join's slow path, when its pop fails (see the class comment). */
  @SuppressWarnings("unchecked")
  static <A, B, R> R joinSlow(
      Scope s,
      int slot,
      A ra,
      Scope.LongTo<? extends B> g,
      long b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.apply(ra, job != null ? (B) job.join() : g.apply(s, b));
  }

  /** {@code SCOPE_RANGE_TO_LONG}: the join's slow path, when its pop fails (see the class comment). */
  static long joinSlow(
      Scope s,
      int slot,
      long ra,
      Scope.RangeToLong g,
      int bLo,
      int bHi,
      LongBinaryOperator combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.applyAsLong(ra, job != null ? job.joinLong() : g.apply(s, bLo, bHi));
  }

  /** {@code SCOPE_RANGE_TO_DOUBLE}: the join's slow path, when its pop fails (see the class comment). */
  static double joinSlow(
      Scope s,
      int slot,
      double ra,
      Scope.RangeToDouble g,
      int bLo,
      int bHi,
      DoubleBinaryOperator combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.applyAsDouble(ra, job != null ? job.joinDouble() : g.apply(s, bLo, bHi));
  }

  /** {@code SCOPE_RANGE_TO_OBJECT}: the join's slow path, when its pop fails (see the class comment). */
  @SuppressWarnings("unchecked")
  static <A, B, R> R joinSlow(
      Scope s,
      int slot,
      A ra,
      Scope.RangeTo<? extends B> g,
      int bLo,
      int bHi,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.apply(ra, job != null ? (B) job.join() : g.apply(s, bLo, bHi));
  }

  /** {@code SCOPE_RANGE_TO_VOID}: the join's slow path, when its pop fails (see the class comment). */
  static void joinSlow(Scope s, int slot, Scope.RangeAction g, int bLo, int bHi) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    if (job != null) {
      job.join();
    } else {
      g.run(s, bLo, bHi);
    }
  }

  /** {@code SCOPE_TO_LONG}: the join's slow path, when its pop fails (see the class comment). */
  static long joinSlow(Scope s, int slot, long ra, Scope.ToLong b, LongBinaryOperator combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.applyAsLong(ra, job != null ? job.joinLong() : b.apply(s));
  }

  /** {@code SCOPE_TO_DOUBLE}: the join's slow path, when its pop fails (see the class comment). */
  static double joinSlow(
      Scope s, int slot, double ra, Scope.ToDouble b, DoubleBinaryOperator combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.applyAsDouble(ra, job != null ? job.joinDouble() : b.apply(s));
  }

  /** {@code SCOPE_TO_OBJECT}: the join's slow path, when its pop fails (see the class comment). */
  @SuppressWarnings("unchecked")
  static <A, B, R> R joinSlow(
      Scope s,
      int slot,
      A ra,
      Scope.To<? extends B> b,
      BiFunction<? super A, ? super B, ? extends R> combine) {
    PromotedJob job = takeBack(s, slot); // null: taken back unstarted
    return combine.apply(ra, job != null ? (B) job.join() : b.apply(s));
  }
  // END GENERATED by JoinShapes
  // spotless:on
}

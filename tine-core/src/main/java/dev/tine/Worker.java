package dev.tine;

import dev.tine.deque.WorkDeque;
import dev.tine.latent.LatentStack;
import dev.tine.stats.WorkerCounters;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A pool worker: a thread that owns one {@link WorkDeque} and one {@link LatentStack}. See {@link
 * WorkStealingPool} for the overview; this file holds the worker's side of the protocols.
 *
 * <p><b>Run loop.</b> Run own pending work (newest first); else scan: the pool's external queue,
 * then the other workers' deques from a random start (FIFO steals), then the latent forks of
 * workers blocked outside Tine (claims, see {@link LatentStack}); else go idle. Between top-level
 * tasks the thread's interrupt status is cleared, as the JDK's pool does.
 *
 * <p><b>Join.</b> (1) Pop and run own pending forks until the target is done or none is left.
 * Forks newer than the target are popped first; because thieves take the oldest first, once own
 * work is exhausted the target is stolen or was never ours. (2) Help: steal from the target's
 * thief, following the chain of thieves (the thief may itself be joining a task stolen by
 * another), so that the work we run is a descendant of the target (Lea's helping; Wagner and
 * Calder's leapfrogging). If the target was never stolen (forked elsewhere, or submitted from
 * outside) there is no chain, so we scan the whole pool instead. (3) Spin, then yield, then block
 * on the task with a short timed wait, and help again when it expires. At parallelism 1 step (1)
 * or the scan in step (2) always finds the target, so nested joins cannot deadlock.
 *
 * <p><b>Idle.</b> Spin (rescanning), then yield (rescanning), then sleep: register as sleeping,
 * rescan everything, and park only if the rescan found nothing. See {@link #sleep}.
 *
 * <p><b>Errors inside the runtime.</b> A {@link StackOverflowError} can strike at any call the
 * runtime makes, deep in a user's recursion. Three rules keep every task accounted for:
 *
 * <ol>
 *   <li>The deque and the latent stack change state only in call-free commits (see their notes).
 *   <li>A task taken from any queue is held in {@link #inHand} (a plain store right after the
 *       taking call returns) until its {@code doExec} is entered; {@link #popOwn} returns it
 *       first. A promotion commits the latent stack, holds the task in hand, and lets go only
 *       after the deque push returned: an overflow in between leaves it for us to run.
 *   <li>A task whose completion itself overflows is recorded in {@link #pendingTasks} and
 *       completed from a shallower frame: the next handler up, a join's slow path, or the run
 *       loop ({@link #completePending}).
 * </ol>
 *
 * Optional work (promotions, wake-ups, counters) that an overflow cuts short is just skipped.
 */
final class Worker extends Thread {
  /** Idle rounds of rescanning with onSpinWait pauses before yielding. */
  static final int SPIN_ROUNDS = 64;

  /** onSpinWait pauses per spin round. */
  static final int SPIN_PAUSES = 32;

  /** Idle rounds of rescanning with Thread.yield() before sleeping. */
  static final int YIELD_ROUNDS = 16;

  /** Help attempts (with a pause) in a join before yielding, then blocking. */
  static final int JOIN_SPINS = 256, JOIN_YIELDS = 32;

  /** How long a blocked joiner waits before trying to help again. */
  static final long JOIN_BLOCK_NANOS = 1_000_000L;

  /**
   * How long a sleeper parks while some worker holds latent forks, before it looks for a blocked
   * owner to claim from: the latency bound for forks made just before their owner blocked.
   */
  static final long CLAIM_PARK_NANOS = 1_000_000L;

  /** Failed completions waiting for a shallower frame; more than a few would need a deep chain. */
  static final int PENDING_MAX = 64;

  static final int AWAKE = 0, SLEEPING = 1, RETIRED = 2;

  private static final VarHandle SLEEP_STATE;

  static {
    try {
      SLEEP_STATE = MethodHandles.lookup().findVarHandle(Worker.class, "sleepState", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
    // Initialize the job class now: a promotion allocates one between reading the oldest latent
    // entry and committing it, and a class-initialization wait there would look like blocking.
    new Jobs.Job(null, 0L, Jobs.RUNNABLE);
  }

  final WorkStealingPool pool;
  final int index;
  final WorkDeque<Task<?>> deque;
  final WorkerCounters counters;
  final LatentStack latent = new LatentStack();
  private final boolean recordStats;
  private final boolean latentForks;
  private final boolean claims;

  /**
   * Keep one promoted fork in the deque while there are latent ones (parallelism above 1): a thief
   * then finds the oldest, biggest piece at once instead of waiting for this worker's next fork or
   * join, which can be a long leaf away (a quicksort partition). It costs one promotion each time
   * the deque empties, about one per level of a recursion's spine (see the design note).
   */
  private final boolean stockDeque;

  /** AWAKE, SLEEPING (registered in the pool's sleeper count) or RETIRED. */
  volatile int sleepState;

  /** The task this worker is blocked-helping on, for joiners following a chain of thieves. */
  volatile Task<?> joining;

  /** A task taken from a queue and not yet started; owner-only (see the class comment). */
  Task<?> inHand;

  /** Failed completions to finish from a shallower frame; owner-only. */
  final Task<?>[] pendingTasks = new Task<?>[PENDING_MAX];

  final Throwable[] pendingErrors = new Throwable[PENDING_MAX];
  int pendingCount;

  /** Hunger this worker added to the pool's count from a join and has not taken back yet. */
  private int hungerOwed;

  private int seed; // xorshift state for victim selection

  Worker(WorkStealingPool pool, int index, WorkerCounters counters, boolean recordStats) {
    super(null, null, pool.threadNamePrefix + index, 0L, false);
    this.pool = pool;
    this.index = index;
    this.deque = new WorkDeque<>();
    this.counters = counters;
    this.recordStats = recordStats;
    this.latentForks = pool.latentForks;
    this.stockDeque = pool.parallelism() > 1;
    this.claims = pool.latentForks && LatentStack.claimsSupported();
    this.seed = 0x9E3779B9 * (index + 1) | 1;
    setDaemon(pool.daemon);
  }

  // ---------------------------------------------------------------------------------------------
  // Run loop

  @Override
  public void run() {
    Throwable failure = null;
    try {
      loop();
    } catch (Throwable t) {
      failure = t;
    } finally {
      abandonLeftovers();
      pool.workerExited(this, failure);
    }
  }

  private void loop() {
    int idleRounds = 0;
    long idleStart = 0L;
    try {
      for (; ; ) {
        if (pool.isStopping()) {
          return;
        }
        if (pendingCount != 0) {
          completePending();
        }
        if (hungerOwed != 0) {
          repayHunger();
        }
        Task<?> t;
        try {
          t = popOwn(true);
          if (t == null) {
            t = scan();
          }
        } catch (Throwable e) { // an OutOfMemoryError claiming or starting a worker, say
          t = inHand; // whatever was taken before it is in hand
        }
        if (t != null) {
          if (idleRounds != 0) {
            if (recordStats) counters.idleNanos += System.nanoTime() - idleStart;
            idleRounds = 0;
            pool.addHungry(-1);
          }
          try {
            runTask(t);
          } catch (Throwable e) { // thrown by the runtime around a task, not by the task
            if (!(e instanceof StackOverflowError)) {
              pool.reportUncaught(e);
            }
          }
          Thread.interrupted(); // a task's interrupt status must not leak into the next one
          continue;
        }
        if (idleRounds++ == 0) {
          idleStart = System.nanoTime();
          pool.addHungry(1); // busy workers promote latent forks while someone is hungry
          if (latent.top() != 0) {
            latent.clearAll(); // dead slots of joins abandoned by an error; no join frame is left
          }
        }
        if (idleRounds <= SPIN_ROUNDS) {
          for (int i = 0; i < SPIN_PAUSES; i++) {
            Thread.onSpinWait();
          }
        } else if (idleRounds <= SPIN_ROUNDS + YIELD_ROUNDS) {
          Thread.yield();
        } else {
          if (!sleep()) {
            if (recordStats) counters.idleNanos += System.nanoTime() - idleStart;
            return;
          }
          idleRounds = 1; // woken: spin again before the next sleep
        }
      }
    } finally {
      if (idleRounds != 0) {
        pool.addHungry(-1);
      }
    }
  }

  /**
   * Runs a task the caller holds in {@link #inHand}: every caller stores it there right after the
   * call that took it (popOwn, scan, helpSource, claims, reclaim), so an error at this call's entry
   * leaves it for the next popOwn.
   */
  void runTask(Task<?> t) {
    if (recordStats) counters.executed++;
    t.doExec(this);
  }

  /**
   * The worker is leaving (the pool stopped, or it failed): complete what failed, and cancel what
   * it still holds, so that nobody waits for a task that no worker will run.
   */
  private void abandonLeftovers() {
    completePending();
    Task<?> h = inHand;
    inHand = null;
    if (h != null) {
      h.cancelAbandoned();
    }
    for (Object x; (x = latent.popTask()) != null || latent.size() > 0; ) {
      if (x != null) {
        ((Task<?>) x).cancelAbandoned();
      } else {
        latent.dropTop(); // a primitive join's half: its joiner is gone with the stack
      }
    }
    latent.clearAll();
    for (Task<?> t; (t = deque.pop()) != null; ) {
      t.cancelAbandoned();
    }
    if (hungerOwed != 0) {
      repayHunger();
    }
  }

  /**
   * Finishes completions that an error cut short (see the class comment), oldest first: the
   * deepest task was recorded first, so a child completes before the parent that joined it.
   * Idempotent: an error halfway leaves every entry for the next try.
   */
  void completePending() {
    int n = pendingCount;
    for (int i = 0; i < n; i++) {
      pendingTasks[i].completeFailed(pendingErrors[i]);
    }
    for (int i = 0; i < n; i++) {
      pendingTasks[i] = null;
      pendingErrors[i] = null;
    }
    pendingCount = 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Fork: latent or eager

  /** Owner only: fork {@code t}, latent unless the pool forks eagerly. */
  void fork(Task<?> t) {
    if (latentForks && t.isFresh()) {
      latent.pushTask(t); // an error here: nothing recorded, and fork() throws
      t.setLatent();
      if (recordStats) counters.latentForks++;
      if (stockDeque && deque.size() == 0) {
        offer();
      }
    } else {
      push(t);
    }
  }

  /** True if {@code t} is one of this worker's latent (unpromoted) forks. */
  boolean ownsLatent(Task<?> t) {
    return Thread.currentThread() == this && latent.containsLatent(t);
  }

  /**
   * Whether to offer work now: someone is hungry and our deque, which thieves take first, is
   * empty. The one check behind {@link Tine#poll}, lazy loop splitting and promotion at joins.
   */
  boolean shouldOffer() {
    return pool.hungry != 0 && deque.size() == 0;
  }

  /** Promotes latent forks (see {@link #tryPromote}); an overflow cuts it short harmlessly. */
  void offer() {
    try {
      tryPromote();
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
  void tryPromote() {
    int n = pool.hungry != 0 ? Math.max(1, latent.size() / 2) : 1;
    for (int i = 0; i < n && promoteOldest(); i++) {
      // oldest first keeps the deque in age order
    }
  }

  /**
   * Promotes every latent fork: before blocking, so that others can run them meanwhile. A task an
   * earlier error left in hand is published first (otherwise no promotion happens).
   */
  void publishAll() {
    Task<?> h = inHand;
    if (h != null && h.markPromoted()) {
      int before = deque.push(h);
      inHand = null;
      signalIfFirst(before);
    } else if (h != null) {
      inHand = null; // already complete: nothing to run
    }
    while (promoteOldest()) {
      // oldest first
    }
  }

  /**
   * Moves the oldest latent entry to the deque: a task as itself, a primitive join's second half
   * as a {@link Jobs.Job} that its joiner will find in the entry's slot. Oldest first, because in
   * divide-and-conquer code the oldest fork is the biggest piece (Lea's FIFO steals, for the
   * same reason).
   *
   * @return false if there was nothing to promote
   */
  boolean promoteOldest() {
    for (; ; ) {
      if (inHand != null) {
        return false; // an earlier promotion was cut short: that task runs first
      }
      int b = latent.oldest();
      if (b < 0) {
        return false;
      }
      int kind = latent.kind(b);
      Task<?> t =
          kind == LatentStack.KIND_TASK
              ? (Task<?>) latent.item(b)
              : new Jobs.Job(latent.item(b), latent.arg(b), kind); // allocate before any change
      latent.commitOldest(b, kind == LatentStack.KIND_TASK ? null : t);
      inHand = t; // no call since the commit: from here on the task cannot be lost
      if (!t.markPromoted()) {
        inHand = null;
        continue; // cancelled by its owner while latent: nothing to run
      }
      int before = deque.push(t);
      inHand = null; // the deque has it
      if (recordStats) counters.promotions++;
      signalIfFirst(before);
      return true;
    }
  }

  /** Owner only: an eager fork. */
  void push(Task<?> t) {
    if (recordStats) counters.forks++;
    signalIfFirst(deque.push(t));
  }

  /** Owner only: push on the deque (a split of a lazy loop) and wake a thief if needed. */
  void publish(Task<?> t) {
    signalIfFirst(deque.push(t));
  }

  private void signalIfFirst(int before) {
    if (before <= 1) {
      // Dekker with a worker going to sleep (it registers, then rescans every deque): order our
      // top store before our read of the sleeper count, so one of us sees the other.
      VarHandle.fullFence();
      pool.signalWork(); // cheap when nobody sleeps and every worker is started
    }
  }

  private int nextRandom() {
    int x = seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return seed = x;
  }

  /**
   * One sweep for work: the external queue, then every other worker's deque from a random start,
   * then the latent forks of blocked workers. Counts one failed steal per sweep that found nothing.
   * A task found is also left in {@link #inHand}.
   */
  Task<?> scan() {
    Task<?> t = pool.pollExternal();
    if (t != null) {
      inHand = t;
      return t;
    }
    Worker[] ws = pool.workers;
    int n = ws.length;
    int start = (nextRandom() & Integer.MAX_VALUE) % n;
    boolean contended = false;
    for (int i = 0; i < n; i++) {
      Worker v = ws[(start + i) % n];
      if (v == null || v == this) {
        continue;
      }
      Object x = v.deque.trySteal();
      if (x == null) {
        continue;
      }
      if (x == WorkDeque.LOST_RACE) {
        contended = true;
        continue;
      }
      Task<?> s = (Task<?>) x;
      inHand = s;
      onSteal(s, v);
      return s;
    }
    if (claims && !contended && (t = claimFromBlocked(ws, start)) != null) {
      return t;
    }
    if (recordStats) counters.failedSteals++;
    if (contended) {
      Thread.onSpinWait();
    }
    return null;
  }

  private void onSteal(Task<?> s, Worker victim) {
    try {
      if (recordStats) {
        counters.steals++;
        if (s.wasPromoted()) counters.promotedStolen++;
      }
      s.setStealer(this);
      if (victim.deque.hasWork()) {
        pool.signalWork(); // propagate: more work is left where we found this
      }
    } catch (StackOverflowError e) {
      // optional: the stolen task is in hand
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Claims: latent forks of a worker blocked outside Tine (protocol in LatentStack)

  /** Makes a claimed entry runnable: a task stays itself, a primitive join's half becomes a job. */
  private static final LatentStack.Promoter CLAIM_PROMOTER =
      (item, arg, kind) -> kind == LatentStack.KIND_TASK ? item : new Jobs.Job(item, arg, kind);

  /** Takes the oldest latent fork of some worker that is blocked outside Tine, or null. */
  private Task<?> claimFromBlocked(Worker[] ws, int start) {
    int n = ws.length;
    for (int i = 0; i < n; i++) {
      Worker v = ws[(start + i) % n];
      if (v == null || v == this || !v.latent.mayHaveEntries() || !looksBlocked(v)) {
        continue;
      }
      Object x = v.latent.claimOldest(v, CLAIM_PROMOTER);
      if (x == null) {
        continue;
      }
      Task<?> t = (Task<?>) x;
      inHand = t;
      if (!t.markPromoted()) {
        inHand = null; // cancelled by its owner before it blocked
        continue;
      }
      if (recordStats) counters.claims++;
      onSteal(t, v);
      if (v.latent.mayHaveEntries()) {
        pool.signalWork(); // more where this came from
      }
      return t;
    }
    return null;
  }

  private static boolean looksBlocked(Thread t) {
    Thread.State s = t.getState();
    return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
  }

  /** True if some other worker may hold latent forks (a racy hint, for sleepers). */
  private boolean latentElsewhere() {
    if (!claims) {
      return false;
    }
    for (Worker v : pool.workers) {
      if (v != null && v != this && v.latent.mayHaveEntries()) {
        return true;
      }
    }
    return false;
  }

  // ---------------------------------------------------------------------------------------------
  // Join

  int awaitJoin(Task<?> task) {
    return awaitJoin(task, 0L);
  }

  /**
   * Waits for {@code task} to complete, helping meanwhile; returns its final status, or a
   * non-negative one if {@code deadline} (a nanoTime, 0 for none) passed first. Kept small so the
   * JIT inlines it into join sites; the slow path is {@link #helpJoin}.
   */
  int awaitJoin(Task<?> task, long deadline) {
    // (0) The newest latent fork is the target: never promoted, so a direct call.
    if (latentForks && latent.peekTask() == task) {
      if (recordStats) counters.inlineJoins++;
      return task.execLatent(this);
    }
    return awaitJoinSlow(task, deadline);
  }

  /** Steps (1) to (3) of a join: kept apart so that the inline join above stays small. */
  private int awaitJoinSlow(Task<?> task, long deadline) {
    if (recordStats) counters.joins++;
    int s;
    // (1) Run own pending forks, newest first. The target is among them unless it was stolen.
    while ((s = task.status()) >= 0) {
      if (deadline != 0L && deadline - System.nanoTime() <= 0L) {
        return s;
      }
      Task<?> t = popOwn(false);
      if (t == null) {
        return helpJoin(task, deadline);
      }
      runTask(t);
    }
    return s;
  }

  /** Inside {@link Task#execLatent}: take the newest latent task off, and restock the deque. */
  void takeLatentTop() {
    latent.dropPeekedTask(); // awaitJoin peeked it; no blocking since
    if (stockDeque && deque.size() == 0 && latent.sizeChecked() > 0) {
      offer(); // joins, like forks, are where a worker restocks its deque
    }
  }

  /**
   * Owner: our newest pending task, or null: a task in hand first, then latent entries (they are
   * newer than anything in the deque, which holds promoted, i.e. older, entries), then the deque.
   * A primitive join's latent half on top of the latent stack is not a task: inside a join its
   * joiner is below us, so every latent entry is promoted (oldest first, so the deque keeps age
   * order) and the deque's newest is taken; at top level (the run loop) no joiner is left, so the
   * entry is dead and dropped.
   */
  private Task<?> popOwn(boolean topLevel) {
    Task<?> t = inHand;
    if (t != null) {
      return t;
    }
    for (; latentForks; ) {
      Object x = latent.popTask();
      if (x != null) {
        t = (Task<?>) x;
        inHand = t;
        if (recordStats) counters.localPops++;
        return t;
      }
      if (latent.sizeChecked() == 0) {
        break;
      }
      if (topLevel) {
        latent.dropTop();
      } else {
        publishAll();
        if (inHand != null) {
          return inHand; // a promotion was cut short
        }
        break;
      }
    }
    t = deque.pop();
    if (t != null) {
      inHand = t;
      if (recordStats) counters.localPops++;
    }
    return t;
  }

  /** The target is not in our deque: help whoever has it, and block only as a last resort. */
  private int helpJoin(Task<?> task, long deadline) {
    int s;
    // (2) Help whoever has the target; (3) spin, yield, block briefly; repeat.
    if (pendingCount != 0) {
      completePending(); // the target may be one of them
    }
    if (recordStats) counters.joinsHelped++;
    Task<?> outer = joining;
    joining = task;
    boolean blocked = false;
    boolean hungry = false;
    try {
      int misses = 0;
      while ((s = task.status()) >= 0) {
        long left = 0L;
        if (deadline != 0L && (left = deadline - System.nanoTime()) <= 0L) {
          break;
        }
        Task<?> t = popOwn(false); // a helped task may have left forks behind
        if (t == null) {
          t = helpSource(task);
        }
        if (t != null) {
          if (hungry) {
            hungry = false;
            pool.addHungry(-1);
            hungerOwed--;
          }
          runTask(t);
          misses = 0;
          continue;
        }
        if (!hungry) {
          pool.addHungry(1); // whoever holds the target's pieces as latent forks promotes them
          hungerOwed++;
          hungry = true;
        }
        misses++;
        if (misses < JOIN_SPINS) {
          Thread.onSpinWait();
        } else if (misses < JOIN_SPINS + JOIN_YIELDS) {
          Thread.yield();
        } else {
          if (!blocked && recordStats) counters.joinsBlocked++;
          blocked = true;
          long wait = deadline == 0L ? JOIN_BLOCK_NANOS : Math.min(JOIN_BLOCK_NANOS, left);
          try {
            task.awaitDone(false, wait);
          } catch (InterruptedException e) {
            throw new AssertionError(e); // not thrown when interruptible == false
          }
          misses = JOIN_SPINS; // after a timed block, help once more, then yield and block again
        }
      }
    } finally {
      joining = outer;
      if (hungry) {
        pool.addHungry(-1);
        hungerOwed--;
      }
    }
    return s;
  }

  /** Takes back hunger that an error kept a join from taking back itself. */
  private void repayHunger() {
    int owed = hungerOwed;
    pool.addHungry(-owed);
    hungerOwed -= owed;
  }

  // ---------------------------------------------------------------------------------------------
  // Primitive joins (see Tine): the second half is a latent (function, argument) entry

  /** Records the latent second half of a primitive join; returns its slot. */
  int forkFunction(Object fn, long arg, int kind) {
    int slot = latent.pushFunction(fn, arg, kind);
    if (recordStats) counters.latentForks++;
    if (stockDeque && deque.size() == 0) {
      offer();
    }
    return slot;
  }

  /** True (and the entry is dropped) if slot is the newest entry and still latent. */
  boolean reclaimInline(int slot) {
    if (latent.isTopLatent(slot)) {
      latent.dropTop();
      if (recordStats) counters.inlineJoins++;
      return true;
    }
    return false;
  }

  /** The current thread as a worker of a latent-forking pool, or null. */
  static Worker currentLatent() {
    return Thread.currentThread() instanceof Worker w && w.latentForks ? w : null;
  }

  /**
   * The slow way back to slot's entry: run the forks the first half left behind (forked, never
   * joined), then either the entry is latent (returns null: the caller runs it inline) or it was
   * promoted or claimed, and its job task is returned for the caller to join.
   */
  Jobs.Job reclaim(int slot) {
    Task<?> h = inHand;
    if (h != null) {
      runTask(h); // left in hand by an error: it runs before anything else
    }
    while (latent.top() > slot + 1) {
      Object x = latent.popTask();
      if (x == null) {
        break; // a dead primitive-join entry above ours (its join was cut short): dropped below
      }
      Task<?> t = (Task<?>) x;
      inHand = t; // no call since the pop
      runTask(t);
    }
    if (latent.isLatent(slot)) {
      latent.truncate(slot);
      if (recordStats) counters.inlineJoins++;
      return null;
    }
    Object x = latent.item(slot);
    if (!(x instanceof Jobs.Job job)) {
      throw new IllegalStateException("latent slot " + slot + " holds " + x + ", not its job");
    }
    latent.truncate(slot);
    return job;
  }

  /** Eager mode's primitive join: the second half as a task on the deque. */
  Jobs.Job forkJobEagerly(Object fn, long arg, int kind) {
    Jobs.Job job = new Jobs.Job(fn, arg, kind);
    push(job); // counted as a fork
    return job;
  }

  boolean latentForks() {
    return latentForks;
  }

  void countPromotion() {
    if (recordStats) counters.promotions++;
  }

  /** A task whose execution helps {@code target} complete, or null. */
  private Task<?> helpSource(Task<?> target) {
    Worker v = target.stealer();
    if (v == null || v.pool != pool) {
      // Never stolen, not in our deque: forked by another worker or submitted from outside. (A
      // foreign pool's worker can only be a stale hint: a task's result that is a thread.)
      return scan();
    }
    for (int hops = 0; v != null && v != this && v.pool == pool && hops < 8; hops++) {
      Object x = v.deque.trySteal();
      if (x == WorkDeque.LOST_RACE) {
        return null;
      }
      if (x != null) {
        Task<?> t = (Task<?>) x;
        inHand = t;
        onSteal(t, v);
        return t;
      }
      Task<?> j = v.joining; // the thief is itself waiting: help whoever has what it waits for
      v = j == null ? null : j.stealer();
    }
    // The chain has nothing public. A thief blocked outside Tine may hold the target's pieces as
    // latent forks: claim one (from any blocked worker: the chain may pass through them).
    if (claims) {
      Worker[] ws = pool.workers;
      return claimFromBlocked(ws, (nextRandom() & Integer.MAX_VALUE) % ws.length);
    }
    return null;
  }

  // ---------------------------------------------------------------------------------------------
  // Sleep

  /**
   * Registers as sleeping, rescans, and parks until woken.
   *
   * <p>No lost wake-up: a producer publishes work with a volatile write (deque top, or the
   * external queue's CAS) and then reads the sleeper count; a sleeper increments the sleeper count
   * (CAS) and then reads every queue. Volatile accesses are sequentially consistent, so either
   * the producer sees the sleeper and wakes one, or the sleeper's rescan sees the work.
   *
   * <p>Latent forks are invisible to that handshake. While some worker holds any, a sleeper parks
   * for at most {@link #CLAIM_PARK_NANOS} at a time and then tries to claim from a blocked owner,
   * so forks made just before their owner blocked run within about a millisecond.
   *
   * @return false if the worker must exit (pool stopping, or retired after the keep-alive)
   */
  private boolean sleep() {
    SLEEP_STATE.setVolatile(this, SLEEPING);
    pool.addSleepers(1);
    try {
      return sleepRegistered();
    } catch (Throwable e) { // an OutOfMemoryError claiming, say: leave the sleeper count right
      if (sleepState != RETIRED) {
        unregister();
      }
      throw e;
    }
  }

  private boolean sleepRegistered() {
    if (pool.isStopping()) {
      unregister();
      return false;
    }
    if (pool.hasVisibleWork()) {
      unregister();
      return true;
    }
    if (pool.isShutdown() && pool.tryTerminateIfQuiescent()) {
      unregister();
      return false;
    }
    if (recordStats) counters.parks++;
    long keepAlive = pool.keepAliveNanos;
    long deadline = System.nanoTime() + keepAlive;
    while (sleepState == SLEEPING) {
      if (pool.isStopping()) {
        unregister();
        return false;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0L) {
        if (pool.tryRetire(this)) {
          return false;
        }
        deadline = System.nanoTime() + keepAlive;
        continue;
      }
      boolean watch = latentElsewhere();
      Thread.interrupted(); // a stray interrupt would make park return at once, and spin
      LockSupport.parkNanos(this, watch ? Math.min(left, CLAIM_PARK_NANOS) : left);
      if (watch && sleepState == SLEEPING) {
        Worker[] ws = pool.workers;
        Task<?> t = claimFromBlocked(ws, (nextRandom() & Integer.MAX_VALUE) % ws.length);
        if (t != null) {
          unregister();
          return true; // the claimed task is in hand
        }
      }
    }
    // A waker claimed us (AWAKE) and left the sleeper count to us, or we retired.
    if (sleepState == AWAKE) {
      pool.addSleepers(-1);
      return true;
    }
    return false;
  }

  /** Leave the sleeping state ourselves, unless a waker already claimed us. */
  private void unregister() {
    if (SLEEP_STATE.compareAndSet(this, SLEEPING, AWAKE)) {
      pool.addSleepers(-1);
    } else if (sleepState == AWAKE) {
      pool.addSleepers(-1); // claimed by a waker, who leaves the count to the sleeper
    }
  }

  /**
   * Waker side: claim this sleeper. Exactly one of claim/unregister/retire succeeds. A waker that
   * claims (AWAKE) leaves the sleeper count alone; the sleeper takes itself off when it wakes, so
   * an error between the waker's two steps cannot leave the count wrong.
   */
  boolean tryClaim(int newState) {
    return SLEEP_STATE.compareAndSet(this, SLEEPING, newState);
  }

  // --- test hooks (jcstress) ---
  // Package-private entry points for the tests in tine-jcstress (package dev.tine); nothing in
  // the runtime calls them, and they change no behaviour.

  /** jcstress only: the sleeper's own {@link #unregister} (sleep()'s early exits). */
  void unregisterForTest() {
    unregister();
  }
}

package dev.tine;

import dev.tine.deque.WorkDeque;
import dev.tine.stats.WorkerCounters;

/**
 * A pool worker: a thread that owns one {@link WorkDeque} and one {@link LatentStack}, and the
 * per-worker state that the runtime's protocols share. See {@link WorkStealingPool} for the
 * overview. This file holds the run loop and forking; each protocol has its own file:
 *
 * <ul>
 *   <li>{@link Stealing}: the scan for work (external queue, random victims, claims);
 *   <li>{@link HelpingJoin}: joins that run own forks, then help the target's thieves;
 *   <li>{@link LatentJoins}: the join's slow paths (slow fork, promotion and its policy, taking a
 *       half back);
 *   <li>{@link Sleep}: idle workers registering, parking and being woken.
 * </ul>
 *
 * <p><b>Run loop.</b> Run own pending work (newest first); else scan; else go idle: spin
 * (rescanning), then yield (rescanning), then sleep. Between top-level tasks the thread's interrupt
 * status is cleared, as the JDK's pool does.
 *
 * <p><b>Errors inside the runtime.</b> A {@link StackOverflowError} can strike at any call the
 * runtime makes, deep in a user's recursion. Four rules keep every task accounted for:
 *
 * <ol>
 *   <li>The deque and the latent stack change state only in call-free commits (see their notes).
 *   <li>A task taken from any queue is held in {@link #inHand} (a plain store right after the
 *       taking call returns) until its {@code doExec} is entered; {@link HelpingJoin#popOwn}
 *       returns it first. A promotion commits the latent stack, holds the task in hand, and lets go
 *       only after the deque push returned: an overflow in between leaves it for us to run.
 *   <li>A task whose completion itself overflows is recorded in {@link #pendingTasks} and completed
 *       from a shallower frame: the next handler up, a join's slow path, or the run loop ({@link
 *       #completePending}).
 *   <li>A fork is never left behind its failed join: {@code fork()} returns once the task is
 *       recorded, and a join stopped by an error inside the runtime records its task so that the
 *       pending list fails it if it is still ours and unstarted ({@link #pendingIfLeft}), taking it
 *       out of the deque first: a failed task is never left where a thief can take it.
 * </ol>
 *
 * Optional work (promotions, wake-ups, counters) that an overflow cuts short is just skipped.
 *
 * <p><b>Who writes which field.</b> Each mutable field below has one protocol that writes it; the
 * table in core-runtime.md ("Who writes a worker's fields") gives the thread, the file and the
 * memory mode of each, and lists the plain stores that rules 2 and 3 place outside the owner
 * ({@code FieldOwnersTest} fails on a write in a file the table does not list).
 */
final class Worker extends Thread {
  /** Idle rounds of rescanning with onSpinWait pauses before yielding. */
  static final int SPIN_ROUNDS = 64;

  /** onSpinWait pauses per spin round. */
  static final int SPIN_PAUSES = 32;

  /** Idle rounds of rescanning with Thread.yield() before sleeping. */
  static final int YIELD_ROUNDS = 16;

  /** Failed completions waiting for a shallower frame; more than a few would need a deep chain. */
  static final int PENDING_MAX = 64;

  static {
    // Initialize the job class now: a promotion allocates one between reading the oldest latent
    // entry and committing it, and a class-initialization wait there would look like blocking.
    new PromotedJob(null, 0L, JoinKinds.TO_VOID);
  }

  final WorkStealingPool pool;
  final int index;
  final WorkDeque<Task<?>> deque;
  final WorkerCounters counters;

  /**
   * This worker's latent forks. The same object as {@link #scope}: a scope join then reaches the
   * stack's fields directly, without a dependent load through another object on every push and pop
   * (measured: fork-every fib, see latent-forks.md).
   */
  final LatentStack latent;

  /** The scope handed to scope-passing code that runs on this worker (built last: it reads us). */
  final Scope scope;

  final boolean recordStats;
  final boolean latentForks;

  /** Whether idle workers may claim latent forks of blocked owners (see {@link LatentStack}). */
  final boolean claims;

  /**
   * A spare that {@link StallWatch} started: it runs the unstarted forks of workers parked in a
   * wait that may be for them (and what those forks fork), and any task only while every other
   * awake worker waits where the JDK compensates; it exits as soon as it finds nothing it may run
   * ({@link Stealing#scanForParked}).
   */
  final boolean stallSpare;

  /**
   * Keep one promoted fork in the deque while there are latent ones (parallelism above 1): a thief
   * then finds the oldest, biggest piece at once instead of waiting for this worker's next fork or
   * join, which can be a long leaf away (a quicksort partition). It costs one promotion each time
   * the deque empties, about one per level of a recursion's spine (see the design note).
   */
  final boolean promoteIntoEmptyDeque;

  /** {@link Sleep#AWAKE}, {@link Sleep#SLEEPING} or {@link Sleep#RETIRED}; see {@link Sleep}. */
  volatile int sleepState;

  /** The task this worker is blocked-helping on, for joiners following a chain of thieves. */
  volatile Task<?> joining;

  /**
   * True while this worker waits in a join that found nothing to help with (it spins, yields and
   * blocks in turn): {@link StallWatch} counts it as parked whatever its thread state says. Written
   * only on the join's slow path, never per task.
   */
  volatile boolean joinParked;

  /**
   * True while this worker blocks in {@link WorkStealingPool#managedBlock} ({@link Compensation}):
   * a wait the JDK compensates for, so {@link StallWatch} counts it as one. Slow path only.
   */
  volatile boolean managedBlocking;

  /** A task taken from a queue and not yet started; owner-only (see the class comment). */
  Task<?> inHand;

  /** Failed completions to finish from a shallower frame; owner-only. */
  final Task<?>[] pendingTasks = new Task<?>[PENDING_MAX];

  final Throwable[] pendingErrors = new Throwable[PENDING_MAX];

  /**
   * Pending entries recorded by a join (or an {@code invokeAll}) that an error stopped inside the
   * runtime before the joined task's own {@code try}: {@link #completePending} fails such a task
   * with the error only if it is then still this worker's unstarted fork (in hand, latent, or the
   * newest in the deque), like a task whose {@code compute} overflowed at its entry.
   *
   * <p>Invariant: <b>an overflow never leaves a fork behind its failed join.</b> A fork left in our
   * queues after its joiner's frame is gone is an orphan that a helping join or the run loop runs
   * later; in a recursion that overflows, that run overflows at the same point and leaves an orphan
   * of the same shape, so a helping join at a fixed depth ran them forever (the OverflowTest
   * wedge). The record is plain stores in the handler, which calls nothing (a call there overflows
   * just like the one that failed); the ownership check is made later, from a shallower frame.
   */
  final boolean[] pendingIfLeft = new boolean[PENDING_MAX];

  int pendingCount;

  /** Hunger this worker added to the pool's count from a join and has not taken back yet. */
  int hungerOwed;

  int seed; // xorshift state for victim selection (Stealing)

  Worker(WorkStealingPool pool, int index, WorkerCounters counters, boolean recordStats) {
    this(pool, index, counters, recordStats, false);
  }

  Worker(
      WorkStealingPool pool,
      int index,
      WorkerCounters counters,
      boolean recordStats,
      boolean stallSpare) {
    super(null, null, pool.threadNamePrefix + index, 0L, false);
    this.stallSpare = stallSpare;
    this.pool = pool;
    this.index = index;
    this.deque = new WorkDeque<>();
    this.counters = counters;
    this.recordStats = recordStats;
    this.latentForks = pool.latentForks;
    this.promoteIntoEmptyDeque = pool.parallelism() > 1;
    this.claims = pool.latentForks && LatentStack.claimsSupported();
    this.seed = 0x9E3779B9 * (index + 1) | 1;
    setDaemon(pool.daemon);
    this.scope = new Scope(this);
    this.latent = scope;
    latent.dequeEmptied = promoteIntoEmptyDeque ? 1 : 0; // the deque starts empty
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
      WorkerSlots.exited(pool, this, failure);
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
          HelpingJoin.repayHunger(this);
        }
        Task<?> t;
        try {
          t = HelpingJoin.popOwn(this, true);
          if (t == null) {
            t = stallSpare ? Stealing.scanForParked(this) : Stealing.scan(this);
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
            HelpingJoin.runOwn(this, t); // an overflowed run's leftovers fail, not run
          } catch (Throwable e) { // thrown by the runtime around a task, not by the task
            if (!(e instanceof StackOverflowError)) {
              pool.reportUncaught(e);
            }
          }
          Thread.interrupted(); // a task's interrupt status must not leak into the next one
          continue;
        }
        if (stallSpare) {
          return; // nothing a parked worker may wait for: a spare never idles (WorkerSlots.exited)
        }
        if (idleRounds++ == 0) {
          idleStart = System.nanoTime();
          pool.addHungry(1); // busy workers promote latent forks while someone is hungry
          // No join frame is left: drop dead slots of joins abandoned by an error, and the
          // functions scope pops left behind (a closure must not stay reachable from an idle
          // worker).
          latent.clearAll();
        }
        if (idleRounds <= SPIN_ROUNDS) {
          for (int i = 0; i < SPIN_PAUSES; i++) {
            Thread.onSpinWait();
          }
        } else if (idleRounds <= SPIN_ROUNDS + YIELD_ROUNDS) {
          Thread.yield();
        } else {
          if (!pool.sleep.sleep(this)) {
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
   * call that took it (popOwn, scan, helpSource, claims, take-back), so an error at this call's
   * entry leaves it for the next popOwn.
   */
  void runTask(Task<?> t) {
    if (recordStats) counters.executed++;
    Task.doExec(t, this);
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
      HelpingJoin.repayHunger(this);
    }
  }

  /**
   * Finishes completions that an error cut short (see the class comment), oldest first: the deepest
   * task was recorded first, so a child completes before the parent that joined it. Idempotent: an
   * error halfway leaves every entry for the next try.
   */
  void completePending() {
    int n = pendingCount;
    for (int i = 0; i < n; i++) {
      Task<?> t = pendingTasks[i];
      if (!pendingIfLeft[i]) {
        t.completeFailed(pendingErrors[i]);
      } else if (t.status() >= 0 && takeUnstarted(t)) {
        t.completeFailed(pendingErrors[i]);
        if (inHand == t) {
          inHand = null; // done: nothing to run
        }
      }
    }
    for (int i = 0; i < n; i++) {
      pendingTasks[i] = null;
      pendingErrors[i] = null;
      pendingIfLeft[i] = false;
    }
    pendingCount = 0;
  }

  /**
   * True if {@code t} is still unstarted in this worker's hand or latent stack, or is the newest
   * task of its deque and this worker took it out (owner only). A task failed here must not stay in
   * the deque: a thief would take it, write itself into its outcome as its stealer, and leave a
   * failed task whose exception is a {@code Worker} ({@code ClassCastException} in rule 5's check,
   * and in anyone's join or {@code getException}: {@code JdkParityTest} f02, once in about seven
   * runs at p=2 beside other builds). Popping it decides with the thieves' CAS who has it: us (then
   * it is failed, in hand meanwhile, so an error loses nothing) or a thief (then it runs there).
   */
  private boolean takeUnstarted(Task<?> t) {
    if (inHand == t || latent.containsLatent(t)) {
      return true;
    }
    if (inHand == null && deque.peek() == t) {
      Task<?> x = deque.pop(); // t, or null if a thief took it meanwhile
      inHand = x; // no call since the pop (this class's rule 2)
      if (x != null && promoteIntoEmptyDeque) {
        latent.dequeEmptied = 1; // perhaps the last: restock at the next fork (a store, no call)
      }
      return x == t;
    }
    return false; // our hand is busy: leave it to run, an orphan rather than a wrong outcome
  }

  // ---------------------------------------------------------------------------------------------
  // Fork: latent or eager

  /** Owner only: fork {@code t}, latent unless the pool forks eagerly. */
  void fork(Task<?> t) {
    if (latentForks && t.isFresh()) {
      latent.pushTask(t); // an error here: nothing recorded, and fork() throws
      try {
        t.setLatent();
        if (recordStats) counters.latentForks++;
        if (latent.dequeEmptied != 0) {
          LatentJoins.stock(this);
        }
      } catch (StackOverflowError | OutOfMemoryError e) {
        // The fork is recorded, so fork() must return: a caller that saw it throw would never
        // join the task (see pendingIfLeft). Without the LATENT bit it is an ordinary entry.
      }
    } else {
      push(t);
    }
  }

  /** True if {@code t} is one of this worker's latent (unpromoted) forks. */
  boolean ownsLatent(Task<?> t) {
    return Thread.currentThread() == this && latent.containsLatent(t);
  }

  /** Owner only: an eager fork. */
  void push(Task<?> t) {
    if (recordStats) counters.forks++;
    int before = deque.push(t); // an error here: nothing pushed, and fork() throws
    try {
      signalIfFirst(before);
    } catch (StackOverflowError | OutOfMemoryError e) {
      // pushed, so fork() must return (see fork); the wake-up is optional
    }
  }

  /** Owner only: push on the deque (a split of a lazy loop) and wake a thief if needed. */
  void pushSplit(Task<?> t) {
    signalIfFirst(deque.push(t));
  }

  /** Wakes a thief if the deque was (nearly) empty before our push: see {@link Sleep#afterPush}. */
  void signalIfFirst(int before) {
    if (before <= 1) {
      pool.sleep.afterPush();
    }
  }
}

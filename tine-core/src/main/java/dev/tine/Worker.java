package dev.tine;

import dev.tine.deque.WorkDeque;
import dev.tine.latent.LatentStack;
import dev.tine.stats.WorkerCounters;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A pool worker: a thread that owns one {@link WorkDeque}. See {@link WorkStealingPool} for the
 * overview; this file holds the worker's side of the three protocols.
 *
 * <p><b>Run loop.</b> Pop own deque (LIFO); else scan: the pool's external queue, then the other
 * workers' deques from a random start (FIFO steals); else go idle.
 *
 * <p><b>Join.</b> (1) Pop and run own pending forks until the target is done or the deque is
 * empty. Forks newer than the target are popped first; because thieves take the oldest first,
 * once the deque is empty the target is stolen or was never ours. (2) Help: steal from the
 * target's thief, following the chain of thieves (the thief may itself be joining a task stolen
 * by another), so that the work we run is a descendant of the target (Lea's helping; Wagner and
 * Calder's leapfrogging). If the target was never stolen (forked elsewhere, or submitted from
 * outside) there is no chain, so we scan the whole pool instead. (3) Spin, then yield, then block
 * on the task with a short timed wait, and help again when it expires. At parallelism 1 step (1)
 * or the scan in step (2) always finds the target, so nested joins cannot deadlock.
 *
 * <p><b>Idle.</b> Spin (rescanning), then yield (rescanning), then sleep: register as sleeping,
 * rescan everything, and park only if the rescan found nothing. See {@link #sleep}.
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

  static final int AWAKE = 0, SLEEPING = 1, RETIRED = 2;

  private static final VarHandle SLEEP_STATE;

  static {
    try {
      SLEEP_STATE = MethodHandles.lookup().findVarHandle(Worker.class, "sleepState", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final WorkStealingPool pool;
  final int index;
  final WorkDeque<Task<?>> deque;
  final WorkerCounters counters;
  final LatentStack latent = new LatentStack();
  private final boolean recordStats;
  private final boolean latentForks;

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
        Task<?> t = popOwn();
        if (t == null) {
          t = scan();
        }
        if (t != null) {
          if (idleRounds != 0) {
            if (recordStats) counters.idleNanos += System.nanoTime() - idleStart;
            idleRounds = 0;
            pool.addHungry(-1);
          }
          runTask(t);
          continue;
        }
        if (idleRounds++ == 0) {
          idleStart = System.nanoTime();
          pool.addHungry(1); // busy workers promote latent forks while someone is hungry
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

  void runTask(Task<?> t) {
    if (recordStats) counters.executed++;
    t.doExec();
  }

  // ---------------------------------------------------------------------------------------------
  // Fork: latent or eager

  /** Owner only: fork {@code t}, latent unless the pool forks eagerly. */
  void fork(Task<?> t) {
    if (latentForks && t.markLatent()) {
      latent.pushTask(t);
      if (recordStats) counters.latentForks++;
      if (stockDeque && deque.size() == 0) {
        tryPromote();
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
   * Moves the oldest latent entry to the deque: a task as itself, a primitive join's second half
   * as a {@link Jobs.Job} that its joiner will find in the entry's slot. Oldest first, because in
   * divide-and-conquer code the oldest fork is the biggest piece (Lea's FIFO steals, for the
   * same reason).
   *
   * @return false if there was nothing to promote
   */
  boolean promoteOldest() {
    for (; ; ) {
      int i = latent.takeOldest();
      if (i < 0) {
        return false;
      }
      int kind = latent.kind(i);
      Task<?> t;
      if (kind == LatentStack.KIND_TASK) {
        t = (Task<?>) latent.item(i);
        latent.clear(i);
      } else {
        Jobs.Job job = new Jobs.Job(latent.item(i), latent.arg(i), kind);
        latent.setPromoted(i, job);
        t = job;
      }
      if (!t.markPromoted()) {
        continue; // cancelled by its owner while latent: nothing to run
      }
      if (recordStats) counters.promotions++;
      publish(t);
      return true;
    }
  }

  /** Owner only: an eager fork. */
  void push(Task<?> t) {
    if (recordStats) counters.forks++;
    publish(t);
  }

  /** Owner only: push on the deque (an eager fork or a promotion) and wake a thief if needed. */
  void publish(Task<?> t) {
    int before = deque.push(t);
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
   * One sweep for work: the external queue, then every other worker's deque from a random start.
   * Counts one failed steal per sweep that found nothing.
   */
  Task<?> scan() {
    Task<?> t = pool.pollExternal();
    if (t != null) {
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
      onSteal(s, v);
      return s;
    }
    if (recordStats) counters.failedSteals++;
    if (contended) {
      Thread.onSpinWait();
    }
    return null;
  }

  private void onSteal(Task<?> s, Worker victim) {
    if (recordStats) {
      counters.steals++;
      if (s.wasPromoted()) counters.promotedStolen++;
    }
    s.setStealer(this);
    if (victim.deque.hasWork()) {
      pool.signalWork(); // propagate: more work is left where we found this
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Join

  /**
   * Waits for {@code task} to complete, helping meanwhile; returns its final status. Kept small so
   * the JIT inlines it into join sites; the slow path is {@link #helpJoin}.
   */
  int awaitJoin(Task<?> task) {
    // (0) The newest latent fork is the target: never promoted, so a direct call.
    if (latent.peekItem() == task && latent.peekKind() == LatentStack.KIND_TASK) {
      latent.popTask();
      if (stockDeque && latent.size() > 0 && deque.size() == 0) {
        tryPromote(); // joins, like forks, are where a worker restocks its deque
      }
      if (recordStats) counters.inlineJoins++;
      return task.doExec();
    }
    if (recordStats) counters.joins++;
    int s;
    // (1) Run own pending forks, newest first. The target is among them unless it was stolen.
    while ((s = task.status()) >= 0) {
      Task<?> t = popOwn();
      if (t == null) {
        return helpJoin(task);
      }
      runTask(t);
    }
    return s;
  }

  /**
   * Owner: our newest pending task, latent entries first (they are newer than anything in the
   * deque, which holds promoted, i.e. older, entries), or null. A primitive join's latent half on
   * top of the latent stack is not a task; then every latent entry is promoted (oldest first, so
   * the deque keeps age order) and the deque's newest is taken.
   */
  private Task<?> popOwn() {
    Object x = latent.popTask();
    if (x != null) {
      if (recordStats) counters.localPops++;
      return (Task<?>) x;
    }
    if (latent.size() > 0) {
      while (promoteOldest()) {
        // promote all
      }
    }
    Task<?> t = deque.pop();
    if (t != null && recordStats) counters.localPops++;
    return t;
  }

  /** The target is not in our deque: help whoever has it, and block only as a last resort. */
  private int helpJoin(Task<?> task) {
    int s;
    // (2) Help whoever has the target; (3) spin, yield, block briefly; repeat.
    if (recordStats) counters.joinsHelped++;
    Task<?> outer = joining;
    joining = task;
    boolean blocked = false;
    boolean hungry = false;
    try {
      int misses = 0;
      while ((s = task.status()) >= 0) {
        Task<?> t = popOwn(); // a helped task may have left forks behind
        if (t == null) {
          t = helpSource(task);
        }
        if (t != null) {
          if (hungry) {
            hungry = false;
            pool.addHungry(-1);
          }
          runTask(t);
          misses = 0;
          continue;
        }
        if (!hungry) {
          hungry = true;
          pool.addHungry(1); // whoever holds the target's pieces as latent forks promotes them
        }
        misses++;
        if (misses < JOIN_SPINS) {
          Thread.onSpinWait();
        } else if (misses < JOIN_SPINS + JOIN_YIELDS) {
          Thread.yield();
        } else {
          if (!blocked && recordStats) counters.joinsBlocked++;
          blocked = true;
          try {
            task.awaitDone(false, JOIN_BLOCK_NANOS);
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
      }
    }
    return s;
  }

  // ---------------------------------------------------------------------------------------------
  // Primitive joins (see Tine): the second half is a latent (function, argument) entry

  /** Records the latent second half of a primitive join; returns its slot. */
  int forkFunction(Object fn, long arg, int kind) {
    int slot = latent.pushFunction(fn, arg, kind);
    if (recordStats) counters.latentForks++;
    if (stockDeque && deque.size() == 0) {
      tryPromote();
    }
    return slot;
  }

  /** True (and the entry is dropped) if slot is the newest entry and still latent. */
  boolean reclaimInline(int slot) {
    LatentStack l = latent;
    if (l.top() == slot + 1 && slot >= l.bottom()) {
      l.dropTop();
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
   * promoted, and its job task is returned for the caller to join.
   */
  Jobs.Job reclaim(int slot) {
    while (latent.top() > slot + 1) {
      Object x = latent.popTask();
      if (x == null) {
        break;
      }
      runTask((Task<?>) x);
    }
    if (latent.isLatent(slot)) {
      latent.truncate(slot);
      if (recordStats) counters.inlineJoins++;
      return null;
    }
    Jobs.Job job = (Jobs.Job) latent.item(slot);
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
        onSteal(t, v);
        return t;
      }
      Task<?> j = v.joining; // the thief is itself waiting: help whoever has what it waits for
      v = j == null ? null : j.stealer();
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
   * @return false if the worker must exit (pool stopping, or retired after the keep-alive)
   */
  private boolean sleep() {
    SLEEP_STATE.setVolatile(this, SLEEPING);
    pool.addSleepers(1);
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
      LockSupport.parkNanos(this, left);
    }
    return sleepState != RETIRED;
  }

  /** Leave the sleeping state ourselves, unless a waker already claimed us (and counted it). */
  private void unregister() {
    if (SLEEP_STATE.compareAndSet(this, SLEEPING, AWAKE)) {
      pool.addSleepers(-1);
    }
  }

  /** Waker side: claim this sleeper. Exactly one of claim/unregister/retire succeeds. */
  boolean tryClaim(int newState) {
    return SLEEP_STATE.compareAndSet(this, SLEEPING, newState);
  }
}

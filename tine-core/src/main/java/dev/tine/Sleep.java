package dev.tine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The pool's sleep protocol: idle workers register and park, producers wake them, and workers start
 * on demand and retire after the keep-alive. One instance per pool; it owns {@link #ctl}.
 *
 * <h2>State</h2>
 *
 * <ul>
 *   <li>{@code ctl}: high 32 bits the live workers, low 32 bits the registered sleepers (including
 *       ones a waker has woken that have not taken themselves off yet). Changed only by atomic
 *       read-modify-writes.
 *   <li>{@code Worker.sleepState}: {@link #AWAKE}, {@link #SLEEPING} or {@link #RETIRED}. Only
 *       {@code SLEEPING} can be left by another thread, with one CAS ({@link #tryEndSleep}):
 *       whoever wins that CAS ends the sleep.
 * </ul>
 *
 * <h2>Sleeping (the worker)</h2>
 *
 * <ol>
 *   <li>Set {@code sleepState = SLEEPING} (volatile), then add one to the sleeper count (an atomic
 *       add, {@code getAndAdd}).
 *   <li>Rescan every queue ({@link WorkStealingPool#hasVisibleWork}); if anything is there,
 *       unregister and go back to work.
 *   <li>Otherwise park until a waker wakes us, or the keep-alive ends ({@link #tryRetire}).
 * </ol>
 *
 * <h2>Waking (a producer)</h2>
 *
 * A producer publishes work, then reads {@code ctl} ({@link #signalWork}): an external submission
 * always (the queue's CAS is the publishing write), a worker's push only when its deque held at
 * most one element before ({@link #afterPush}). A waker ends one sleeper's sleep ({@code SLEEPING →
 * AWAKE}, one CAS) and unparks it; the woken sleeper takes itself off the count. A waker never
 * changes the count, so an error between its two steps cannot leave it wrong.
 *
 * <h2>Why no wake-up is lost</h2>
 *
 * It is a Dekker handshake: each side writes its own word, then reads the other's.
 *
 * <ul>
 *   <li>Sleeper: the count's atomic add (a volatile read-modify-write), then the rescan's reads of
 *       each deque's {@code base} and {@code top} and of the external queue.
 *   <li>Producer, worker push: the deque's {@code top} is written with a release store, which alone
 *       does not order a later load. The ordering edge is the {@link VarHandle#fullFence} in {@link
 *       #afterPush}, between that store and the read of {@code ctl}.
 *   <li>Producer, external submission: the queue's CAS, then the volatile read of {@code ctl};
 *       volatile accesses are sequentially consistent.
 * </ul>
 *
 * So in every pair at least one side sees the other: the producer sees the sleeper and wakes one,
 * or the sleeper's rescan sees the work. The jcstress test {@code WakeupHandshake} checks exactly
 * this pair (and fails with the fence removed).
 *
 * <p>Why a push onto a non-empty deque need not signal: a registered sleeper's rescan saw every
 * deque empty, so a deque that is non-empty now was made so by an earlier push that did signal.
 * Liveness never depends on a wake-up for a worker's own forks: the owner drains its deque.
 * Wake-ups propagate: a thief that leaves work behind in its victim wakes another sleeper.
 *
 * <p>Latent forks are invisible to this handshake (they are private until promoted). While some
 * worker holds any, a sleeper parks for at most {@link #CLAIM_PARK_NANOS} at a time and then tries
 * to claim from a blocked owner (see {@code LatentClaims}).
 *
 * <h2>Start, retire, exit</h2>
 *
 * A signal that finds no sleeper starts a worker if fewer than the target are live ({@link
 * WorkerSlots#tryStart}, under the pool lock). A sleeper whose keep-alive ends retires with the
 * same CAS a waker uses ({@code SLEEPING → RETIRED}), so exactly one of wake-up, unregister and
 * retire ends a sleep ({@code SleeperWakeRace}). A retired worker is no longer live but still holds
 * its slot until its thread ends; a submission in that window can find no slot, so an exiting
 * worker looks for visible work once its slot is free.
 */
final class Sleep {
  static final int AWAKE = 0, SLEEPING = 1, RETIRED = 2;

  /**
   * How long a sleeper parks while some worker holds latent forks, before it looks for a blocked
   * owner to claim from: the latency bound for forks made just before their owner blocked.
   */
  static final long CLAIM_PARK_NANOS = 1_000_000L;

  static final long LIVE_UNIT = 1L << 32;

  private static final VarHandle CTL;
  private static final VarHandle SLEEP_STATE;

  static {
    try {
      CTL = MethodHandles.lookup().findVarHandle(Sleep.class, "ctl", long.class);
      SLEEP_STATE = MethodHandles.lookup().findVarHandle(Worker.class, "sleepState", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final WorkStealingPool pool;

  /** Live workers (high half) and registered sleepers (low half); see the class comment. */
  private volatile long ctl;

  private final int wakeCursorMask;
  private int wakeCursor; // racy rotation of the first slot a waker looks at

  Sleep(WorkStealingPool pool, int parallelism) {
    this.pool = pool;
    this.wakeCursorMask = Integer.highestOneBit(Math.max(1, parallelism)) * 2 - 1;
  }

  static int live(long c) {
    return (int) (c >>> 32);
  }

  static int sleepers(long c) {
    return (int) c;
  }

  long ctl() {
    return ctl;
  }

  /** Adds {@code delta} live workers (and {@code sleepers} sleepers); returns the old word. */
  long addLive(int delta, int sleepers) {
    return (long) CTL.getAndAdd(this, delta * LIVE_UNIT + sleepers);
  }

  void addSleepers(int delta) {
    CTL.getAndAdd(this, (long) delta);
  }

  // ---------------------------------------------------------------------------------------------
  // Producers

  /** A worker pushed onto a deque that held at most one element: the producer's half. */
  void afterPush() {
    // Order the deque's top store (a release store) before the read of ctl: the Dekker edge.
    VarHandle.fullFence();
    signalWork(); // cheap when nobody sleeps and every worker is started
  }

  /** Wake a sleeping worker, or start one if fewer than the target are live. */
  void signalWork() {
    long c = ctl;
    if (sleepers(c) != 0) {
      Worker[] ws = pool.workers;
      int n = ws.length;
      int start = (wakeCursor++ & wakeCursorMask) % n;
      for (int i = 0; i < n; i++) {
        Worker w = ws[(start + i) % n];
        if (w != null && w.sleepState == SLEEPING && tryEndSleep(w, AWAKE)) {
          LockSupport.unpark(w); // it takes itself off the sleeper count when it wakes
          return;
        }
      }
      c = ctl;
    }
    if (live(c) < WorkerSlots.targetSize(pool) && !pool.isStopping()) {
      WorkerSlots.tryStart(pool);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Sleepers

  /**
   * Registers as sleeping, rescans, and parks until woken.
   *
   * <p>Steps (1) to (3) of the class comment: the registration (state, then count) comes before the
   * rescan, which is the sleeper's half of the handshake.
   *
   * <p>Latent forks are invisible to that handshake. While some worker holds any, a sleeper parks
   * for at most {@link #CLAIM_PARK_NANOS} at a time and then tries to claim from a blocked owner,
   * so forks made just before their owner blocked run within about a millisecond.
   *
   * @return false if the worker must exit (pool stopping, or retired after the keep-alive)
   */
  boolean sleep(Worker w) {
    SLEEP_STATE.setVolatile(w, SLEEPING);
    addSleepers(1);
    try {
      return sleepRegistered(w);
    } catch (
        Throwable e) { // an OutOfMemoryError claiming a latent fork, say: leave the count right
      if (w.sleepState != RETIRED) {
        unregister(w);
      }
      throw e;
    }
  }

  private boolean sleepRegistered(Worker w) {
    if (w.pool.isStopping()) {
      unregister(w);
      return false;
    }
    if (w.pool.hasVisibleWork()) {
      unregister(w);
      return true;
    }
    if (w.pool.isShutdown() && w.pool.tryTerminateIfQuiescent()) {
      unregister(w);
      return false;
    }
    if (w.recordStats) w.counters.parks++;
    long keepAlive = w.pool.keepAliveNanos;
    long deadline = System.nanoTime() + keepAlive;
    while (w.sleepState == SLEEPING) {
      if (w.pool.isStopping()) {
        unregister(w);
        return false;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0L) {
        if (tryRetire(w)) {
          return false;
        }
        deadline = System.nanoTime() + keepAlive;
        continue;
      }
      boolean watch = Stealing.latentElsewhere(w);
      Thread.interrupted(); // a stray interrupt would make park return at once, and spin
      LockSupport.parkNanos(w, watch ? Math.min(left, CLAIM_PARK_NANOS) : left);
      if (watch && w.sleepState == SLEEPING) {
        Worker[] ws = w.pool.workers;
        Task<?> t =
            Stealing.claimFromBlocked(
                w, ws, (Stealing.nextRandom(w) & Integer.MAX_VALUE) % ws.length);
        if (t != null) {
          unregister(w);
          return true; // the claimed task is in hand
        }
      }
    }
    // A waker woke us (AWAKE) and left the sleeper count to us, or we retired.
    if (w.sleepState == AWAKE) {
      addSleepers(-1);
      return true;
    }
    return false;
  }

  /** Leave the sleeping state ourselves, unless a waker already woke us. */
  private void unregister(Worker w) {
    if (SLEEP_STATE.compareAndSet(w, SLEEPING, AWAKE)) {
      addSleepers(-1);
    } else if (w.sleepState == AWAKE) {
      addSleepers(-1); // woken by a waker, who leaves the count to the sleeper
    }
  }

  /**
   * Ends {@code w}'s sleep, moving it to {@code newState}: a waker ({@link #AWAKE}) or the sleeper
   * retiring itself ({@link #RETIRED}). Exactly one of wake-up, unregister and retire wins a given
   * sleep. A waker that wins leaves the sleeper count alone; the sleeper takes itself off when it
   * wakes, so an error between the waker's two steps cannot leave the count wrong.
   */
  static boolean tryEndSleep(Worker w, int newState) {
    return SLEEP_STATE.compareAndSet(w, SLEEPING, newState);
  }

  /** A sleeper whose keep-alive expired leaves, unless a waker woke it first. */
  boolean tryRetire(Worker w) {
    synchronized (pool.lock) {
      if (!tryEndSleep(w, RETIRED)) {
        return false;
      }
      long c = addLive(-1, -1); // one fewer live worker, one fewer sleeper
      WorkerSlots.adjustVacancy(pool, live(c), live(c) - 1);
      return true;
    }
  }

  // --- test hooks (jcstress) ---
  // Package-private entry points for the tests in tine-jcstress (package dev.tine); nothing in
  // the runtime calls them, and they change no behaviour.

  /** jcstress only: the sleeper's own {@link #unregister} (sleep()'s early exits). */
  void unregisterForTest(Worker w) {
    unregister(w);
  }
}

package dev.tine.agent.instrument;

import dev.tine.agent.bootstrap.TineBridge;
import dev.tine.agent.bootstrap.TineHooks;
import dev.tine.agent.state.ArrivalCurve;
import dev.tine.agent.state.ArrivalTable;
import dev.tine.agent.state.Host;
import dev.tine.agent.state.Kind;
import dev.tine.agent.state.LoopMeter;
import dev.tine.agent.state.PoolNames;
import dev.tine.agent.state.PoolState;
import dev.tine.agent.state.PoolTally;
import dev.tine.agent.state.Registry;
import dev.tine.agent.state.ThreadSet;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Delayed;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The agent's side of the instrumented points (see {@link Advices} for where they are). Runs on the
 * application's threads, inside the pools' own methods: it takes only its own short leaf locks (a
 * stripe of an {@link ArrivalTable}, a pool's {@link ThreadSet} the first time a thread works for
 * the pool), never blocks otherwise, and calls no application code except {@code getDelay} on a
 * scheduled task the pool has just taken (the pool's queue calls it all the time).
 *
 * <p><b>Why no task wrappers.</b> The pools keep the application's own task objects: the arrival
 * time waits in a side table keyed by the task's identity (weakly), and the pool thread finds it
 * when {@code getTask} hands it the task. So {@code getQueue()}, {@code remove(task)}, {@code
 * shutdownNow()} and the subclass hooks {@code beforeExecute}/{@code afterExecute} see exactly what
 * they saw without the agent, and an exception thrown by a task keeps its stack trace.
 *
 * <p><b>Per thread</b>, a {@link Slot} (in a {@code ThreadLocal}) holds the pool the thread works
 * for, its recorder, and the task it is running, so the end of a task (the next {@code getTask}, or
 * the thread's exit) finds its arrival and start times.
 */
public final class AgentHooks implements TineHooks {
  private static final VarHandle FJ_PENDING, UNSEEN_STARTS;

  static {
    try {
      FJ_PENDING =
          MethodHandles.lookup().findStaticVarHandle(TineBridge.class, "fjPending", int.class);
      UNSEEN_STARTS =
          MethodHandles.lookup().findStaticVarHandle(TineBridge.class, "unseenStarts", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** What a pool thread is doing, for the pool it works for. */
  static final class Slot {
    PoolState st;
    ThreadSet.Member member;
    PoolTally rec;
    boolean running;
    long arrival, start;

    /** End of the task's run, stamped at {@code afterExecute} (0: not stamped, read at the end). */
    long end;

    Object task;

    /** Counts the tasks this thread began (a request uses its task's arrival once). */
    long taskSeq;

    /** The request the thread is handling, if any. */
    final RequestClock request = new RequestClock();

    /**
     * The thread's slot for another pool whose task is this task itself, handed on to this pool (a
     * Jetty {@code ExecutorThreadPool}'s job run by the executor under it): it ends with this task.
     */
    Slot rider;

    /**
     * The thread's slot for another pool whose task runs inside this one's, or outside it (a list,
     * usually of one).
     */
    Slot nested;
  }

  /**
   * An event loop's thread (Netty's {@code NioEventLoop}): where it is in its loop, and its I/O
   * phase as a stand-in task for the requests it handles there. That phase is no pool task (not
   * counted nor timed as one): it only gives the loop's requests their arrival, the time the loop's
   * {@code select} returned ({@link #io}'s arrival), and a new {@code taskSeq} per ready channel,
   * so that each channel's first request waited from that return.
   */
  static final class LoopClock {
    final PoolState st;
    final LoopMeter meter;
    final Slot io = new Slot();
    long ioStart, tasksStart;
    boolean inTasks;

    LoopClock(PoolState st, LoopMeter meter) {
      this.st = st;
      this.meter = meter;
      io.st = st;
    }
  }

  private final Host host;
  private final Registry reg;
  private final ThreadLocal<Slot> slots = new ThreadLocal<>();
  private final ThreadLocal<LoopClock> loops = new ThreadLocal<>();

  /** Arrival times of external ForkJoinPool submissions waiting to run, for every such pool. */
  public final ArrivalTable forkJoinPending;

  /**
   * Tasks a server's pool hands on to another executor to queue and run ({@link Family#delegates}:
   * Jetty's {@code ExecutorThreadPool}), owned by the server pool's state: the executor's start of
   * the task starts it for the server's pool too.
   */
  final ArrivalTable delegated;

  /** Entries in {@link #delegated} (a start looks there only while there are some). */
  private final java.util.concurrent.atomic.AtomicInteger delegatedPending =
      new java.util.concurrent.atomic.AtomicInteger();

  /**
   * Requests that left their thread without ending (Servlet async), by the server's request object,
   * until the server dispatches them again ({@link #reqResume}): a request object is suspended once
   * at a time, so an entry still there when it is suspended again is one never resumed (replaced).
   */
  private final ArrivalTable suspended;

  /** Entries in {@link #suspended} (a dispatch looks there only while there are some). */
  private final java.util.concurrent.atomic.AtomicInteger suspendedCount =
      new java.util.concurrent.atomic.AtomicInteger();

  /** The worker loops whose threads may take a task unseen after an attach (see below). */
  private static final String JDK_POOL = "java.util.concurrent.ThreadPoolExecutor",
      TOMCAT_POOL = "org.apache.tomcat.util.threads.ThreadPoolExecutor";

  /**
   * Threads that ran a pool's worker loop ({@code runWorker}) when the agent arrived and have not
   * joined a pool since (true: Tomcat's pool, counted in {@link TineBridge#unseenStarts}). Such a
   * thread may be inside a {@code getTask} frame that began before the classes were instrumented:
   * that frame runs on in the old code, so the task it returns starts unseen. The task starts at
   * its {@code beforeExecute} instead ({@link #tpeRunStart}, {@link #famRunStart}). A thread leaves
   * the set when it first joins a pool ({@link #join}), or at a tick once it has ended.
   */
  private final java.util.concurrent.ConcurrentHashMap<Thread, Boolean> unseen =
      new java.util.concurrent.ConcurrentHashMap<>();

  public AgentHooks(Host host, Registry reg) {
    this.host = host;
    this.reg = reg;
    this.forkJoinPending =
        new ArrivalTable(host.config().pendingCapacity() * 4) {
          @Override
          protected void onExpunged(Entry e) {
            FJ_PENDING.getAndAdd(-1);
            if (e.owner instanceof PoolState st) st.timedPending.decrementAndGet();
          }
        };
    this.delegated =
        new ArrivalTable(host.config().pendingCapacity()) {
          @Override
          protected void onExpunged(Entry e) {
            delegatedPending.decrementAndGet(); // handed on, never started (refused, dropped)
          }
        };
    this.suspended =
        new ArrivalTable(host.config().pendingCapacity()) {
          @Override
          protected boolean isWaiting(Object request) {
            return false;
          }

          @Override
          protected void onExpunged(Entry e) {
            suspendedCount.decrementAndGet(); // never resumed, or its request object collected
          }
        };
  }

  private static Kind tpeKind(Object pool) {
    return pool instanceof ScheduledThreadPoolExecutor ? Kind.SCHEDULED : Kind.THREAD_POOL;
  }

  // ---------------------------------------------------------------------------------------------
  // ThreadPoolExecutor

  @Override
  public void tpeCreated(Object pool) {
    PoolState st = reg.getOrCreate(pool, tpeKind(pool));
    if (st != null && st.createdAt == null) st.createdAt = PoolNames.creationSite(pool.getClass());
  }

  @Override
  public void tpeExecute(Object pool, Object task) {
    // the clock first: the registry's look-up is not the task's wait (sub-ms waits read short)
    long now = System.nanoTime();
    PoolState st = reg.getOrCreate(pool, tpeKind(pool));
    if (st == null || st.kind == Kind.SCHEDULED) return; // scheduled tasks arrive when they are due
    if (st.frozen) {
      st.lateArrivals.increment();
      return;
    }
    long arrival = st.meter().arrive(now);
    // A deep FIFO queue: while the curve is active every arrival without an entry goes there, so
    // the k-th start without an entry is matched to the k-th such arrival.
    ArrivalCurve c = st.activeCurve();
    if (c != null && c.arrive(arrival)) return;
    if (!st.timeThis()) return;
    // Count the entry before it exists, so a pool thread that takes the task at once still looks.
    if (st.timedPending.incrementAndGet() <= host.config().pendingCapacity()
        && st.pending().put(task, arrival, st)) {
      return;
    }
    st.timedPending.decrementAndGet();
    // The table is full: the queue holds more timed tasks than it keeps. Not dropped: a FIFO
    // queue's arrivals go to the curve from now on (other queues: untimed, still counted).
    c = st.overflowCurve();
    if (c != null) c.arrive(arrival);
  }

  @Override
  public void tpeReject(Object pool, Object task) {
    PoolState st = reg.getOrCreate(pool, tpeKind(pool));
    if (st == null) return;
    if (st.frozen) {
      if (st.kind == Kind.SCHEDULED) st.lateArrivals.increment();
      st.lateRejections.increment();
      return;
    }
    PoolTally m = st.meter();
    if (st.kind == Kind.SCHEDULED) m.arrive(); // its arrival was not counted at submission
    m.reject();
    if (st.timedPending.get() > 0 && st.pending().remove(task) != ArrivalTable.ABSENT) {
      st.timedPending.decrementAndGet();
      return;
    }
    // refused without an entry while the curve is active: it was the newest arrival there
    ArrivalCurve c = st.kind == Kind.SCHEDULED ? null : st.activeCurve();
    if (c != null) c.takeNewest();
  }

  @Override
  public void tpeIdle(Object pool) {
    Slot s = slotOf(pool);
    if (s != null && s.running) finish(s, false);
  }

  @Override
  public void tpeTaken(Object pool, Object task) {
    PoolState st = reg.getOrCreate(pool, tpeKind(pool));
    if (st == null) return;
    Slot s = bind(st);
    if (s.running) finish(s, false);
    begin(s, task, arrivalOf(st, task));
    if (delegatedPending.get() > 0) startDelegated(s, task);
  }

  @Override
  public void tpeWorkerStart(Object pool, Object firstTask) {
    PoolState st = reg.getOrCreate(pool, tpeKind(pool));
    if (st == null) return;
    Slot s = bind(st);
    if (firstTask != null) {
      begin(s, firstTask, arrivalOf(st, firstTask, false));
      if (delegatedPending.get() > 0) startDelegated(s, firstTask);
    }
  }

  /**
   * The executor's thread starts {@code task} (its slot {@code s}): if a server's pool handed it on
   * to this executor, it starts for that pool too, in a slot nested in {@code s}, and ends with it.
   */
  private void startDelegated(Slot s, Object task) {
    ArrivalTable.Entry e = delegated.take(task);
    if (e == null) return;
    delegatedPending.decrementAndGet();
    PoolState st = (PoolState) e.owner;
    if (st.frozen) return;
    Slot r = bind(st);
    if (r == s) return; // the same pool (cannot be: a server pool is not a JDK pool)
    if (r.running) finish(r, false);
    begin(r, task, e.arrival);
    s.rider = r;
  }

  @Override
  public void tpeWorkerExit(Object pool, Throwable thrown) {
    Slot s = slotOf(pool);
    if (s == null) return;
    if (s.running) finish(s, thrown != null);
    leave(s);
  }

  @Override
  public void tpeRunStart(Object pool, Object task) {
    Slot s = slotOf(pool);
    if (s != null && s.running) {
      if (s.arrival != PoolTally.UNTIMED) s.start = System.nanoTime();
    } else if (!unseen.isEmpty() && unseen.containsKey(Thread.currentThread())) {
      tpeTaken(pool, task); // taken in a getTask frame older than the agent: it starts here
    }
  }

  @Override
  public void tpeRunEnd(Object pool, Throwable thrown) {
    Slot s = slotOf(pool);
    if (s == null || !s.running) return;
    if (s.arrival != PoolTally.UNTIMED) s.end = System.nanoTime();
    if (thrown != null) tpeWorkerExit(pool, thrown); // the thread ends: take it out now
  }

  /** The arrival time of a task a pool thread has just taken from the queue, or UNTIMED. */
  private long arrivalOf(PoolState st, Object task) {
    return arrivalOf(st, task, true);
  }

  /**
   * The arrival time of a task a pool thread starts, or UNTIMED: {@code queued} if it came out of
   * the queue, else it was handed to a new thread as its first task (it bypassed the queue: if it
   * has no entry, it is the newest arrival in the curve, not the oldest).
   */
  private long arrivalOf(PoolState st, Object task, boolean queued) {
    if (st.kind == Kind.SCHEDULED) {
      // A scheduled task arrives when it is due: count it now, and date it back to its due time.
      long a = st.meter().arrive();
      if (a == PoolTally.UNTIMED || !st.timeThis()) return PoolTally.UNTIMED;
      if (task instanceof Delayed d) {
        try {
          long late = -d.getDelay(TimeUnit.NANOSECONDS);
          if (late > 0) a -= late;
        } catch (RuntimeException e) {
          host.failed(e); // the application's getDelay threw: time it from now
        }
      }
      return a == PoolTally.UNTIMED ? 1 : a;
    }
    if (st.timedPending.get() > 0) {
      long a = st.pending().remove(task);
      if (a != ArrivalTable.ABSENT) {
        st.timedPending.decrementAndGet();
        return a;
      }
    }
    ArrivalCurve c = st.activeCurve();
    if (c == null) return PoolTally.UNTIMED;
    // Taken whether timed or not (the curve's order must follow every start); timed as the
    // arrivals of the table are, one in sampleEvery, so the timed tasks are not biased to the
    // deep queue's.
    long a = queued ? c.takeOldest() : c.takeNewest();
    return st.timeThis() ? a : PoolTally.UNTIMED;
  }

  // ---------------------------------------------------------------------------------------------
  // Pool threads

  /**
   * The calling thread's slot, bound to {@code st} (registering the thread with the pool once).
   *
   * <p><b>Nested pools.</b> When a task of another pool is running on this thread (Jetty's {@code
   * ExecutorThreadPool} over a {@code ThreadPoolExecutor}, a Netty group whose threads are a j.u.c
   * pool's tasks), {@code st}'s task runs inside it: it gets a slot of its own, so each pool is
   * timed by its own start and end and neither ends the other's task (rebinding the one slot ended
   * the outer pool's task at the inner one's start: Jetty over a TPE read the TPE's S at less than
   * half its tasks' own). When no task of the thread's pool runs, the thread moved: it leaves its
   * pools for {@code st}.
   */
  private Slot bind(PoolState st) {
    Slot head = slots.get();
    if (head == null) {
      head = new Slot();
      slots.set(head);
    }
    for (Slot s = head; s != null; s = s.nested) {
      if (s.st == st) return s;
    }
    if (head.st == null) {
      join(head, st);
      return head;
    }
    for (Slot s = head; s != null; s = s.nested) {
      if (s.running) {
        Slot n = new Slot();
        n.nested = head.nested;
        head.nested = n;
        join(n, st);
        return n;
      }
    }
    for (Slot s = head.nested; s != null; s = s.nested) unbind(s);
    head.nested = null;
    unbind(head);
    join(head, st);
    return head;
  }

  private void join(Slot s, PoolState st) {
    PoolTally r = st.tryRecorder();
    s.st = st;
    s.rec = r;
    Thread t = Thread.currentThread();
    s.member = st.threads.join(t, r);
    if (!unseen.isEmpty()) seen(t); // it started a task the agent saw, or this one is started
  }

  /** The calling thread's slot for the pool {@code pool}, or null. */
  private Slot slotOf(Object pool) {
    for (Slot s = slots.get(); s != null; s = s.nested) {
      if (s.st != null && s.st.ref.refersTo(pool)) return s;
    }
    return null;
  }

  /** The calling thread leaves the pool of {@code s} (its thread ends); its other pools stay. */
  private void leave(Slot s) {
    unbind(s);
    Slot head = slots.get();
    if (head == s) {
      if (s.nested == null) slots.remove();
      else slots.set(s.nested);
    } else {
      for (Slot p = head; p != null; p = p.nested) {
        if (p.nested == s) {
          p.nested = s.nested;
          break;
        }
      }
    }
    s.nested = null;
  }

  private void unbind(Slot s) {
    PoolState st = s.st;
    if (st == null) return;
    if (s.running) finish(s, false);
    PoolTally r = st.threads.leave(s.member);
    if (r != null) {
      PoolTally m = st.meterIfPresent();
      if (m != null) m.release(r);
      st.recorderGone();
    }
    s.st = null;
    s.rec = null;
    s.member = null;
  }

  private static void begin(Slot s, Object task, long arrival) {
    s.taskSeq++;
    s.task = task;
    s.arrival = arrival;
    s.end = 0;
    s.start = arrival != PoolTally.UNTIMED ? System.nanoTime() : 0;
    s.running = true;
  }

  private void finish(Slot s, boolean threw) {
    Slot r = s.rider;
    if (r != null) {
      s.rider = null;
      if (r.running && r.task == s.task) {
        r.end = s.end;
        finish(r, threw);
      }
    }
    long end = s.arrival == PoolTally.UNTIMED ? 0 : s.end != 0 ? s.end : System.nanoTime();
    s.end = 0;
    Object task = s.task;
    s.task = null;
    s.running = false;
    boolean failed = threw || futureFailed(task);
    if (s.rec != null) s.rec.record(s.arrival, s.start, end, failed);
    else s.st.meter().completed(failed);
  }

  /**
   * Whether a task handed in through {@code submit} ended exceptionally. Only the JDK's own futures
   * are asked (their {@code state()} reads a field); an application's subclass is not called.
   */
  private static boolean futureFailed(Object task) {
    if (task instanceof FutureTask<?> f
        && task.getClass().getModule() == FutureTask.class.getModule()) {
      return f.state() == Future.State.FAILED;
    }
    return false;
  }

  // ---------------------------------------------------------------------------------------------
  // ForkJoinPool

  @Override
  public void fjCreated(Object pool) {
    PoolState st = reg.getOrCreate(pool, Kind.FORK_JOIN);
    if (st != null && st.createdAt == null) st.createdAt = PoolNames.creationSite(pool.getClass());
  }

  @Override
  public void fjSubmit(Object pool, Object task) {
    if (Thread.currentThread() instanceof ForkJoinWorkerThread w && w.getPool() == pool)
      return; // internal
    external(pool, task);
  }

  @Override
  public void fjFork(Object task) {
    if (Thread.currentThread() instanceof ForkJoinWorkerThread) return; // a fork inside a pool
    external(ForkJoinPool.commonPool(), task);
  }

  /**
   * An external submission. Every one gets an entry (timed or not): only the entry tells {@code
   * doExec} that a task came from outside, so completions stay exact under sampling.
   */
  private void external(Object pool, Object task) {
    // the virtual-thread scheduler is measured as virtual threads' carrier pool, not here
    if (((VirtualThreadFamily) Families.of(VirtualThreadFamily.ID)).isScheduler(pool)) return;
    PoolState st = reg.getOrCreate(pool, Kind.FORK_JOIN);
    if (st == null) return;
    if (st.frozen) {
      st.lateArrivals.increment();
      return;
    }
    long arrival = st.meter().arrive();
    if (arrival != PoolTally.UNTIMED && !st.timeThis()) arrival = PoolTally.UNTIMED;
    if (st.timedPending.incrementAndGet() > host.config().pendingCapacity()) {
      st.timedPending.decrementAndGet();
      return;
    }
    FJ_PENDING.getAndAdd(1);
    if (!forkJoinPending.put(task, arrival, st)) {
      FJ_PENDING.getAndAdd(-1);
      st.timedPending.decrementAndGet();
    }
  }

  @Override
  public void fjRejected(Object pool, Object task, Throwable thrown) {
    if (!(thrown instanceof RejectedExecutionException)) return;
    if (Thread.currentThread() instanceof ForkJoinWorkerThread w && w.getPool() == pool) return;
    PoolState st = reg.get(pool);
    if (st == null) return;
    if (st.frozen) {
      st.lateRejections.increment();
      return;
    }
    st.meter().reject();
    ArrivalTable.Entry e = forkJoinPending.take(task);
    if (e != null) {
      e.clear();
      FJ_PENDING.getAndAdd(-1);
      st.timedPending.decrementAndGet();
    }
  }

  @Override
  public Object fjStart(Object task) {
    ArrivalTable.Entry e = forkJoinPending.take(task);
    if (e == null) return null;
    FJ_PENDING.getAndAdd(-1);
    ((PoolState) e.owner).timedPending.decrementAndGet();
    e.start = e.arrival != PoolTally.UNTIMED ? System.nanoTime() : 0;
    return e;
  }

  @Override
  public void fjEnd(Object token) {
    ArrivalTable.Entry e = (ArrivalTable.Entry) token;
    long end = e.arrival != PoolTally.UNTIMED ? System.nanoTime() : 0;
    PoolState st = (PoolState) e.owner;
    Object task = e.get();
    e.clear();
    boolean failed = task instanceof ForkJoinTask<?> f && f.isCompletedAbnormally();
    if (Thread.currentThread() instanceof ForkJoinWorkerThread w && st.ref.refersTo(w.getPool())) {
      Slot s = bind(st);
      if (s.rec != null) {
        s.rec.record(e.arrival, e.start, end, failed);
        return;
      }
    }
    // Run by a thread outside the pool (a caller that took its own task back): counted, untimed.
    st.meter().completed(failed);
  }

  // ---------------------------------------------------------------------------------------------
  // Tine

  @Override
  public void tineSubmit(Object pool) {
    PoolState st = reg.getOrCreate(pool, Kind.TINE);
    if (st != null) st.tineArrivals.increment();
  }

  // ---------------------------------------------------------------------------------------------
  // Executor families (servers' pools): the same task path as ThreadPoolExecutor's

  /** The state of the pool {@code point} names for family {@code fam}, made if needed; or null. */
  private PoolState famState(int fam, Object point) {
    Family f = Families.of(fam);
    Object pool = f == null ? null : f.poolOf(point);
    if (pool == null) return null;
    PoolState st = reg.getOrCreate(pool, Kind.SERVER);
    if (st != null && st.family == null) st.family = f;
    return st;
  }

  /** A server pool's family: set by {@link #famState}, so always one of {@link Families#ALL}. */
  private static Family family(PoolState st) {
    return (Family) st.family;
  }

  /** The pool the calling thread is bound to, if it belongs to family {@code fam}. */
  private PoolState boundState(int fam) {
    Family f = Families.of(fam);
    for (Slot s = slots.get(); s != null; s = s.nested) {
      if (s.st != null && s.st.family == f) return s.st;
    }
    return null;
  }

  @Override
  public void famCreated(int fam, Object pool) {
    PoolState st = famState(fam, pool);
    if (st != null && st.createdAt == null) st.createdAt = PoolNames.creationSite(pool.getClass());
  }

  @Override
  public void famArrive(int fam, Object pool, Object task, Object detail) {
    PoolState st = famState(fam, pool);
    if (st == null || !family(st).counts(detail)) return;
    if (st.frozen) {
      st.lateArrivals.increment();
      return;
    }
    if (family(st).repeat == Family.Repeat.SAME && st.timedPending.get() > 0) {
      long earlier = st.pending().remove(task);
      if (earlier != ArrivalTable.ABSENT) {
        if (!st.pending().put(task, earlier, st)) st.timedPending.decrementAndGet();
        return; // already counted, at its first point
      }
    }
    long arrival = st.meter().arrive();
    boolean timed = arrival != PoolTally.UNTIMED && st.timeThis();
    if (family(st).startsHere(detail)) {
      // runs at once on this thread: it waited for nothing
      Slot s = bind(st);
      if (s.running) finish(s, false);
      begin(s, task, timed ? arrival : PoolTally.UNTIMED);
      return;
    }
    // See Family.Repeat.STALE: an entry still there is a use whose start was not seen.
    while (family(st).repeat == Family.Repeat.STALE
        && st.timedPending.get() > 0
        && st.pending().remove(task) != ArrivalTable.ABSENT) {
      st.timedPending.decrementAndGet();
    }
    if (!timed) {
      if (!family(st).startsOnlyIfArrived) return;
      arrival = PoolTally.UNTIMED; // an entry all the same: only an entry makes its start count
    }
    if (family(st).delegates(pool)) {
      // the executor under the pool queues and starts it (tpeTaken): the entry waits there
      if (delegatedPending.incrementAndGet() > host.config().pendingCapacity()
          || !delegated.put(task, arrival, st)) {
        delegatedPending.decrementAndGet();
      }
      return;
    }
    if (st.timedPending.incrementAndGet() > host.config().pendingCapacity()
        || !st.pending().put(task, arrival, st)) {
      st.timedPending.decrementAndGet();
    }
  }

  @Override
  public void famReject(int fam, Object pool, Object task) {
    PoolState st = famState(fam, pool);
    if (st == null) return;
    if (st.frozen) {
      st.lateRejections.increment();
      return;
    }
    boolean hadEntry =
        st.timedPending.get() > 0 && st.pending().remove(task) != ArrivalTable.ABSENT;
    if (hadEntry) st.timedPending.decrementAndGet();
    // a family that counts only some arrivals (those with entries) counts only their rejections
    if (hadEntry || !family(st).startsOnlyIfArrived) st.meter().reject();
  }

  @Override
  public void famStart(int fam, Object pool, Object task) {
    PoolState st = pool == null ? boundState(fam) : famState(fam, pool);
    if (st == null) return;
    long arrival;
    if (family(st).startsOnlyIfArrived) {
      long a = st.timedPending.get() > 0 ? st.pending().remove(task) : ArrivalTable.ABSENT;
      if (a == ArrivalTable.ABSENT) return; // a task that did not arrive through the pool
      st.timedPending.decrementAndGet();
      arrival = a;
    } else {
      arrival = arrivalOf(st, task);
    }
    Slot s = bind(st);
    if (s.running) finish(s, false);
    begin(s, task, arrival);
  }

  @Override
  public void famRunStart(int fam, Object pool, Object task) {
    Thread t = Thread.currentThread();
    if (!unseen.containsKey(t)) return;
    PoolState st = famState(fam, pool);
    if (st == null) return;
    Slot s = bind(st);
    if (s.running) {
      seen(t); // its start was seen at getTask (it ran the loop when the set was made, no more)
      return;
    }
    begin(s, task, arrivalOf(st, task)); // taken in a getTask frame older than the agent
  }

  /**
   * The threads now running a pool's worker loop may be inside a {@code getTask} frame that began
   * before the pools' classes were instrumented: their next task starts at its {@code
   * beforeExecute}. Called once, after the instrumentation (a frame that began before it is still
   * running then). Returns the threads of JDK pools that are running a task (in {@code runWorker}
   * but not in {@code getTask}), for {@link #runningWorkers}.
   */
  public java.util.List<Thread> expectUnseenStarts() {
    java.util.List<Thread> running = new java.util.ArrayList<>();
    for (var e : Thread.getAllStackTraces().entrySet()) {
      StackTraceElement[] frames = e.getValue();
      for (int i = frames.length - 1; i >= 0; i--) { // the loop is near the thread's bottom
        if (!frames[i].getMethodName().equals("runWorker")) continue;
        String c = frames[i].getClassName();
        boolean family = c.equals(TOMCAT_POOL);
        if ((family || c.equals(JDK_POOL)) && unseen.putIfAbsent(e.getKey(), family) == null) {
          if (family) UNSEEN_STARTS.getAndAdd(1);
        }
        if (c.equals(JDK_POOL) && !inGetTask(frames, i)) running.add(e.getKey());
        break;
      }
    }
    return running;
  }

  private static boolean inGetTask(StackTraceElement[] frames, int loop) {
    for (int i = 0; i < loop; i++) {
      if (frames[i].getMethodName().equals("getTask")) return true;
    }
    return false;
  }

  /**
   * JDK pool threads that were running a task at the attach: their pools are measured from now on,
   * with those threads. A pool whose tasks never end (an event loop run as one task of an
   * application's pool) would otherwise show nowhere, since none of its tasks passes a point the
   * agent sees; so it gets its row as it does with {@code -javaagent}: no arrival, no end, L the
   * tasks running through the window. Needs {@link TineBridge#workerPool}'s packages open.
   */
  public void runningWorkers(java.util.List<Thread> threads) {
    for (Thread t : threads) {
      Object pool;
      try {
        pool = TineBridge.workerPool(t);
      } catch (ReflectiveOperationException | RuntimeException e) {
        host.failed(e); // a JDK without those fields: such pools show once a task passes
        return;
      }
      if (pool == null || !t.isAlive()) continue;
      PoolState st = reg.getOrCreate(pool, tpeKind(pool));
      if (st == null || st.frozen) continue;
      st.meter(); // its window runs from now, whether or not a task of it starts or ends
      st.threads.ensure(t);
    }
  }

  /** Forgets the threads of {@link #unseen} that have ended (ticker). */
  public void forgetEndedThreads() {
    if (unseen.isEmpty()) return;
    for (Thread t : unseen.keySet()) {
      if (!t.isAlive()) seen(t);
    }
  }

  private void seen(Thread t) {
    if (Boolean.TRUE.equals(unseen.remove(t))) UNSEEN_STARTS.getAndAdd(-1);
  }

  @Override
  public void famEnd(int fam, Object pool, Object detail, Throwable thrown) {
    Family f = Families.of(fam);
    if (f == null || !f.endsHere(detail)) return;
    Object p = pool == null ? null : f.poolOf(pool);
    for (Slot s = slots.get(); s != null; s = s.nested) {
      if (!s.running || s.st == null || s.st.family != f) continue;
      if (p != null && !s.st.ref.refersTo(p)) continue;
      finish(s, thrown != null);
      return;
    }
  }

  @Override
  public void famThread(
      int fam, Object pool, Object firstTask, boolean starting, Throwable thrown) {
    PoolState st = famState(fam, pool);
    if (st == null) return;
    if (starting) {
      Slot s = bind(st);
      if (firstTask != null) begin(s, firstTask, arrivalOf(st, firstTask));
      return;
    }
    Slot s = null;
    for (Slot t = slots.get(); t != null; t = t.nested) {
      if (t.st == st) s = t;
    }
    if (s == null) return;
    if (s.running) finish(s, thrown != null);
    leave(s);
  }

  @Override
  public void famEvent(int fam, Object pool, Object detail) {
    Family f = Families.of(fam);
    if (f != null) f.event(f.poolOf(pool), detail);
  }

  // ---------------------------------------------------------------------------------------------
  // Requests (a server's per-request entry point, on a thread running one of a pool's tasks)

  @Override
  public void reqBegin(int fam, Object detail) {
    Family f = Families.of(fam);
    if (f != null && f.isRequest(detail)) begin(f, detail);
  }

  @Override
  public void reqEnd(int fam, Object detail, Throwable thrown) {
    Family f = Families.of(fam);
    if (f == null || !f.isRequest(detail)) return;
    Slot s = openRequestSlot(f);
    if (s == null) return;
    if (thrown == null && s.request.outermost() && f.suspended(detail)) {
      suspend(s, detail);
    } else {
      s.request.end(thrown != null);
    }
  }

  /**
   * The request open in {@code s} leaves its thread without ending (Servlet async): it waits, with
   * what it has held so far, for the server to dispatch it again. With no room left it ends here.
   */
  private void suspend(Slot s, Object request) {
    RequestClock.Suspension p = s.request.suspend(s);
    if (p == null) return;
    if (suspendedCount.incrementAndGet() > host.config().pendingCapacity()
        || !suspended.put(request, 0, p)) {
      suspendedCount.decrementAndGet();
      p.record(false);
    }
  }

  /**
   * A suspended request's later dispatch ({@code begin}) or its return: the request goes on, in the
   * pool task that runs the dispatch, its wait for that task and the time it holds the thread added
   * to its own; it ends where the server ends it (the dispatch returns and it is no longer
   * suspended).
   */
  @Override
  public void reqResume(int fam, Object detail, boolean begin, Throwable thrown) {
    Family f = Families.of(fam);
    if (f == null || detail == null) return;
    if (begin) {
      if (suspendedCount.get() == 0) return;
      ArrivalTable.Entry e = suspended.take(detail);
      if (e == null) return; // began before the agent, or not suspended
      suspendedCount.decrementAndGet();
      RequestClock.Suspension p = (RequestClock.Suspension) e.owner;
      e.clear();
      if (p.serverStart != 0 && p.serverStart != f.requestStart(detail)) {
        p.record(false); // left by a request that ended unseen: this object serves another now
        return;
      }
      Slot s = requestSlot(f);
      if (s == null || s.st == null || !s.running || s.st.frozen || !s.request.resume(s, p)) {
        p.record(false); // dispatched outside a measured task: it ends with what it held
      }
      return;
    }
    Slot s = openRequestSlot(f);
    if (s == null || !s.request.resumed()) return;
    if (thrown == null && s.request.outermost() && f.suspended(detail)) {
      suspend(s, detail);
    } else {
      s.request.end(thrown != null);
    }
  }

  @Override
  public void reqDone(int fam) {
    Slot s = openRequestSlot(Families.of(fam));
    if (s != null) s.request.done();
  }

  @Override
  public void reqAt(int fam, Object point, Object detail, boolean begin, Throwable thrown) {
    Family f = Families.of(fam);
    if (f == null || !f.isRequestAt(point, detail)) return;
    if (begin) {
      begin(f, detail);
    } else {
      Slot s = openRequestSlot(f);
      if (s != null) s.request.end(thrown != null);
    }
  }

  /**
   * A request of family {@code f} begins on this thread: for the task it runs, or for its event
   * loop's I/O phase.
   */
  private void begin(Family f, Object detail) {
    LoopClock c = f.hasLoops() ? loops.get() : null;
    Slot s = c != null && c.io.running ? c.io : requestSlot(f);
    if (s == null || s.st == null || !s.running || s.st.frozen) return; // not in a measured task
    if (s.request.begin(s, f.requestStart(detail)) && c != null && c.meter != null) {
      c.meter.request();
    }
  }

  /**
   * The slot a request counts for: the running task of the request's own server family (a server
   * pool nested in, or over, an application's pool on the same threads: the request is the
   * server's), else the running task of a JDK pool where the family says its requests run there
   * ({@link Family#requestsOnJdkPool}: an older Tomcat's pool, or any pool Tomcat was given as its
   * executor), the innermost one if several run, else none. A request that runs in a task of
   * another pool (Jetty's {@code ExecutorThreadPool} queues it as a task of the application's pool)
   * is not that pool's: counted for it (the thread's first slot), it turned the application pool's
   * row into a fraction of the server's requests in place of its own tasks.
   */
  private Slot requestSlot(Family f) {
    if (f == null) return null;
    Slot head = slots.get();
    for (Slot s = head; s != null; s = s.nested) {
      if (s.running && s.st != null && s.st.family == f) return s;
    }
    if (head == null) return null;
    // innermost first: bind() puts the newest nested slot right after the head
    for (Slot s = head.nested; s != null; s = s.nested) {
      if (jdkRequestSlot(f, s)) return s;
    }
    return jdkRequestSlot(f, head) ? head : null;
  }

  private static boolean jdkRequestSlot(Family f, Slot s) {
    if (!s.running || s.st == null || s.st.family != null) return false;
    Object pool = s.st.ref.get();
    return pool != null && f.requestsOnJdkPool(pool.getClass());
  }

  /** The slot whose request is open on this thread, if any (else the first slot). */
  private Slot openRequestSlot(Family f) {
    LoopClock c = f != null && f.hasLoops() ? loops.get() : null;
    if (c != null && c.io.request.open()) return c.io;
    Slot head = slots.get();
    for (Slot s = head; s != null; s = s.nested) {
      if (s.request.open()) return s;
    }
    return head;
  }

  // ---------------------------------------------------------------------------------------------
  // Event loops

  @Override
  public void loopPhase(int fam, Object loop, int phase) {
    long now = System.nanoTime();
    LoopClock c = loops.get();
    if (c == null) {
      // a loop is followed from its first I/O phase (after an attach: the next one it enters)
      if (phase != NettyFamily.IO_BEGIN) return;
      c = newLoop(fam, loop);
      if (c == null) return;
    }
    switch (phase) {
      case NettyFamily.IO_BEGIN -> {
        // the loop's select has just returned: each ready channel's requests wait from now
        if (c.st.frozen) return;
        c.ioStart = now;
        c.io.arrival = now;
        c.io.start = now;
        c.io.running = true;
      }
      case NettyFamily.KEY -> c.io.taskSeq++; // the next ready channel
      case NettyFamily.IO_END -> {
        if (!c.io.running) return;
        c.io.running = false;
        if (c.meter != null) c.meter.io(now - c.ioStart);
      }
      case NettyFamily.TASKS_BEGIN -> {
        if (c.inTasks) return;
        c.inTasks = true;
        c.tasksStart = now;
      }
      case NettyFamily.TASKS_END -> {
        if (!c.inTasks) return;
        c.inTasks = false;
        if (c.meter != null) c.meter.tasks(now - c.tasksStart);
      }
      default -> {}
    }
  }

  /** The calling thread is an event loop of family {@code fam}'s pool: follows it, or null. */
  private LoopClock newLoop(int fam, Object loop) {
    PoolState st = famState(fam, loop);
    if (st == null || st.frozen) return null;
    bind(st); // one of the group's threads (its name, its CPU), whether or not it runs tasks
    LoopClock c = new LoopClock(st, st.addLoop(Thread.currentThread().getName()));
    loops.set(c);
    return c;
  }
}

package dev.tine.agent.state;

import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.management.ObjectName;

/**
 * What the agent knows of one pool. Holds the pool only weakly, so a pool the application drops is
 * collected and then forgotten (at the next tick). Everything the hooks touch on the task path is
 * final or volatile here; the rest belongs to the ticker, whose tick ({@link #refresh}) reads the
 * pool ({@link PoolGetters}), differences its readings over the window ({@link TickRing}, {@link
 * TallyWindow}) and advises ({@link SizeAdvice}).
 */
public final class PoolState {
  public final int id;
  public final Kind kind;
  public final WeakReference<Object> ref;

  /** The pool's identity hash (the registry's slot). */
  final int hash;

  public final String className;

  /** Where the pool was constructed, if the agent was there to see it. */
  public volatile String createdAt;

  private final Host host;

  /** Made on the pool's first measured activity. */
  private volatile PoolTally meter;

  /** Arrival times of this pool's queued timed tasks (ThreadPoolExecutor), made with the meter. */
  private volatile ArrivalTable pending;

  /**
   * The arrival curve of a FIFO queue's tasks beyond what {@link #pending} holds: made on the first
   * timed arrival the table cannot hold, for a {@code ThreadPoolExecutor} whose queue is one of the
   * JDK's FIFO queues; null otherwise (those tasks run untimed, still counted).
   */
  private volatile ArrivalCurve curve;

  /** Whether the pool's queue is a JDK FIFO queue: 0 not known yet, 1 yes, -1 no. */
  private volatile int fifo;

  /** The curve's excess over the queue at the last tick (ticker only). */
  private long lastCurveExcess;

  /** The window over the tally (ticker only after it is made). */
  private volatile TallyWindow window;

  /** The pool's requests, made at its first request (a server's pool; see {@link RequestView}). */
  private volatile RequestView requests;

  /** Time one task in this many (set by the ticker from the arrival rate). */
  private volatile int sampleEvery = 1;

  /** Timed tasks with an entry in a pending table now (lets pool threads skip the look-up). */
  public final AtomicInteger timedPending = new AtomicInteger();

  /** Recorders held by this pool's threads. */
  final AtomicInteger recorders = new AtomicInteger();

  public final ThreadSet threads = new ThreadSet();

  /** Tine pools: external submissions (exact). */
  public final LongAdder tineArrivals = new LongAdder();

  /** The family of a {@link Kind#SERVER} pool (set by the hooks as the state is made). */
  public volatile ServerFamily family;

  /** The kind shown: the family's label for a server's pool. */
  public String kindLabel() {
    ServerFamily f = family;
    return f != null ? f.label() : kind.label;
  }

  /** The agent's changes to the pool's size, and what it saw of others'. */
  public final SizeRecord sizes = new SizeRecord();

  /** Figures of the last tick, or null before the first. */
  public volatile PoolFigures figures;

  /**
   * Set once the pool has terminated: its figures are final, its meter and recorders are let go (a
   * meter holds a few MB of histograms), and what still happens to it (a terminated pool rejects
   * every task) is counted here.
   */
  public volatile boolean frozen;

  public final LongAdder lateArrivals = new LongAdder(), lateRejections = new LongAdder();

  // Ticker only.
  public ObjectName objectName;
  String name;
  private final TickRing ring;
  private int frozenTicks;
  private long frozenArrivals, frozenRejected;

  PoolState(int id, Kind kind, Object pool, Host host) {
    this.id = id;
    this.kind = kind;
    this.ref = new WeakReference<>(pool);
    this.hash = System.identityHashCode(pool);
    this.className = pool.getClass().getName();
    this.host = host;
    var config = host.config();
    int ticks = (int) Math.max(1, config.window().toNanos() / config.tick().toNanos());
    // The pool's threads' CPU is counted from when they join it: a first sample of 0 now lets the
    // first tick report CPU over its whole period (Tine pools report CPU since their start).
    this.ring = new TickRing(ticks + 1, System.nanoTime(), kind != Kind.TINE);
  }

  /**
   * Whether the pool is shown: once it ran something since the agent arrived (a meter), and a
   * ForkJoinPool also while it has workers (the ticker finds them). A pool only constructed (the
   * common pool when its class initializes) is not, until it is used.
   */
  public boolean isActive() {
    return meter != null || kind == Kind.TINE || kind == Kind.FORK_JOIN && threads.size() > 0;
  }

  public PoolTally meter() {
    PoolTally m = meter;
    return m != null ? m : createMeter();
  }

  public PoolTally meterIfPresent() {
    return meter;
  }

  public ArrivalTable pending() {
    ArrivalTable t = pending;
    if (t == null) {
      meter();
      t = pending;
    }
    return t;
  }

  /**
   * Takes what still reaches a terminated pool's tally in the instant it is frozen (rare races).
   */
  private static final PoolTally SINK = new PoolTally();

  private synchronized PoolTally createMeter() {
    if (frozen) return SINK;
    if (meter == null) {
      pending =
          new ArrivalTable(host.config().pendingCapacity()) {
            @Override
            protected void onExpunged(Entry e) {
              timedPending.decrementAndGet();
            }

            @Override
            protected boolean isWaiting(Object task) {
              return queued(task);
            }
          };
      PoolTally m = new PoolTally();
      window = new TallyWindow(host.config(), System.nanoTime());
      meter = m;
      host.wakeTicker();
    }
    return meter;
  }

  /**
   * Whether {@code task} is in the pool's queue now, compared by identity (the task's own {@code
   * equals} is never called). Asked by the pending table only when a task arrives that still has an
   * arrival on record: a task taken by a pool thread that was already waiting inside {@code
   * getTask} when the agent arrived (whose return the agent did not see) leaves its arrival behind,
   * and a server that reuses its task objects would then have every later wait matched one
   * submission behind. Not queued means that arrival is stale.
   */
  private boolean queued(Object task) {
    if (!(ref.get() instanceof ThreadPoolExecutor p)) return true;
    try {
      for (Object o : p.getQueue()) {
        if (o == task) return true;
      }
      return false;
    } catch (RuntimeException e) {
      host.failed(e);
      return true; // keep the arrival: unknown is not stale
    }
  }

  /** The pool's event loops (Netty's I/O loops), as their threads first handle I/O. */
  private volatile LoopMeter[] loops = new LoopMeter[0];

  /** At most this many loops per group are followed (as threads: {@code ThreadSet}'s bound). */
  static final int MAX_LOOPS = 256;

  /** The calling thread is one of the pool's event loops: its meter, or null past the bound. */
  public synchronized LoopMeter addLoop(String thread) {
    LoopMeter[] ls = loops;
    if (ls.length >= MAX_LOOPS || frozen) return null;
    LoopMeter m = LoopMeter.of(thread, host.config());
    loops = LoopMeter.with(ls, m);
    return m;
  }

  /** The pool's requests, made at the first one; null once the pool is frozen (not counted). */
  public RequestView requests() {
    RequestView r = requests;
    return r != null ? r : createRequests();
  }

  private synchronized RequestView createRequests() {
    if (requests == null && !frozen) requests = new RequestView(host, System.nanoTime());
    return requests;
  }

  /** The arrival curve if arrivals without an entry go there now, else null. */
  public ArrivalCurve activeCurve() {
    ArrivalCurve c = curve;
    return c != null && c.active() ? c : null;
  }

  /**
   * A timed arrival found the pending table full: the curve to record it in from now on (active),
   * or null when the pool's queue is not a JDK FIFO queue (whose order the curve relies on).
   */
  public ArrivalCurve overflowCurve() {
    if (fifo == 0) fifo = fifoQueue() ? 1 : -1;
    if (fifo < 0 || frozen) return null;
    ArrivalCurve c = curve;
    if (c == null) {
      synchronized (this) {
        if (curve == null) curve = new ArrivalCurve();
        c = curve;
      }
    }
    if (!c.active()) c.activate(queuedWithoutEntry());
    return c;
  }

  private static final java.util.Set<Class<?>> FIFO_QUEUES =
      java.util.Set.of(
          java.util.concurrent.LinkedBlockingQueue.class,
          java.util.concurrent.ArrayBlockingQueue.class,
          java.util.concurrent.LinkedBlockingDeque.class,
          java.util.concurrent.LinkedTransferQueue.class);

  /**
   * Whether the pool's queue hands tasks out in their order of arrival: only the JDK's own FIFO
   * queues, by exact class (a subclass may reorder, and a priority queue does).
   */
  private boolean fifoQueue() {
    if (kind != Kind.THREAD_POOL || !(ref.get() instanceof ThreadPoolExecutor p)) return false;
    try {
      return FIFO_QUEUES.contains(p.getQueue().getClass());
    } catch (RuntimeException e) {
      host.failed(e);
      return false;
    }
  }

  /** Tasks in the queue now without an entry in the pending table (its size less the entries). */
  private long queuedWithoutEntry() {
    if (!(ref.get() instanceof ThreadPoolExecutor p)) return 0;
    try {
      return Math.max(0, p.getQueue().size() - timedPending.get());
    } catch (RuntimeException e) {
      host.failed(e);
      return 0;
    }
  }

  /**
   * Once a tick: tasks that left a FIFO queue without starting (removed, purged, discarded by
   * {@code DiscardOldestPolicy}) still hold arrivals in the curve, which would match every later
   * start to an older arrival. Arrivals the curve holds beyond the tasks queued without an entry,
   * on two ticks in a row and beyond what threads in the middle of a poll or a submission can
   * explain, are dropped, oldest first.
   */
  private void resyncCurve(int poolSize) {
    ArrivalCurve c = activeCurve();
    if (c == null || !(ref.get() instanceof ThreadPoolExecutor p)) {
      lastCurveExcess = 0;
      return;
    }
    // the curve first, the queue right after: an arrival in between only lowers the excess (the
    // tick's own reading of the queue came earlier, and a burst's arrivals since then read as an
    // excess: 50,000 queued lost a few thousand arrivals that way)
    long held = c.held();
    int queued;
    try {
      queued = p.getQueue().size();
    } catch (RuntimeException e) {
      host.failed(e);
      return;
    }
    long excess = held - Math.max(0, queued - timedPending.get());
    long slack = Math.max(0, poolSize) + 16;
    long drop = Math.min(excess, lastCurveExcess) - slack;
    lastCurveExcess = excess;
    if (drop > 0) c.dropOldest(drop);
  }

  /** Whether to time the task arriving now. */
  public boolean timeThis() {
    int k = sampleEvery;
    return k <= 1 || ThreadLocalRandom.current().nextInt(k) == 0;
  }

  /**
   * The tally the calling pool thread records into. Every thread of every pool is timed alike: the
   * tally is shared, so a thread costs the pool no heap of its own (a frozen pool's threads get a
   * sink). Never null.
   */
  public PoolTally tryRecorder() {
    recorders.incrementAndGet();
    host.recorders().incrementAndGet();
    return meter();
  }

  public void recorderGone() {
    recorders.decrementAndGet();
    host.recorders().decrementAndGet();
  }

  // ---------------------------------------------------------------------------------------------
  // Ticker

  /**
   * One tick: harvests, reads the pool's getters, refreshes the figures. False once the pool is
   * gone.
   */
  public boolean refresh(long now) {
    Object pool = ref.get();
    if (pool == null) return false;
    if (frozen) {
      PoolFigures last = figures;
      if (last != null) {
        last.arrivals = frozenArrivals + lateArrivals.sum();
        last.rejected = frozenRejected + lateRejections.sum();
      }
      // A terminated pool stays visible for a while (its final figures), then is forgotten even if
      // the application still holds it.
      return ++frozenTicks <= host.config().terminatedTicks();
    }
    for (int gone = threads.refresh(); gone > 0; gone--) recorderGone();
    PoolFigures f = new PoolFigures();
    f.id = id;
    f.kind = kindLabel();
    f.poolClass = className;
    f.createdAt = createdAt != null ? createdAt : "";
    f.measuredMillis = System.currentTimeMillis();
    boolean terminated = false;
    try {
      terminated = PoolGetters.readSizes(pool, kind, family, f);
    } catch (Throwable t) {
      host.failed(t);
    }
    f.cpuTimeNanos = threads.cpuNanos();
    resyncCurve(f.poolSize);
    long executed = 0;
    if (kind == Kind.TINE) {
      try {
        executed = PoolGetters.tineStats(pool, f); // and its steals and CPU
      } catch (Throwable t) {
        host.failed(t);
      }
    }
    pool = null; // do not hold it across the rest of the tick
    long arrivals = tineArrivals.sum();
    ring.add(
        System.nanoTime(), f.cpuTimeNanos, arrivals, executed); // read now, not at the tick's start

    PoolTally m = meter;
    TallyWindow win = window;
    if (m != null && win != null) {
      // the window ends when the counts are read, not when the tick began: a ticker descheduled
      // in between (a loaded machine: a second or more) would count tasks beyond the window it
      // reports
      win.tick(m, System.nanoTime(), f);
      f.measuredMillis = System.currentTimeMillis();
      double timedRate = host.config().timedRate();
      sampleEvery = f.arrivalRate > timedRate ? (int) Math.ceil(f.arrivalRate / timedRate) : 1;
    }
    f.sampleEvery = sampleEvery;
    RequestView rv = requests;
    if (rv != null && m != null) {
      // per request from here on; as for the tasks, the window ends when the requests are counted
      rv.tick(System.nanoTime(), f);
      f.measuredMillis = System.currentTimeMillis();
    }
    LoopMeter[] ls = loops;
    if (ls.length > 0) LoopMeter.figures(ls, f);
    double secs = ring.seconds();
    if (kind == Kind.TINE && secs > 0) {
      f.arrivals = arrivals;
      f.completed = executed;
      f.windowSeconds = secs;
      f.windowArrivals = ring.arrivalsDelta();
      f.windowCompleted = ring.executedDelta();
      f.arrivalRate = f.windowArrivals / secs;
      f.retirementRate = f.windowCompleted / secs;
    }
    long cpuWindow = ring.cpuDelta();
    if (cpuWindow >= 0 && secs > 0) {
      f.cpuPercent = 100.0 * cpuWindow / (secs * 1e9);
      if (f.windowCompleted > 0 && kind != Kind.TINE) {
        f.cpuPerTaskMs = cpuWindow / 1e6 / (f.retirementRate * secs);
      }
    }
    if ((kind == Kind.THREAD_POOL || kind == Kind.SCHEDULED)
        && PoolFigures.TASKS.equals(f.unit)
        && f.windowArrivals == 0
        && f.windowCompleted == 0
        && f.activeCount > 0) {
      // Nothing arrived or ended in the window, so the tasks in the pool now were in it all
      // through (a long task each: a Netty executor's run loop run as one task of the pool). The
      // mean number in the pool over the window is that count: L as a time average, where
      // λ·(Wq+S) is 0·∞. Only a JDK pool's getActiveCount is exact (a ForkJoinPool's counts
      // scanning workers).
      f.littlesL = f.activeCount + Math.max(0, f.queueLength);
    }
    SizeAdvice.advise(f, host.processors(), family);
    f.name = nameNow();
    if (terminated) {
      f.state = "terminated";
      freeze(f);
    }
    figures = f;
    return true;
  }

  /** The pool terminated: keep its figures, let go of its meter, recorders and pending entries. */
  private void freeze(PoolFigures last) {
    frozen = true;
    frozenArrivals = last.arrivals;
    frozenRejected = last.rejected;
    close();
    meter = null;
    window = null;
    requests = null;
  }

  /** The readable name: the threads' common prefix, else class@creation site, else class#id. */
  String nameNow() {
    if (kind == Kind.FORK_JOIN && ref.get() == ForkJoinPool.commonPool())
      return "ForkJoinPool.commonPool";
    if (kind == Kind.TINE && name == null) {
      Object pool = ref.get();
      try {
        if (pool != null) name = PoolGetters.tineName(pool); // its own name
      } catch (ReflectiveOperationException | RuntimeException e) {
        host.failed(e);
      }
      if (name != null) return name;
    }
    List<String> names = threads.names();
    String p = PoolNames.commonPrefix(names);
    if (p != null) {
      name = p;
      return p;
    }
    if (name != null) return name; // keep the name the threads gave it once they are gone
    String simple = PoolNames.simpleName(className);
    return createdAt != null ? simple + "@" + createdAt : simple + "#" + id;
  }

  /** The agent stops: lets go of recorders and pending entries. */
  public void close() {
    for (int held = threads.clear(); held > 0; held--) recorderGone();
    ArrivalTable t = pending;
    if (t != null) t.clear();
    ArrivalCurve c = curve;
    if (c != null) c.clear();
  }
}

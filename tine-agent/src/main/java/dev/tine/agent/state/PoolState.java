package dev.tine.agent.core;

import dev.tine.executor.PoolSizeAdvisor;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.management.ObjectName;

/**
 * What the agent knows of one pool. Holds the pool only weakly, so a pool the application drops is
 * collected and then forgotten (at the next tick). Everything the hooks touch on the task path is
 * final or volatile here; the rest belongs to the ticker.
 */
final class PoolState {
  final int id;
  final Kind kind;
  final WeakReference<Object> ref;

  /** The pool's identity hash (the registry's slot). */
  final int hash;

  final String className;

  /** Where the pool was constructed, if the agent was there to see it. */
  volatile String createdAt;

  private final AgentRuntime rt;

  /** Made on the pool's first measured activity. */
  private volatile PoolTally meter;

  /** Arrival times of this pool's queued timed tasks (ThreadPoolExecutor), made with the meter. */
  private volatile ArrivalTable pending;

  /** The window over the tally (ticker only after it is made). */
  private volatile TallyWindow window;

  /** Time one task in this many (set by the ticker from the arrival rate). */
  volatile int sampleEvery = 1;

  /** Timed tasks with an entry in a pending table now (lets pool threads skip the look-up). */
  final AtomicInteger timedPending = new AtomicInteger();

  /** Recorders held by this pool's threads. */
  final AtomicInteger recorders = new AtomicInteger();

  final ThreadSet threads = new ThreadSet();

  /** Tine pools: external submissions (exact). */
  final LongAdder tineArrivals = new LongAdder();

  /** The family of a {@link Kind#SERVER} pool (set by the hooks as the state is made). */
  volatile Family family;

  /** The kind shown: the family's label for a server's pool. */
  String kindLabel() {
    Family f = family;
    return f != null ? f.label : kind.label;
  }

  /** Figures of the last tick, or null before the first. */
  volatile PoolFigures figures;

  /**
   * Set once the pool has terminated: its figures are final, its meter and recorders are let go (a
   * meter holds a few MB of histograms), and what still happens to it (a terminated pool rejects
   * every task) is counted here.
   */
  volatile boolean frozen;

  final LongAdder lateArrivals = new LongAdder(), lateRejections = new LongAdder();

  // Ticker only.
  ObjectName objectName;
  String name;
  private final long[] cpuRing, tineArrivalRing, tineExecutedRing, ringNanos;
  private int ringIndex, ringFilled;
  private int frozenTicks;

  PoolState(int id, Kind kind, Object pool, AgentRuntime rt) {
    this.id = id;
    this.kind = kind;
    this.ref = new WeakReference<>(pool);
    this.hash = System.identityHashCode(pool);
    this.className = pool.getClass().getName();
    this.rt = rt;
    int n = (int) Math.max(1, rt.config.window().toNanos() / rt.config.tick().toNanos()) + 1;
    cpuRing = new long[n];
    tineArrivalRing = new long[n];
    tineExecutedRing = new long[n];
    ringNanos = new long[n];
    if (kind != Kind.TINE) {
      // The pool's threads' CPU is counted from when they join it: a first sample of 0 now lets the
      // first tick report CPU over its whole period (Tine pools report CPU since their start).
      ringNanos[0] = System.nanoTime();
      ringIndex = ringFilled = 1;
    }
  }

  /**
   * Whether the pool is shown: once it ran something since the agent arrived (a meter), and a
   * ForkJoinPool also while it has workers (the ticker finds them). A pool only constructed (the
   * common pool when its class initializes) is not, until it is used.
   */
  boolean isActive() {
    return meter != null || kind == Kind.TINE || kind == Kind.FORK_JOIN && threads.size() > 0;
  }

  PoolTally meter() {
    PoolTally m = meter;
    return m != null ? m : createMeter();
  }

  PoolTally meterIfPresent() {
    return meter;
  }

  ArrivalTable pending() {
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
          new ArrivalTable(rt.config.pendingCapacity()) {
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
      window = new TallyWindow(rt.config, System.nanoTime());
      meter = m;
      rt.wakeTicker();
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
      rt.failed(e);
      return true; // keep the arrival: unknown is not stale
    }
  }

  /** Whether to time the task arriving now. */
  boolean timeThis() {
    int k = sampleEvery;
    return k <= 1 || ThreadLocalRandom.current().nextInt(k) == 0;
  }

  /**
   * The tally the calling pool thread records into. Every thread of every pool is timed alike: the
   * tally is shared, so a thread costs the pool no heap of its own (a frozen pool's threads get a
   * sink). Never null.
   */
  PoolTally tryRecorder() {
    recorders.incrementAndGet();
    rt.recorders.incrementAndGet();
    return meter();
  }

  void recorderGone() {
    recorders.decrementAndGet();
    rt.recorders.decrementAndGet();
  }

  // ---------------------------------------------------------------------------------------------
  // Ticker

  /**
   * One tick: harvests, reads the pool's getters, refreshes the figures. False once the pool is
   * gone.
   */
  boolean refresh(long now) {
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
      return ++frozenTicks <= rt.config.terminatedTicks();
    }
    for (int gone = threads.refresh(); gone > 0; gone--) recorderGone();
    PoolFigures f = new PoolFigures();
    f.id = id;
    f.kind = kindLabel();
    f.poolClass = className;
    f.createdAt = createdAt != null ? createdAt : "";
    f.measuredMillis = System.currentTimeMillis();
    boolean terminated = readSizes(pool, f);
    pool = null; // do not hold it across the rest of the tick
    f.cpuTimeNanos = threads.cpuNanos();

    // rings for the window's deltas
    long[] tine = kind == Kind.TINE ? tineCounters(f) : null;
    ringNanos[ringIndex] = now;
    cpuRing[ringIndex] = f.cpuTimeNanos;
    if (tine != null) {
      tineArrivalRing[ringIndex] = tine[0];
      tineExecutedRing[ringIndex] = tine[1];
    }
    int oldest = ringFilled < ringNanos.length - 1 ? 0 : (ringIndex + 1) % ringNanos.length;
    ringFilled = Math.min(ringFilled + 1, ringNanos.length - 1);
    double ringSecs = (now - ringNanos[oldest]) / 1e9;
    long cpuWindow =
        f.cpuTimeNanos >= 0 && cpuRing[oldest] >= 0 ? f.cpuTimeNanos - cpuRing[oldest] : -1;
    ringIndex = (ringIndex + 1) % ringNanos.length;

    PoolTally m = meter;
    TallyWindow win = window;
    if (m != null && win != null) {
      win.tick(m, now, f);
      int k =
          f.arrivalRate > rt.config.timedRate()
              ? (int) Math.ceil(f.arrivalRate / rt.config.timedRate())
              : 1;
      sampleEvery = k;
    }
    f.sampleEvery = sampleEvery;
    if (tine != null && ringSecs > 0) {
      f.arrivals = tine[0];
      f.completed = tine[1];
      f.windowSeconds = ringSecs;
      f.windowArrivals = tine[0] - tineArrivalRing[oldest];
      f.windowCompleted = tine[1] - tineExecutedRing[oldest];
      f.arrivalRate = f.windowArrivals / ringSecs;
      f.retirementRate = f.windowCompleted / ringSecs;
    }
    if (cpuWindow >= 0 && ringSecs > 0) {
      f.cpuPercent = 100.0 * cpuWindow / (ringSecs * 1e9);
      if (f.windowCompleted > 0 && kind != Kind.TINE) {
        f.cpuPerTaskMs = cpuWindow / 1e6 / (f.retirementRate * ringSecs);
      }
    }
    advise(f);
    String n = nameNow();
    f.name = n;
    if (terminated) {
      f.state = "terminated";
      freeze(f);
    }
    figures = f;
    return true;
  }

  private long frozenArrivals, frozenRejected;

  /** The pool terminated: keep its figures, let go of its meter, recorders and pending entries. */
  private void freeze(PoolFigures last) {
    frozen = true;
    frozenArrivals = last.arrivals;
    frozenRejected = last.rejected;
    close();
    meter = null;
    window = null;
  }

  /** Reads the pool's public getters into {@code f}; returns whether it has terminated. */
  private boolean readSizes(Object pool, PoolFigures f) {
    try {
      Family fam = family;
      if (fam != null) return fam.readSizes(pool, f);
      if (pool instanceof ThreadPoolExecutor p) {
        f.corePoolSize = p.getCorePoolSize();
        f.maximumPoolSize = p.getMaximumPoolSize();
        f.poolSize = p.getPoolSize();
        f.activeCount = p.getActiveCount();
        f.largestPoolSize = p.getLargestPoolSize();
        f.queueLength = p.getQueue().size();
        if (p.isShutdown() && !p.isTerminated()) f.state = "shutting down";
        return p.isTerminated();
      }
      if (pool instanceof ForkJoinPool p) {
        f.parallelism = p.getParallelism();
        f.corePoolSize = f.maximumPoolSize = f.parallelism;
        f.poolSize = p.getPoolSize();
        f.activeCount = p.getActiveThreadCount();
        f.queueLength =
            (int)
                Math.min(Integer.MAX_VALUE, p.getQueuedSubmissionCount() + p.getQueuedTaskCount());
        f.stealCount = p.getStealCount();
        if (p == ForkJoinPool.commonPool()) return false;
        if (p.isShutdown() && !p.isTerminated()) f.state = "shutting down";
        return p.isTerminated();
      }
      if (kind == Kind.TINE) {
        Class<?> c = pool.getClass();
        f.parallelism = (int) c.getMethod("parallelism").invoke(pool);
        f.corePoolSize = f.maximumPoolSize = f.parallelism;
        f.poolSize = (int) c.getMethod("poolSize").invoke(pool);
        f.activeCount = f.poolSize - (int) c.getMethod("sleepingWorkers").invoke(pool);
        f.queueLength =
            (int) Math.min(Integer.MAX_VALUE, (long) c.getMethod("queuedTasks").invoke(pool));
        return (boolean) c.getMethod("isTerminated").invoke(pool);
      }
    } catch (Throwable t) {
      rt.failed(t);
    }
    return false;
  }

  /**
   * Tine pools: {arrivals, tasks executed}, and steals, CPU into {@code f}, from {@code stats()}.
   */
  private long[] tineCounters(PoolFigures f) {
    long executed = 0;
    Object pool = ref.get();
    if (pool != null) {
      try {
        Object stats = pool.getClass().getMethod("stats").invoke(pool);
        Class<?> s = stats.getClass();
        executed = (long) s.getMethod("tasksExecuted").invoke(stats);
        f.stealCount = (long) s.getMethod("steals").invoke(stats);
        f.cpuTimeNanos = (long) s.getMethod("cpuNanos").invoke(stats);
      } catch (Throwable t) {
        rt.failed(t);
      }
    }
    return new long[] {tineArrivals.sum(), executed};
  }

  private void advise(PoolFigures f) {
    if (!(f.arrivalRate > 0) || !(f.serviceMs > 0) || f.windowCompleted == 0) {
      f.recommendation = f.windowArrivals == 0 ? "idle" : "not enough timed tasks yet";
      return;
    }
    int cores = rt.processors;
    double c = Double.isNaN(f.cpuPerTaskMs) ? Double.NaN : Math.min(f.cpuPerTaskMs, f.serviceMs);
    double maxWait = Math.max(1.0, f.serviceMs);
    try {
      var in =
          new PoolSizeAdvisor.Inputs(f.arrivalRate, f.serviceMs, c, cores, 0.8, 90, maxWait, 4096);
      var r = PoolSizeAdvisor.advise(in);
      f.recommendedSize = r.poolSize();
      Family fam = family;
      double a = f.arrivalRate * f.serviceMs / 1000.0;
      Object cpu = r.figures().get("cpu_demand_cores");
      f.recommendation =
          String.format(
              Locale.ROOT,
              "λS=%.2f busy, ρ=%.2f keeps p90 wait ≤ %.3g ms%s",
              a,
              a / r.poolSize(),
              maxWait,
              cpu instanceof Double d
                  ? String.format(Locale.ROOT, "; CPU %.2f of %d cores", d, cores)
                  : "");
      if (fam != null) f.recommendation += "; " + fam.advice(r.poolSize(), f);
    } catch (IllegalArgumentException e) {
      String msg = e.getMessage();
      if (msg != null && msg.startsWith("CPU capacity")) {
        f.recommendation =
            String.format(
                Locale.ROOT,
                "CPU-bound: needs %.2f cores of %d; more threads will not help",
                f.arrivalRate * c / 1000.0,
                cores);
      } else {
        f.recommendation =
            msg == null ? e.toString() : msg.length() > 100 ? msg.substring(0, 100) + "…" : msg;
      }
      Family fam = family;
      if (fam != null && !fam.extras().isEmpty()) f.recommendation += "; " + fam.extras();
    }
  }

  /** The readable name: the threads' common prefix, else class@creation site, else class#id. */
  String nameNow() {
    if (kind == Kind.FORK_JOIN && ref.get() == ForkJoinPool.commonPool())
      return "ForkJoinPool.commonPool";
    if (kind == Kind.TINE && name == null) {
      Object pool = ref.get();
      try {
        if (pool != null)
          name = String.valueOf(pool.getClass().getMethod("name").invoke(pool)); // its own name
      } catch (ReflectiveOperationException | RuntimeException e) {
        rt.failed(e);
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
  void close() {
    for (int held = threads.clear(); held > 0; held--) recorderGone();
    ArrivalTable t = pending;
    if (t != null) t.clear();
  }
}

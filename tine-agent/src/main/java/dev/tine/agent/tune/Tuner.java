package dev.tine.agent.tune;

import dev.tine.agent.tune.Decision.Action;
import dev.tine.executor.PoolSizeAdvisor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The closed loop of {@code tine tune}: from each pool's settled windows to its size, with the
 * guard rails (tine-agent/DESIGN.md, "Tuning"). Pure logic: the figures come in as {@link
 * PoolWindow}s, the changes go out through an {@link Actuator}, the lines it prints come back as
 * {@link Decision}s. One instance per {@code tine tune}; not thread-safe (one loop calls it).
 *
 * <p>Per pool and per settled window (a whole window of the agent's that began at least {@link
 * #settleMillis} after tune's last change, and does not overlap the window used before it):
 *
 * <ol>
 *   <li>A size someone else set: tune backs off that pool for good, and says so.
 *   <li>A change on probation is checked against the two windows before it once two settled windows
 *       follow it: throughput down or p99 wait up beyond the noise allowance restores the original
 *       size and stops tuning the pool; a growth that cut no wait and raised no throughput is
 *       stepped back.
 *   <li>The window's proposal: {@code tine advise}'s advisor (p90 wait ≤ the target, max(1 ms, S)
 *       unless given), capped by Goetz's N for a CPU-bound pool, never below the threads busy now
 *       nor {@code --min}, never above {@code --max}. Growth only where the window missed the wait
 *       target; shrinking only by more than the dead band, and where the target was met (or the
 *       CPUs are the limit).
 *   <li>A change when this window and the one before agree on the direction: to the size nearer the
 *       current one of the two; a reversal of the last change's direction only after the cool-down.
 * </ol>
 */
public final class Tuner {
  /** Settled windows in a row that must agree before a change (and that check one after it). */
  static final int AGREEING_WINDOWS = 2;

  /**
   * A shrink must take away more than this share of the size (and at least one thread): within the
   * band the waits' noise decides, and the pool would step up and down by a thread.
   */
  static final double SHRINK_DEAD_BAND = 0.20;

  /**
   * Settled windows after a change before one in the other direction: twice the agreement span, so
   * a burst (or a lull) shorter than about four windows cannot drive the size up and back.
   */
  static final int REVERSAL_COOLDOWN_WINDOWS = 4;

  /**
   * A shrink goes no lower than what any of this many settled windows before it wanted: a lull
   * shorter than that (between bursts) does not shrink the pool the next burst needs.
   */
  static final int SHRINK_LOOKBACK_WINDOWS = 6;

  /** Throughput may fall this share, at least, before it counts as a drop (the 5%). */
  static final double THROUGHPUT_ALLOWANCE = 0.05;

  /** The p99 wait may rise this share of its value before, at least, before it counts as a rise. */
  static final double WAIT_ALLOWANCE = 0.25;

  /** ... and at least this much (ms): under it a p99 moves with the histogram's resolution. */
  static final double WAIT_ALLOWANCE_MS = 1.0;

  /**
   * The allowance is at least this many times the spread of the two windows before the change (|x1
   * − x2|): the windows' own variability, measured on the pool itself.
   */
  static final double SPREAD_ALLOWANCE = 2.0;

  /**
   * A pool whose threads use at least this share of the cores (Goetz's U, the advisor's default) is
   * CPU-bound: the CPUs, not the threads, limit it, and Goetz's N caps its size.
   */
  static final double CPU_BOUND_SHARE = PoolSizeAdvisor.DEFAULT_TARGET_UTILIZATION;

  /**
   * The application's {@code MeasuredExecutor}, by name, joined at run time: the agent jar's
   * shading relocates {@code dev.tine.executor} and would rewrite a literal naming it.
   */
  static final String MEASURED_EXECUTOR =
      String.join(".", "dev", "tine", "executor", "MeasuredExecutor");

  /** The options of one {@code tine tune}. */
  public record Options(int min, int max, double targetWaitMs, boolean apply) {
    public Options {
      if (min <= 0) throw new IllegalArgumentException("--min must be positive, was " + min);
      if (max < min) throw new IllegalArgumentException("--min " + min + " is above --max " + max);
      if (!Double.isNaN(targetWaitMs) && !(targetWaitMs > 0))
        throw new IllegalArgumentException(
            "--target-wait-ms must be positive, was " + targetWaitMs);
    }
  }

  /** What one settled window proposes for a pool. */
  record Proposal(int direction, int size, String why, boolean cpuBound, double targetMs) {}

  /** One pool as tune follows it. */
  static final class Track {
    final String pool;
    int original = -1;

    /** The size tune set, or first saw. */
    int current = -1;

    /** The last change that passed its check, or the original size. */
    int passed = -1;

    PoolWindow lastUsed;
    PoolWindow previousWindow;
    Proposal pending;

    /** The sizes the last {@link #SHRINK_LOOKBACK_WINDOWS} settled windows wanted, newest last. */
    final java.util.ArrayDeque<Integer> wanted = new java.util.ArrayDeque<>();

    long changedAtMillis = Long.MIN_VALUE;
    int lastDirection;
    int windowsSinceChange;
    boolean stopped;

    /** Someone else resized the pool: its size is theirs, tune does not touch it again. */
    boolean backedOff;

    /** Set while a change is on probation: the two windows before it, and the one after. */
    PoolWindow before1, before2;

    int beforeSize;

    /** Checks put off because the load fell after the change. */
    int postponed;

    Proposal change;
    final List<PoolWindow> after = new ArrayList<>();

    Track(String pool) {
      this.pool = pool;
    }
  }

  /**
   * Cores busy with other processes than the target (NaN: not known): a CPU-bound pool on a shared
   * machine gets only what they leave it.
   */
  private double otherCpuCores = Double.NaN;

  /** The machine's run queue (load average; NaN: not known): threads that run or wait for a CPU. */
  private double loadAverage = Double.NaN;

  private final Options options;
  private final long settleMillis;
  private final Map<String, Track> tracks = new LinkedHashMap<>();

  /**
   * @param options the bounds, the target and whether to apply
   * @param settleMillis how long after a change a window may begin to count (the agent's tick: the
   *     new threads started, the queue the old size built served)
   */
  public Tuner(Options options, long settleMillis) {
    this.options = options;
    this.settleMillis = settleMillis;
  }

  private boolean explain;

  /** Also returns a {@link Action#HOLD} for each settled window that changed nothing. */
  public void explain(boolean on) {
    this.explain = on;
  }

  /** Sets the cores other processes than the target keep busy now (NaN: not known). */
  public void otherCpuCores(double cores) {
    this.otherCpuCores = cores;
  }

  /** Sets the machine's load average, its run queue (NaN: not known). */
  public void loadAverage(double load) {
    this.loadAverage = load;
  }

  /** The pools tune changed, by name: original size and the last size that passed its check. */
  public Map<String, int[]> changed() {
    Map<String, int[]> m = new LinkedHashMap<>();
    for (Track t : tracks.values()) {
      if (t.original > 0 && t.current != t.original && !t.backedOff)
        m.put(t.pool, new int[] {t.original, t.passed, t.current});
    }
    return m;
  }

  /**
   * Takes one reading of a pool (every poll; a window already used, or not settled, is skipped) and
   * returns what tune did about it: nothing, or one decision.
   */
  public List<Decision> observe(PoolWindow w, Actuator target, long nowMillis) {
    Track t = tracks.computeIfAbsent(w.pool(), Track::new);
    if (t.stopped) return List.of();
    if (t.original < 0) {
      String no = target.notResizable(w);
      if (no != null) {
        t.stopped = true;
        // A MeasuredExecutor that sizes itself runs this loop's job every tick, from its own
        // figures: tune leaves it to that (and a second loop would fight it).
        boolean selfSizing =
            w.poolClass().startsWith(MEASURED_EXECUTOR) && no.contains("selfSizing");
        return List.of(
            new Decision(
                nowMillis,
                w.pool(),
                selfSizing ? Action.SELF_SIZING : Action.REFUSED,
                w.size(),
                -1,
                selfSizing ? no + "; tine tune uses that self-sizing and sets nothing" : no));
      }
      t.original = t.current = t.passed = w.size();
    }
    // sizes read before tune's own last change took effect are not someone else's
    String other =
        w.endMillis() > t.changedAtMillis + settleMillis
            ? target.resizedByOther(w, t.current)
            : null;
    if (other != null) {
      t.stopped = true;
      t.backedOff = true;
      return List.of(
          new Decision(
              nowMillis,
              w.pool(),
              Action.BACKED_OFF,
              t.current,
              w.size() == t.current ? -1 : w.size(),
              other + "; tune leaves this pool alone from now on"));
    }
    if (!(w.seconds() > 0) || w.startMillis() < t.changedAtMillis + settleMillis) return List.of();
    if (t.lastUsed != null && w.startMillis() < t.lastUsed.endMillis()) return List.of();
    t.previousWindow = t.lastUsed;
    t.lastUsed = w;
    t.windowsSinceChange++;
    // what this window wants, and the most any window before it in the look-back wanted
    Proposal p = propose(t, w);
    int lookback = 0;
    for (int size : t.wanted) lookback = Math.max(lookback, size);
    if (p != null) {
      t.wanted.addLast(p.size());
      if (t.wanted.size() > SHRINK_LOOKBACK_WINDOWS) t.wanted.removeFirst();
    }
    if (t.change != null) {
      t.after.add(w);
      if (t.after.size() < AGREEING_WINDOWS) return List.of();
      Decision verdict = check(t, target, nowMillis);
      if (verdict != null && t.stopped) return List.of(verdict);
      if (t.change != null) return List.of(); // the load fell: the check waits
      Proposal first = propose(t, t.after.get(0));
      t.after.clear();
      t.pending = first;
      List<Decision> out = new ArrayList<>();
      if (verdict != null) out.add(verdict);
      out.addAll(decide(t, w, p, lookback, target, nowMillis));
      return out;
    }
    return decide(t, w, p, lookback, target, nowMillis);
  }

  private List<Decision> decide(
      Track t, PoolWindow w, Proposal p, int lookback, Actuator target, long nowMillis) {
    Proposal prev = t.pending;
    t.pending = p;
    if (p == null) return hold(t, w, nowMillis, "nothing to size from (no request finished)");
    if (p.direction() == 0) return hold(t, w, nowMillis, "no change wanted: " + p.why());
    if (prev == null || prev.direction() != p.direction())
      return hold(t, w, nowMillis, "waits for a second window that agrees: " + p.why());
    if (t.lastDirection != 0
        && p.direction() != t.lastDirection
        && t.windowsSinceChange < REVERSAL_COOLDOWN_WINDOWS)
      return hold(t, w, nowMillis, "cool-down before a reversal: " + p.why());
    int to = p.direction() > 0 ? Math.min(prev.size(), p.size()) : Math.max(prev.size(), p.size());
    if (p.direction() < 0
        && t.current <= options.max()
        && Math.max(to, lookback)
            > t.current - Math.max(1, Math.ceil(SHRINK_DEAD_BAND * t.current)))
      return hold(
          t,
          w,
          nowMillis,
          "a window of the last "
              + SHRINK_LOOKBACK_WINDOWS
              + " wanted "
              + lookback
              + ", within the dead band of "
              + t.current
              + ": "
              + p.why());
    if (p.direction() < 0) to = Math.max(to, Math.min(lookback, t.current));
    if (to == t.current) return hold(t, w, nowMillis, "no change wanted: " + p.why());
    String why =
        p.why()
            + String.format(
                Locale.ROOT, " in %d settled windows (%.0f s each)", AGREEING_WINDOWS, w.seconds());
    t.pending = null; // the next change needs two windows of its own
    if (!options.apply()) {
      return List.of(new Decision(nowMillis, w.pool(), Action.WOULD_RESIZE, t.current, to, why));
    }
    Actuator.Outcome o = target.resize(w, to, "tine tune: " + why);
    if (!o.done()) {
      t.stopped = true;
      t.backedOff = o.resizedByOther();
      return List.of(
          new Decision(
              nowMillis,
              w.pool(),
              o.resizedByOther() ? Action.BACKED_OFF : Action.REFUSED,
              t.current,
              to,
              o.resizedByOther()
                  ? o.message() + "; tune leaves this pool alone from now on"
                  : o.message()));
    }
    int from = t.current;
    t.before1 = t.previousWindow;
    t.before2 = w;
    t.beforeSize = from;
    t.change = p;
    t.after.clear();
    t.current = to;
    t.changedAtMillis = nowMillis;
    t.lastDirection = p.direction();
    t.windowsSinceChange = 0;
    return List.of(new Decision(nowMillis, w.pool(), Action.RESIZED, from, to, why));
  }

  private List<Decision> hold(Track t, PoolWindow w, long nowMillis, String why) {
    return explain
        ? List.of(new Decision(nowMillis, w.pool(), Action.HOLD, t.current, -1, why))
        : List.of();
  }

  /**
   * The verdict on the change on probation, from the two settled windows after it against the two
   * before it: null if it passed without a word to say, else a line (and the pool restored or
   * stepped back where it failed).
   */
  private Decision check(Track t, Actuator target, long nowMillis) {
    PoolWindow b1 = t.before1 != null ? t.before1 : t.before2, b2 = t.before2;
    PoolWindow a1 = t.after.get(0), a2 = t.after.get(1);
    Proposal change = t.change;
    t.change = null;
    double xb = (b1.completionRate() + b2.completionRate()) / 2;
    double xa = (a1.completionRate() + a2.completionRate()) / 2;
    double allowX =
        Math.max(
            THROUGHPUT_ALLOWANCE * xb,
            SPREAD_ALLOWANCE * Math.abs(b1.completionRate() - b2.completionRate()));
    // A CPU-capped shrink moves a task's wait for a CPU into the pool's queue: its queue wait
    // rises by design, so its response (Wq + S) is what must not rise.
    boolean byResponse = change.direction() < 0 && change.cpuBound();
    double pb =
        byResponse
            ? (b1.responseMs() + b2.responseMs()) / 2
            : (b1.waitP99Ms() + b2.waitP99Ms()) / 2;
    double pa =
        byResponse
            ? (a1.responseMs() + a2.responseMs()) / 2
            : (a1.waitP99Ms() + a2.waitP99Ms()) / 2;
    double spreadP =
        byResponse
            ? Math.abs(b1.responseMs() - b2.responseMs())
            : Math.abs(b1.waitP99Ms() - b2.waitP99Ms());
    double allowP =
        Math.max(Math.max(WAIT_ALLOWANCE * pb, WAIT_ALLOWANCE_MS), SPREAD_ALLOWANCE * spreadP);
    String what = byResponse ? "response (Wq+S)" : "p99 wait";
    boolean drop = xa < xb - allowX;
    // a shrink made where the target was met may raise the wait up to the target
    boolean rise =
        pa > pb + allowP && (change.direction() > 0 || byResponse || pa > change.targetMs());
    String figures =
        String.format(
            Locale.ROOT,
            "throughput %.1f/s after vs %.1f/s before (allowance %.1f/s), %s %.2f ms after vs"
                + " %.2f ms before (allowance %.2f ms)",
            xa,
            xb,
            allowX,
            what,
            pa,
            pb,
            allowP);
    // The load itself fell: a lower throughput says nothing of the change. The check waits for two
    // windows under load again,
    // against the same two before the change.
    double lb = (b1.littlesL() + b2.littlesL()) / 2, la = (a1.littlesL() + a2.littlesL()) / 2;
    // Fewer tasks present means less load: a change that cost throughput leaves as many (a closed
    // load's clients still there, waiting longer) or more (an open load's queue growing)
    boolean loadFell =
        drop
            && !rise
            && la
                < lb
                    - Math.max(
                        THROUGHPUT_ALLOWANCE * lb,
                        SPREAD_ALLOWANCE * Math.abs(b1.littlesL() - b2.littlesL()));
    if (loadFell && ++t.postponed * AGREEING_WINDOWS < SHRINK_LOOKBACK_WINDOWS) {
      t.change = change;
      t.after.clear();
      return null;
    }
    if (loadFell) {
      // the load stayed low for the look-back: the change cannot be judged, and it is not counted
      // as passed (on exit the last size that passed comes back); the low load sizes the pool now
      t.postponed = 0;
      return new Decision(
          nowMillis,
          t.pool,
          Action.HOLD,
          t.current,
          -1,
          "the load fell after "
              + t.beforeSize
              + " → "
              + t.current
              + " and stayed low: the change is not judged; "
              + figures);
    }
    t.postponed = 0;
    if (drop || rise) {
      t.stopped = true;
      Actuator.Outcome o =
          target.restore(
              a2,
              "tine tune: " + (drop ? "throughput dropped" : what + " rose") + " after a change");
      String why =
          (drop ? "throughput dropped" : what + " rose")
              + " after "
              + t.beforeSize
              + " → "
              + t.current
              + ": "
              + figures
              + (o.done()
                  ? "; original size back, tuning of this pool stopped"
                  : "; " + o.message());
      int from = t.current;
      t.current = t.original;
      t.passed = t.original;
      return new Decision(nowMillis, t.pool, Action.RESTORED, from, t.original, why);
    }
    if (change.direction() > 0) {
      double wb = (b1.waitP90Ms() + b2.waitP90Ms()) / 2, wa = (a1.waitP90Ms() + a2.waitP90Ms()) / 2;
      // helped: the p90 wait fell by more than the allowance's share, or meets the target now
      boolean cutWait = wa <= (1 - WAIT_ALLOWANCE) * wb || wa <= change.targetMs();
      boolean moreThroughput = xa > xb + allowX;
      if (!cutWait && !moreThroughput) {
        t.stopped = true;
        Actuator.Outcome o =
            target.resize(
                a2, t.beforeSize, "tine tune: the growth cut no wait and added no throughput");
        String why =
            String.format(
                    Locale.ROOT,
                    "growing to %d cut no wait (p90 %.2f ms after vs %.2f ms before) and added no"
                        + " throughput; ",
                    t.current,
                    wa,
                    wb)
                + figures
                + (o.done() ? "; tuning of this pool stopped" : "; " + o.message());
        int from = t.current;
        t.current = t.beforeSize;
        return new Decision(nowMillis, t.pool, Action.STEPPED_BACK, from, t.beforeSize, why);
      }
    }
    t.passed = t.current;
    return new Decision(nowMillis, t.pool, Action.KEPT, t.beforeSize, t.current, figures);
  }

  /** What one settled window says the size should be, or null if it cannot say. */
  Proposal propose(Track t, PoolWindow w) {
    if (w.completed() <= 0 || !(w.arrivalRate() > 0) || !(w.serviceMs() > 0)) return null;
    double target =
        Double.isNaN(options.targetWaitMs())
            ? PoolSizeAdvisor.defaultMaxWaitMs(w.serviceMs())
            : options.targetWaitMs();
    int current = t.current;
    int advised;
    String advice;
    try {
      var r =
          PoolSizeAdvisor.adviseSnapshot(
              w.snapshot(),
              0,
              PoolSizeAdvisor.DEFAULT_TARGET_UTILIZATION,
              PoolSizeAdvisor.DEFAULT_PERCENTILE,
              target,
              Math.max(options.max(), current));
      advised = r.poolSize();
      advice = (r.lowerBound() ? "at least " : "") + advised;
    } catch (PoolSizeAdvisor.NoSizeFits e) {
      advised =
          e.limit() == PoolSizeAdvisor.NoSizeFits.Limit.CPU_CAPACITY ? current : options.max();
      advice =
          e.limit() == PoolSizeAdvisor.NoSizeFits.Limit.CPU_CAPACITY
              ? "none (CPU)"
              : "none ≤ --max";
    } catch (IllegalArgumentException e) {
      return null; // figures out of the advisor's range
    }
    // Goetz: the threads the CPUs can serve. A CPU-bound pool's service time includes waiting for
    // a CPU behind its own busy threads (S ≈ C·busy/cores when they share the cores), which is no
    // blocking: W is what remains after that.
    double c = w.cpuPerTaskMs();
    double cpuCores = Double.isNaN(c) ? Double.NaN : w.completionRate() * c / 1000.0;
    // the cores the pool could have had: the machine's, less what other processes kept busy
    double available =
        Double.isNaN(otherCpuCores)
            ? w.cores()
            : Math.max(Math.min(cpuCores, w.cores()), w.cores() - otherCpuCores);
    boolean cpuBound = cpuCores >= CPU_BOUND_SHARE * available && c > 0;
    double cap = Double.POSITIVE_INFINITY;
    String capWords = "";
    int busy = w.busy();
    double inService = w.completionRate() * w.serviceMs() / 1000.0;
    // A task's wait for a CPU, per ms of CPU it used: behind the pool's own busy threads on the
    // cores left to it, or behind the machine's whole run queue (load average / cores), whichever
    // is longer. What remains of S is blocking, Goetz's W.
    double contention =
        Math.max(
            Math.max(1, inService / available),
            Double.isNaN(loadAverage) ? 1 : loadAverage / w.cores());
    double blockedEstimate = c > 0 ? Math.max(0, w.serviceMs() - c * contention) : Double.NaN;
    // Where what remains of S after the wait for a CPU is under a quarter of C (Goetz's N within
    // a quarter of Ncpu·U), the pool is CPU-bound even if other processes took the cores from it
    // in this window
    if (!cpuBound && c > 0 && blockedEstimate < 0.25 * c) cpuBound = true;
    if (cpuBound) {
      double blocked = blockedEstimate;
      cap = w.cores() * CPU_BOUND_SHARE * (1 + blocked / c);
      // The threads busy now, in a CPU-bound pool, are mostly waiting for a CPU: the ones doing
      // work are those on a CPU or blocked, λ·(C + W) by Little's law.
      busy = Math.min(busy, (int) Math.ceil(w.completionRate() * (c + blocked) / 1000.0 - 1e-9));
      capWords =
          String.format(
              Locale.ROOT,
              "; CPU-bound: %.2f of %.2f cores free to it, W/C %.3f/%.3f ms, Goetz"
                  + " %d×%.1f×(1+W/C) = %.1f",
              cpuCores,
              available,
              blocked,
              c,
              w.cores(),
              CPU_BOUND_SHARE,
              cap);
    }
    int wanted = (int) Math.min(advised, Math.ceil(cap - 1e-9));
    int low = Math.max(options.min(), busy), high = options.max();
    int size = Math.max(Math.min(wanted, high), Math.min(low, high));
    if (busy > size) size = Math.min(busy, Math.max(current, size)); // never below busy
    String figures =
        String.format(
            Locale.ROOT,
            "p90 wait %.3g ms %s target %.3g ms; λ %.1f/s, S %.3g ms, p99 wait %.3g ms, busy %d;"
                + " advisor %s%s",
            w.waitP90Ms(),
            w.waitP90Ms() > target ? ">" : "≤",
            target,
            w.arrivalRate(),
            w.serviceMs(),
            w.waitP99Ms(),
            busy,
            advice,
            capWords);
    int direction = 0;
    if (current < options.min()) {
      direction = 1;
      size = Math.max(size, options.min());
      figures = "below --min " + options.min() + "; " + figures;
    } else if (current > options.max()) {
      direction = -1;
      figures = "above --max " + options.max() + "; " + figures;
    } else if (size > current && w.waitP90Ms() > target) {
      direction = 1;
    } else if (size <= current - Math.max(1, Math.ceil(SHRINK_DEAD_BAND * current))
        && (w.waitP90Ms() <= target || cpuBound)) {
      direction = -1;
    }
    if (direction < 0 && size >= current) direction = 0;
    return new Proposal(direction, size, figures, cpuBound, target);
  }
}

package dev.tine.agent.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.tune.Decision.Action;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The controller's guard rails on windows written by hand: a fake target records what it was asked
 * to do. Windows are 3 s long, back to back, starting at 100 s.
 */
class TunerTest {
  /** A target that does what it is told and records it. */
  static final class FakeTarget implements Actuator {
    int size;
    final int original;
    final List<String> calls = new ArrayList<>();
    String notResizable;
    String other;

    FakeTarget(int size) {
      this.size = this.original = size;
    }

    @Override
    public Outcome resize(PoolWindow pool, int to, String why) {
      calls.add("resize " + to);
      int from = size;
      size = to;
      return Outcome.done(from, to, why);
    }

    @Override
    public Outcome restore(PoolWindow pool, String why) {
      calls.add("restore " + original);
      int from = size;
      size = original;
      return Outcome.done(from, original, why);
    }

    @Override
    public String notResizable(PoolWindow pool) {
      return notResizable;
    }

    @Override
    public String resizedByOther(PoolWindow pool, int sizeTuneKnows) {
      return other;
    }
  }

  static final long W = 3000;

  /**
   * A window of a pool of {@code size} threads: {@code x} completions/s (= arrivals), S ms, p90 and
   * p99 wait ms, L tasks present, {@code busy} threads running now, CPU per task ms (NaN: none).
   */
  static PoolWindow window(
      int n, int size, double x, double s, double p90, double p99, double l, int busy, double c) {
    double wq = l * 1000 / x - s;
    return new PoolWindow(
        1,
        "exec",
        "Tomcat",
        "T",
        "requests",
        100_000 + (n + 1) * W,
        W / 1000.0,
        (long) (x * 3),
        (long) (x * 3),
        0,
        x,
        x,
        s,
        Math.max(0, wq),
        p90 / 2,
        p90,
        p99,
        l,
        Math.max(0, wq) / (Math.max(0, wq) + s),
        c,
        size,
        busy,
        0,
        2,
        (long) (x * 3));
  }

  /** Feeds window n (its end is tune's clock), returns the decisions. */
  static List<Decision> feed(Tuner t, FakeTarget f, PoolWindow w) {
    return t.observe(w, f, w.endMillis() + 10);
  }

  static Tuner tuner(int min, int max, boolean apply) {
    return new Tuner(new Tuner.Options(min, max, Double.NaN, apply), 1000);
  }

  /** The undersized server: 2 threads, 16 clients in a closed loop, 5 ms each. */
  static PoolWindow undersized(int n) {
    return window(n, 2, 395, 5.05, 41, 45, 16, 2, 0.05);
  }

  @Test
  void growsOnlyWhenTwoSettledWindowsAgreeAndSaysWhy() {
    FakeTarget f = new FakeTarget(2);
    Tuner t = tuner(1, 64, true);
    assertEquals(List.of(), feed(t, f, undersized(0)), "one window decides nothing");
    List<Decision> d = feed(t, f, undersized(1));
    assertEquals(1, d.size(), "" + d);
    Decision c = d.get(0);
    System.out.println(c.line());
    assertEquals(Action.RESIZED, c.action());
    assertEquals(2, c.from());
    assertTrue(c.to() > 2 && c.to() <= 64, c.line());
    assertTrue(c.why().contains("p90 wait 41.0 ms > target 5.05 ms"), c.why());
    assertTrue(c.why().contains("in 2 settled windows"), c.why());
    assertEquals(List.of("resize " + c.to()), f.calls);
  }

  @Test
  void dryRunSaysWhatItWouldDoAndChangesNothing() {
    FakeTarget f = new FakeTarget(2);
    Tuner t = tuner(1, 64, false);
    feed(t, f, undersized(0));
    List<Decision> d = feed(t, f, undersized(1));
    assertEquals(Action.WOULD_RESIZE, d.get(0).action(), "" + d);
    assertTrue(d.get(0).line().contains("would resize exec 2 → "), d.get(0).line());
    assertEquals(List.of(), f.calls);
  }

  @Test
  void windowsThatOverlapOrBeganBeforeTheChangeSettledAreSkipped() {
    FakeTarget f = new FakeTarget(2);
    Tuner t = tuner(1, 64, true);
    feed(t, f, undersized(0));
    // the same window read again (tune polls every second, the agent's window is 3 s)
    PoolWindow again = undersized(0);
    assertEquals(List.of(), t.observe(again, f, again.endMillis() + 900));
    PoolWindow overlapping = window(0, 2, 395, 5.05, 41, 45, 16, 2, 0.05);
    overlapping =
        new PoolWindow(
            1,
            "exec",
            "Tomcat",
            "T",
            "requests",
            overlapping.endMillis() + 1000,
            3,
            1185,
            1185,
            0,
            395,
            395,
            5.05,
            35,
            20,
            41,
            45,
            16,
            0.9,
            0.05,
            2,
            2,
            0,
            2,
            1185);
    assertEquals(List.of(), feed(t, f, overlapping));
    assertEquals(List.of(), f.calls, "no change from overlapping windows");
    Decision d = feed(t, f, undersized(1)).get(0);
    assertEquals(Action.RESIZED, d.action());
    // the next window began before the change plus the settling time: not counted
    PoolWindow early = window(1, d.to(), 395, 5.05, 41, 45, 16, 2, 0.05);
    early =
        new PoolWindow(
            1,
            "exec",
            "Tomcat",
            "T",
            "requests",
            early.endMillis() + 2500,
            3,
            1185,
            1185,
            0,
            395,
            395,
            5.05,
            35,
            20,
            41,
            45,
            16,
            0.9,
            0.05,
            d.to(),
            2,
            0,
            2,
            1185);
    assertEquals(List.of(), feed(t, f, early));
  }

  @Test
  void neverAboveMaxNorBelowTheThreadsBusyNorMin() {
    FakeTarget f = new FakeTarget(2);
    Tuner t = tuner(1, 5, true);
    feed(t, f, undersized(0));
    Decision d = feed(t, f, undersized(1)).get(0);
    assertEquals(5, d.to(), "clamped to --max: " + d.line());
    // an oversized, idle-ish pool: 40 threads, 30 of them busy now: never below 30
    FakeTarget g = new FakeTarget(40);
    Tuner u = tuner(1, 64, true);
    feed(u, g, window(0, 40, 100, 5, 0.1, 0.2, 0.6, 30, 0.05));
    Decision e = feed(u, g, window(1, 40, 100, 5, 0.1, 0.2, 0.6, 30, 0.05)).get(0);
    assertEquals(30, e.to(), e.line());
    // --min 8 holds a pool that needs 1
    FakeTarget h = new FakeTarget(16);
    Tuner v = tuner(8, 64, true);
    feed(v, h, window(0, 16, 100, 5, 0.1, 0.2, 0.6, 0, 0.05));
    assertEquals(8, feed(v, h, window(1, 16, 100, 5, 0.1, 0.2, 0.6, 0, 0.05)).get(0).to());
  }

  @Test
  void aShrinkWithinTheDeadBandIsNotMade() {
    FakeTarget f = new FakeTarget(5);
    Tuner t = tuner(1, 64, true);
    // a = λS = 1.5; the advisor wants 4 or so: 5 → 4 is within 20% (one thread of 5)
    for (int n = 0; n < 6; n++) {
      List<Decision> d = feed(t, f, window(n, 5, 300, 5, 2, 4, 1.6, 2, 0.05));
      assertTrue(d.isEmpty() || d.get(0).to() < 4, "a shrink by one thread of five: " + d);
    }
  }

  /** A grown pool whose throughput then halves: the original size is put back, tuning stops. */
  @Test
  void restoresTheOriginalSizeWhenThroughputDropsAfterAChange() {
    FakeTarget f = new FakeTarget(2);
    Tuner t = tuner(1, 64, true);
    feed(t, f, undersized(0));
    int to = feed(t, f, undersized(1)).get(0).to();
    // as many tasks present (the 16 clients), half the throughput: the change cost it
    assertEquals(List.of(), feed(t, f, window(3, to, 190, 5.05, 30, 40, 16, 2, 0.05)));
    List<Decision> d = feed(t, f, window(4, to, 200, 5.05, 30, 40, 16, 2, 0.05));
    assertEquals(Action.RESTORED, d.get(0).action(), "" + d);
    System.out.println(d.get(0).line());
    assertTrue(d.get(0).why().startsWith("throughput dropped"), d.get(0).why());
    assertEquals(List.of("resize " + to, "restore 2"), f.calls);
    assertEquals(List.of(), feed(t, f, undersized(6)), "tuning of the pool stopped");
    assertEquals(List.of(), feed(t, f, undersized(7)));
  }

  @Test
  void restoresWhenTheP99WaitRisesBeyondTheWindowsOwnNoise() {
    FakeTarget f = new FakeTarget(2);
    Tuner t = tuner(1, 64, true);
    feed(t, f, undersized(0));
    int to = feed(t, f, undersized(1)).get(0).to();
    feed(t, f, window(3, to, 400, 5.05, 30, 90, 16, 2, 0.05));
    List<Decision> d = feed(t, f, window(4, to, 400, 5.05, 30, 80, 16, 2, 0.05));
    assertEquals(Action.RESTORED, d.get(0).action(), "" + d);
    assertTrue(d.get(0).why().startsWith("p99 wait rose"), d.get(0).why());
  }

  @Test
  void keepsAChangeThatHelpedAndGrowsAgainOnlyOnNewEvidence() {
    FakeTarget f = new FakeTarget(2);
    Tuner t = tuner(1, 64, true);
    feed(t, f, undersized(0));
    int to = feed(t, f, undersized(1)).get(0).to();
    // helped: throughput up, waits down, target met
    feed(t, f, window(3, to, 1500, 5.05, 1, 3, 8, 8, 0.05));
    List<Decision> d = feed(t, f, window(4, to, 1510, 5.05, 1, 3, 8, 8, 0.05));
    assertEquals(Action.KEPT, d.get(0).action(), "" + d);
    assertEquals(1, d.size(), "nothing more: the target is met: " + d);
    assertEquals(List.of(), feed(t, f, window(5, to, 1500, 5.05, 1, 3, 8, 8, 0.05)));
    assertEquals(List.of("resize " + to), f.calls);
  }

  @Test
  void aGrowthThatCutNoWaitIsSteppedBack() {
    FakeTarget f = new FakeTarget(2);
    Tuner t = tuner(1, 64, true);
    feed(t, f, undersized(0));
    int to = feed(t, f, undersized(1)).get(0).to();
    feed(t, f, window(3, to, 398, 5.05, 41, 45, 16, 2, 0.05));
    List<Decision> d = feed(t, f, window(4, to, 396, 5.05, 40, 46, 16, 2, 0.05));
    assertEquals(Action.STEPPED_BACK, d.get(0).action(), "" + d);
    assertEquals(List.of("resize " + to, "resize 2"), f.calls);
  }

  /**
   * Bursts that alternate window by window: never two windows in a row agree, so nothing changes. A
   * burst long enough to grow the pool, then a lull: the shrink waits for the cool-down.
   */
  @Test
  void burstsDoNotMakeTheSizeFlap() {
    FakeTarget f = new FakeTarget(4);
    Tuner t = tuner(1, 64, true);
    for (int n = 0; n < 20; n++) {
      PoolWindow w =
          n % 2 == 0
              ? window(n, f.size, 800, 5, 30, 40, 16, 4, 0.05)
              : window(n, f.size, 100, 5, 0.1, 0.3, 0.6, 0, 0.05);
      assertEquals(List.of(), feed(t, f, w), "window " + n);
    }
    assertEquals(List.of(), f.calls);
    // a burst of two windows grows it; the lull right after does not shrink it before the
    // cool-down (four settled windows after the change)
    FakeTarget g = new FakeTarget(4);
    Tuner u = tuner(1, 64, true);
    List<Decision> all = new ArrayList<>();
    int n = 0;
    for (; n < 2; n++) all.addAll(feed(u, g, window(n, g.size, 790, 5, 30, 40, 16, 4, 0.05)));
    assertEquals(1, g.calls.size(), "" + all);
    int grown = g.size;
    List<String> lull = new ArrayList<>();
    for (n = 3; n < 7; n++) {
      for (Decision d : feed(u, g, window(n, g.size, 100, 5, 0.1, 0.3, 0.6, 0, 0.05)))
        lull.add(d.action() + " " + d.to());
      if (n < 6) assertEquals(grown, g.size, "shrunk within the cool-down at window " + n);
    }
    System.out.println("burst then lull: " + all + " " + lull);
    assertEquals(grown, g.size, "shrunk in a lull shorter than the look-back: " + lull);
  }

  /**
   * A change made at the end of a burst, checked in the lull after it (one window still catching
   * the burst's tail, its p90 over the target): fewer tasks present, so the lower throughput is the
   * load's, and the change is not undone.
   */
  @Test
  void aThroughputDropWithFewerTasksPresentIsTheLoadsNotTheChanges() {
    FakeTarget g = new FakeTarget(4);
    Tuner u = tuner(1, 64, true);
    for (int n = 0; n < 2; n++) feed(u, g, window(n, g.size, 700, 5.5, 48, 97, 16, 4, 0.05));
    int grown = g.size;
    List<Decision> d = new ArrayList<>(feed(u, g, window(3, grown, 500, 5.5, 9, 20, 4, 4, 0.05)));
    d.addAll(feed(u, g, window(4, grown, 250, 5.5, 0.1, 0.3, 1.4, 1, 0.05)));
    assertTrue(d.stream().noneMatch(x -> x.action() == Action.RESTORED), "" + d);
    assertEquals(grown, g.size, "" + d);
  }

  /** A load that fell for good: after the look-back's six windows the pool shrinks. */
  @Test
  void aLastingLullShrinksThePoolAfterTheLookBack() {
    FakeTarget g = new FakeTarget(4);
    Tuner u = tuner(1, 64, true);
    for (int n = 0; n < 2; n++) feed(u, g, window(n, g.size, 790, 5, 30, 40, 16, 4, 0.05));
    int grown = g.size;
    List<Decision> lull = new ArrayList<>();
    for (int n = 3; n < 14; n++)
      lull.addAll(feed(u, g, window(n, g.size, 100, 5, 0.1, 0.3, 0.6, 0, 0.05)));
    assertTrue(g.size < grown, "never shrunk: " + lull);
    System.out.println("a lasting lull: " + lull);
  }

  @Test
  void aPoolSomeoneElseResizesIsLeftAloneWithOneLine() {
    FakeTarget f = new FakeTarget(2);
    Tuner t = tuner(1, 64, true);
    feed(t, f, undersized(0));
    f.other = "resized 2 → 3 by top --resize at 01:02:03";
    List<Decision> d = feed(t, f, undersized(1));
    assertEquals(Action.BACKED_OFF, d.get(0).action(), "" + d);
    assertTrue(d.get(0).line().contains("tune leaves this pool alone"), d.get(0).line());
    for (int n = 2; n < 6; n++) assertEquals(List.of(), feed(t, f, undersized(n)));
    assertEquals(List.of(), f.calls);
  }

  @Test
  void aPoolThatCannotBeResizedIsRefusedOnce() {
    FakeTarget f = new FakeTarget(2);
    f.notResizable = "a ForkJoinPool's parallelism is fixed";
    Tuner t = tuner(1, 64, true);
    List<Decision> d = feed(t, f, undersized(0));
    assertEquals(Action.REFUSED, d.get(0).action());
    for (int n = 1; n < 4; n++) assertEquals(List.of(), feed(t, f, undersized(n)));
    assertEquals(List.of(), f.calls);
  }

  /**
   * 64 threads of CPU-bound tasks on 2 cores: every thread busy, the pool's CPU both cores, S 32
   * times C (each task shares a core with 31 others). Goetz with the blocking time (none) caps it
   * at 2.
   */
  @Test
  void shrinksACpuBoundPoolToWhatTheCpusServe() {
    FakeTarget f = new FakeTarget(64);
    Tuner t = tuner(1, 64, true);
    // 1 ms of CPU a task, 2000 tasks/s on 2 cores, S = 32 ms, 128 tasks present
    feed(t, f, window(0, 64, 1990, 32, 30, 40, 128, 64, 1.0));
    Decision d = feed(t, f, window(1, 64, 1995, 32, 30, 40, 128, 64, 1.0)).get(0);
    System.out.println(d.line());
    // Goetz: 2 × 0.8 × (1 + 0.08/1) = 1.7; the threads doing work, λ·(C + W) = 2.15: 3
    assertEquals(3, d.to(), d.line());
    assertTrue(d.why().contains("CPU-bound"), d.why());
    // after: the same throughput, S back to C, the wait in the queue now: the response decides
    feed(t, f, window(3, 2, 2000, 1.0, 60, 70, 128, 2, 1.0));
    List<Decision> k = feed(t, f, window(4, 2, 2001, 1.0, 60, 70, 128, 2, 1.0));
    assertEquals(Action.KEPT, k.get(0).action(), "" + k);
  }

  /**
   * The same pool on a machine where other processes keep one of the two cores busy: it gets one
   * core (1000 tasks/s of 1 ms), and S is 64 ms. Told of the other load, tune sees it CPU-bound;
   * not told, it takes the pool for one that blocks half the time, and leaves it.
   */
  @Test
  void aCpuBoundPoolOnASharedMachineIsJudgedByTheCoresLeftToIt() {
    FakeTarget f = new FakeTarget(64);
    Tuner t = tuner(1, 64, true);
    t.otherCpuCores(1.0);
    feed(t, f, window(0, 64, 1000, 64, 30, 40, 64, 64, 1.0));
    Decision d = feed(t, f, window(1, 64, 1000, 64, 30, 40, 64, 64, 1.0)).get(0);
    System.out.println(d.line());
    assertTrue(d.to() <= 3 && d.why().contains("CPU-bound: 1.00 of 1.00 cores"), d.line());
    FakeTarget g = new FakeTarget(64);
    Tuner u = tuner(1, 64, true);
    feed(u, g, window(0, 64, 1000, 64, 30, 40, 64, 64, 1.0));
    assertEquals(List.of(), feed(u, g, window(1, 64, 1000, 64, 30, 40, 64, 64, 1.0)));
  }

  /**
   * Our own pools: a MeasuredExecutor that sizes itself is left to its own loop (tune says it uses
   * that self-sizing); a WorkStealingPool is refused with the reason its parallelism is fixed.
   */
  @Test
  void aSelfSizingMeasuredExecutorIsLeftToItsOwnLoopAndAWorkStealingPoolIsRefused() {
    FakeTarget f = new FakeTarget(4);
    f.notResizable =
        "MeasuredExecutor api sizes itself from its own measurements (selfSizing): its bounds are"
            + " set where it is built";
    Tuner t = tuner(1, 64, true);
    PoolWindow me = undersized(0);
    me =
        new PoolWindow(
            1,
            "api",
            "ThreadPoolExecutor",
            "dev.tine.executor.MeasuredExecutor$1",
            "tasks",
            me.endMillis(),
            3,
            1185,
            1185,
            0,
            395,
            395,
            5.05,
            35,
            20,
            41,
            45,
            16,
            0.9,
            0.05,
            4,
            4,
            0,
            2,
            1185);
    List<Decision> d = t.observe(me, f, me.endMillis());
    assertEquals(Action.SELF_SIZING, d.get(0).action(), "" + d);
    assertTrue(
        d.get(0).line().contains("tine tune uses that self-sizing and sets nothing"), "" + d);
    assertEquals(List.of(), t.observe(me, f, me.endMillis() + 3000));
    FakeTarget g = new FakeTarget(2);
    g.notResizable = "a WorkStealingPool's parallelism is fixed when it is built";
    Tuner u = tuner(1, 64, true);
    PoolWindow wsp =
        new PoolWindow(
            2,
            "tine-pool",
            "WorkStealingPool",
            "dev.tine.WorkStealingPool",
            "tasks",
            me.endMillis(),
            3,
            1185,
            1185,
            0,
            395,
            395,
            5.05,
            35,
            20,
            41,
            45,
            16,
            0.9,
            0.05,
            2,
            2,
            0,
            2,
            1185);
    List<Decision> e = u.observe(wsp, g, wsp.endMillis());
    assertEquals(Action.REFUSED, e.get(0).action(), "" + e);
    assertTrue(e.get(0).line().contains("leaves tine-pool at 2: a WorkStealingPool's"), "" + e);
    assertEquals(List.of(), f.calls);
    assertEquals(List.of(), g.calls);
  }

  @Test
  void minAboveMaxAndNonPositiveBoundsAreRefused() {
    var e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> new Tuner.Options(8, 4, Double.NaN, false));
    assertEquals("--min 8 is above --max 4", e.getMessage());
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> new Tuner.Options(0, 4, Double.NaN, false));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> new Tuner.Options(1, 4, -1, false));
  }
}

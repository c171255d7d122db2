package dev.tine.agent.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.top.TopTable;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoopMeterTest {
  private static final long MS = 1_000_000L;

  /**
   * The shares over the window are the phases' time over the readings' span, from the oldest
   * reading kept: a window of 3 readings forgets what ended before the oldest.
   */
  @Test
  void sharesAndRatesAreOverTheWindowsReadings() {
    LoopMeter m = new LoopMeter("loop-1", 2, 0);
    m.io(600 * MS);
    m.tasks(100 * MS);
    for (int i = 0; i < 50; i++) m.request();
    LoopMeter.Window w = m.tick(1000 * MS);
    assertEquals(0.6, w.io(), 1e-12);
    assertEquals(0.1, w.tasks(), 1e-12);
    assertEquals(50.0, w.requestRate(), 1e-9);

    m.io(200 * MS);
    w = m.tick(2000 * MS);
    assertEquals(0.4, w.io(), 1e-12); // 800 ms of 2 s
    assertEquals(0.05, w.tasks(), 1e-12);
    assertEquals(25.0, w.requestRate(), 1e-9);

    w = m.tick(3000 * MS); // the first second left the window
    assertEquals(0.1, w.io(), 1e-12);
    assertEquals(0.0, w.tasks(), 1e-12);
    assertEquals(0.0, w.requestRate(), 1e-9);
  }

  /**
   * A phase is counted where it ends, so a long one can reach back before the window: the shares
   * never pass the whole window (the IT saw I/O 1.0 and tasks 0.0009 before the cap).
   */
  @Test
  void aPhaseReachingBackBeforeTheWindowNeverMakesTheSharesPassOne() {
    LoopMeter m = new LoopMeter("loop-1", 1, 0);
    m.io(1500 * MS);
    m.tasks(10 * MS);
    LoopMeter.Window w = m.tick(1000 * MS);
    assertEquals(1.0, w.io(), 1e-12);
    assertEquals(0.0, w.tasks(), 1e-12);
    assertTrue(w.io() + w.tasks() <= 1.0);
  }

  /**
   * A window longer than the readings kept slides in coarser steps: 32 ticks, a reading every 2,
   * the span between 30 and 32 ticks.
   */
  @Test
  void aLongWindowKeepsAtMostSeventeenReadings() {
    LoopMeter m = new LoopMeter("loop-1", 32, 0);
    for (int t = 1; t <= 100; t++) {
      m.io(500 * MS);
      LoopMeter.Window w = m.tick(t * 1000 * MS);
      assertEquals(0.5, w.io(), 1e-12);
      if (t > 32) assertTrue(w.seconds() >= 32 && w.seconds() <= 33, t + ": " + w.seconds());
    }
  }

  /** top's line under a loop group's row; none for other pools. */
  @Test
  void topShowsEachLoopUnderItsGroupsRow() {
    Map<String, Object> p =
        Map.of(
            "LoopIoShare",
            0.5,
            "LoopTaskShare",
            0.1,
            "LoopIdleShare",
            0.4,
            "LoopThreads",
            new String[] {"netty-loop-3-1", "netty-loop-3-2"},
            "LoopIoShares",
            new double[] {0.6, 0.4},
            "LoopTaskShares",
            new double[] {0.1, 0.1},
            "LoopRequestRates",
            new double[] {612.4, 401.0});
    assertEquals(
        " loops: I/O 50% tasks 10% idle 40%; netty-loop-3-1 612 req/s (60/10%),"
            + " netty-loop-3-2 401 req/s (40/10%)",
        TopTable.loopRow(p));
    assertEquals(null, TopTable.loopRow(Map.of("LoopIoShare", Double.NaN)));
    assertEquals(null, TopTable.loopRow(Map.of()));
  }
}

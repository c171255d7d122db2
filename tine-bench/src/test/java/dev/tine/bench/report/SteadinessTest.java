package dev.tine.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A busy machine is recognised from what the run recorded (load, ceiling, rounds), and flagged at
 * the top of the report with what still holds; a quiet run is not flagged.
 */
class SteadinessTest {
  /** One program: seq, tine p=1, tine p=2 with the given per-round times; the run's conditions. */
  static List<Map<String, Object>> run(
      double loadBefore, double ceiling, double[] seq, double[] p1, double[] p2) {
    List<Map<String, Object>> rs = new ArrayList<>();
    Object[][] cells = {{"seq", 1, seq}, {"tine", 1, p1}, {"tine", 2, p2}};
    for (Object[] c : cells) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("program", "fib");
      m.put("runtime", c[0]);
      m.put("threads", c[1]);
      double[] t = (double[]) c[2];
      m.put("median_ms", t[t.length / 2]);
      m.put("times_ms", Arrays.stream(t).boxed().toList());
      m.put("ceiling", ceiling);
      m.put("machine", Map.of("cores", 2));
      m.put(
          "run",
          Map.of(
              "started",
              "2026-11-26T11:00:00Z",
              "command",
              "tine bench",
              "load_before",
              loadBefore,
              "load_after",
              loadBefore,
              "cores",
              2));
      rs.add(m);
    }
    return rs;
  }

  static final double[] SEQ = {100, 101, 99, 100, 102, 98};
  static final double[] STEADY = {110, 111, 108, 110, 113, 107};
  static final double[] HALF = {60, 61, 59, 62, 60, 58};

  @Test
  void aQuietRunIsNotFlagged() {
    Steadiness s = Steadiness.of(run(0.3, 1.8, SEQ, STEADY, HALF));
    assertFalse(s.busy(), s.toString());
    assertTrue(s.lines().isEmpty());
    assertEquals("", HtmlReport.busyWarning(s));
  }

  @Test
  void aHighLoadAverageIsFlagged() {
    Steadiness s = Steadiness.of(run(6.4, 1.8, SEQ, STEADY, HALF));
    assertTrue(s.busy());
    assertTrue(s.reasons().get(0).contains("load average was 6.4 on 2 cores"), s.toString());
  }

  @Test
  void aLowCeilingIsFlagged() {
    Steadiness s = Steadiness.of(run(0.3, 0.85, SEQ, STEADY, HALF));
    assertTrue(s.busy());
    assertTrue(s.reasons().get(0).contains("two threads did only 0.85×"), s.toString());
  }

  /** The case: one program's rounds ranged 0.23× to 3.49×; p=1 stayed steady. */
  @Test
  void wanderingRoundsAreFlaggedWithWhatStillHolds() {
    double[] wild = {23, 349, 60, 200, 45, 90};
    Steadiness s = Steadiness.of(run(0.3, 1.8, SEQ, STEADY, wild));
    assertTrue(s.busy());
    assertTrue(
        s.reasons().get(0).contains("fib tine p=2's rounds ranged from 0.23× to"), s.toString());
    assertTrue(s.holds().contains("ratios at p=1"), s.holds());
    assertTrue(
        s.holds().contains("within 2% of each other"), "p=1's own spread is quoted: " + s.holds());
    // when p=1 wandered as much, the warning does not claim it held
    Steadiness all = Steadiness.of(run(0.3, 1.8, SEQ, wild, wild));
    assertTrue(all.holds().startsWith("Even the p=1 ratios wandered"), all.holds());
    // p=1 rounds 13x apart are not steady, however much wilder p=2 was (it read "steadier
    // (their rounds stayed within 13.2x of each other)" before)
    double[] p1Wild = {50, 660, 100, 120, 90, 110}, p2Wilder = {10, 900, 60, 200, 45, 90};
    Steadiness both = Steadiness.of(run(0.3, 1.8, SEQ, p1Wild, p2Wilder));
    assertTrue(both.holds().startsWith("Even the p=1 ratios wandered"), both.holds());
    assertFalse(both.holds().contains("steady"), both.holds());
    String html = HtmlReport.html(run(0.3, 1.8, SEQ, STEADY, wild), "t");
    assertTrue(html.contains("id=\"busy\""), "the report's warning");
    assertTrue(html.indexOf("id=\"busy\"") < html.indexOf("id=\"verdict\""), "above the verdict");
  }
}

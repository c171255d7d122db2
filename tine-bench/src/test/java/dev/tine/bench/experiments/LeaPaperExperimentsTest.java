package dev.tine.bench.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import dev.tine.bench.programs.WidthSort;
import dev.tine.bench.report.ExperimentReport;
import dev.tine.bench.run.BenchResult;
import dev.tine.bench.run.Engine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Array;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lea's paper §4.2 and §4.3 at toy sizes: results verified, the checks catch wrong answers, the
 * tables and sections.
 */
@Timeout(180)
class LeaPaperExperimentsTest {
  @Test
  void dataWidthSortsEveryWidthAndPrintsFigure45() throws Exception {
    BenchResult r =
        DataWidth.run(
            50_000, List.of(1, 2), List.of(Engine.SEQ, Engine.TINE, Engine.JDK), 1, 2, null);
    assertTrue(r.allVerified());
    assertEquals(4 * 5, r.cells().size(), "4 widths x (seq, tine 1, jdk 1, tine 2, jdk 2)");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataWidth.print(r, List.of(1, 2), new PrintStream(buf));
    String out = buf.toString();
    for (String w : List.of("byte ", "short ", "int ", "long "))
      assertTrue(out.contains("\n" + w), w + " row in\n" + out);
    assertTrue(out.contains("long / byte time =") && out.contains("every result verified"), out);
    List<Map<String, Object>> recs = DataWidth.records(r);
    assertTrue(
        recs.stream()
            .allMatch(m -> "data-width".equals(m.get("experiment")) && m.get("width") != null));
    String section = ExperimentReport.section(recs);
    assertTrue(
        section.contains("id=\"experiment-data-width\"")
            && section.contains("<svg class=\"chart\""),
        section);
  }

  /**
   * The width check is not a formality: a sort that is unsorted, or that lost or changed a value,
   * fails.
   */
  @Test
  void widthChecksCatchWrongResults() {
    for (Program p : WidthSort.all()) {
      Workload w = p.workload(Size.QUICK, Map.of("n", "5000"));
      w.prepare();
      Object sorted = w.sequential();
      assertTrue(w.verify(sorted), p.name());
      Object a = copy(sorted);
      swap(a, 0, Array.getLength(a) - 1); // the smallest value last: out of order
      assertFalse(w.verify(a), p.name() + ": unsorted");
      Object b = copy(sorted);
      Array.set(b, 0, Array.get(b, 1)); // still sorted, but one value duplicated over another
      if (!Array.get(sorted, 0).equals(Array.get(sorted, 1)))
        assertFalse(w.verify(b), p.name() + ": multiset changed");
    }
  }

  static Object copy(Object a) {
    int n = Array.getLength(a);
    Object c = Array.newInstance(a.getClass().getComponentType(), n);
    System.arraycopy(a, 0, c, 0, n);
    return c;
  }

  static void swap(Object a, int i, int j) {
    Object t = Array.get(a, i);
    Array.set(a, i, Array.get(a, j));
    Array.set(a, j, t);
  }

  @Test
  void gcRunsChildJvmsPerCollectorAndYoungSize() throws Exception {
    var settings = GcExperiment.settings(List.of("serial", "zgc"), List.of("4", "2+2p"));
    assertEquals(3, settings.size(), "serial 4, serial 2+2p, zgc auto");
    assertEquals(
        List.of("-XX:+UseSerialGC", "-Xmn6m"), settings.get(1).flags(2), "(2+2p) MB at p=2");
    assertEquals(
        List.of("-XX:+UseZGC"), settings.get(2).flags(2), "ZGC sizes its own young generation");
    var exp = new GcExperiment(settings, List.of(1, 2), 25, 20, 1, 2, 128);
    List<GcExperiment.Result> rs = exp.run(null);
    assertEquals(3 * 2 * 4, rs.size(), "settings x threads x (2 programs x 2 runtimes)");
    assertTrue(rs.stream().allMatch(GcExperiment.Result::verified), rs.toString());
    assertTrue(rs.stream().allMatch(r -> r.timesMs().length == 2));
    // the JDK's fork-every fib(25) allocates ~6 MB per run (a task and a boxed Long per call): a 4
    // MB young
    // generation must collect at least once per run, and the child's GC figures must reach the
    // parent
    for (GcExperiment.Result r : rs) {
      if (r.setting().young().equals("4")
          && r.program().equals("fib-every")
          && r.runtime().equals("jdk")) {
        assertTrue(r.minorGcCount() >= 1, "young GCs per run: " + r);
      }
    }
    List<Map<String, Object>> recs = GcExperiment.records(rs, 25, 20);
    assertEquals(1.0, (Double) recs.get(0).get("speedup"), 1e-9, "speedup over itself at 1 thread");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    GcTables.print(recs, new PrintStream(buf));
    String out = buf.toString();
    assertTrue(
        out.contains("Figure 4-4")
            && out.contains("Serial    4 MB")
            && out.contains("ZGC       auto"),
        out);
    assertTrue(out.contains("every result verified"), out);
    assertTrue(ExperimentReport.section(recs).contains("id=\"experiment-gc\""));
  }
}

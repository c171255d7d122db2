package dev.tine.bench.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fork/join tuning study and the Solaris threading document experiments at toy sizes: every
 * result verified, the tables complete.
 */
@Timeout(120)
class ExperimentsTest {

  @Test
  void forkJoinTuningVerifiesAndPrintsTheStudysTables() {
    int[] ms = {1, 2};
    List<ForkJoinTuning.Run> runs = new ForkJoinTuning(20, 20_000).run(ms, null);
    assertTrue(runs.stream().allMatch(ForkJoinTuning.Run::verified), runs.toString());
    // fib: program 1 + (2 jdk, 3 jdk, 2 tine, 3 tine) per multiplicity; quicksort: 1 + 3 per
    // multiplicity
    assertEquals(1 + 4 * ms.length + 1 + 3 * ms.length, runs.size());
    ForkJoinTuning.Run tine2 = ForkJoinTuning.find(runs, "fib", "2", "tine", 2);
    assertEquals(10_945, tine2.forks(), "fib(20) program 2 forks fib(21) - 1 times");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    ForkJoinTuningTables.print(runs, ms, new PrintStream(buf));
    String out = buf.toString();
    for (String t :
        List.of(
            "Table 2-1",
            "Table 2-2",
            "Table 2-3",
            "Table 3-1",
            "Table 3-2",
            "Table 3-3",
            "Table 3-4")) {
      assertTrue(out.contains(t), t + " in\n" + out);
    }
    assertTrue(out.contains("every result verified"), out);
  }

  @Test
  void threadingModelsMeasureBothModels() throws Exception {
    ThreadingModels tm = new ThreadingModels();
    for (boolean virtual : new boolean[] {false, true}) {
      ThreadingModels.Result r = tm.run(virtual, true, 20, 0.4);
      assertTrue(r.unitsPerSec() > 0, r.toString());
      assertTrue(r.spread() >= 0 && r.spread() <= 1, r.toString());
      assertTrue(r.maxUnits() >= r.minUnits(), r.toString());
      assertEquals(20, r.threads());
    }
  }
}

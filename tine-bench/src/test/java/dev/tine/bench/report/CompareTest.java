package dev.tine.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tine.bench.cli.TineCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Run-to-run comparison on synthetic saved runs whose differences are known: a planted 20% slowdown
 * is flagged, two runs of the same build are not. The runs are drawn from seeded generators with
 * the noise of this box — the whole box 10% faster or slower from round to round, 5% per cell and
 * round, and one cell-round in 20 disturbed by up to +50% — with 10 rounds, the bench's default.
 */
class CompareTest {
  static final String[] PROGRAMS = {
    "fib",
    "fib-every",
    "fib-join",
    "quicksort",
    "integrate",
    "mm",
    "jacobi",
    "jacobi-sync10",
    "sort",
    "lu",
    "micro"
  };
  static final int ROUNDS = 10;
  static final String[][] CELLS = {
    {"seq", "1"}, {"tine", "1"}, {"jdk", "1"}, {"tine", "2"}, {"jdk", "2"}
  };

  static double noise(Random rnd, boolean quiet) {
    if (quiet) return Math.exp(0.02 * rnd.nextGaussian());
    return rnd.nextDouble() < 0.05
        ? 1 + 0.5 * rnd.nextDouble()
        : Math.exp(0.05 * rnd.nextGaussian());
  }

  /**
   * A saved run: every program's five cells, true time 100 ms × (1 + program index / 10), ×
   * slowdown on one cell.
   */
  static List<Map<String, Object>> run(Random rnd, int rounds, String slowCell, double slowdown) {
    return run(rnd, rounds, slowCell, slowdown, false);
  }

  static List<Map<String, Object>> run(
      Random rnd, int rounds, String slowCell, double slowdown, boolean quiet) {
    List<Map<String, Object>> rs = new ArrayList<>();
    double[] drift = new double[rounds];
    for (int i = 0; i < rounds; i++)
      drift[i] = Math.exp(0.1 * rnd.nextGaussian()); // the box, per round
    for (int p = 0; p < PROGRAMS.length; p++) {
      for (String[] c : CELLS) {
        String label = PROGRAMS[p] + " " + c[0] + " p=" + c[1];
        double truth = 100 * (1 + p / 10.0) * (label.equals(slowCell) ? slowdown : 1);
        List<Double> times = new ArrayList<>();
        for (int i = 0; i < rounds; i++) times.add(truth * drift[i] * noise(rnd, quiet));
        double median = times.stream().sorted().toList().get(rounds / 2);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("program", PROGRAMS[p]);
        m.put("parameters", "n=1");
        m.put("runtime", c[0]);
        m.put("threads", Integer.parseInt(c[1]));
        m.put("size", "quick");
        m.put("median_ms", median);
        m.put("times_ms", times);
        rs.add(m);
      }
    }
    return rs;
  }

  @Test
  void flagsAPlantedSlowdownAndNothingElse() {
    int planted = 0, falseFlags = 0, cells = 0;
    for (int seed = 0; seed < 20; seed++) {
      Random rnd = new Random(seed);
      List<Map<String, Object>> base = run(rnd, ROUNDS, null, 1),
          now = run(rnd, ROUNDS, "sort tine p=2", 1.2);
      Compare.Result res = Compare.compare(base, now, 0.05);
      assertEquals(55, res.rows().size());
      for (Compare.Row r : res.flagged()) {
        boolean isPlanted = r.program().equals("sort") && r.label().equals("tine p=2");
        if (isPlanted && r.verdict() == Compare.Verdict.SLOWER) planted++;
        else falseFlags++;
      }
      cells += res.rows().size() - 1;
    }
    assertTrue(
        planted >= 16,
        "the planted 20% slowdown was flagged in " + planted + " of 20 pairs of runs");
    assertTrue(falseFlags <= 2, falseFlags + " unchanged cells flagged out of " + cells);
  }

  @Test
  void twoRunsOfTheSameBuildAreNotFlagged() {
    int flagged = 0, cells = 0;
    for (int seed = 100; seed < 120; seed++) {
      Random rnd = new Random(seed);
      Compare.Result res =
          Compare.compare(run(rnd, ROUNDS, null, 1), run(rnd, ROUNDS, null, 1), 0.05);
      flagged += res.flagged().size();
      cells += res.rows().size();
      assertTrue(res.flagged().size() <= 1, "seed " + seed + ": " + res.flagged());
    }
    assertTrue(
        flagged <= 2,
        flagged
            + " of "
            + cells
            + " cells flagged between runs of the same build (Holm: at most"
            + " 5% of comparisons should flag anything)");
  }

  /**
   * The whole path: saved files, the CLI, its output. (The rates above are the statistical test;
   * here a quieter box, 2% noise per round, so that the plumbing is checked on a sure case.)
   */
  @Test
  void compareCommandOnSavedFiles(@TempDir Path dir) throws Exception {
    ObjectMapper json = new ObjectMapper();
    Random rnd = new Random(42);
    Path base = dir.resolve("base.json"),
        slow = dir.resolve("slow.json"),
        same = dir.resolve("same.json");
    json.writeValue(base.toFile(), run(rnd, ROUNDS, null, 1, true));
    json.writeValue(slow.toFile(), run(rnd, ROUNDS, "sort tine p=2", 1.2, true));
    json.writeValue(same.toFile(), run(rnd, ROUNDS, null, 1, true));
    String out = cli("compare", base.toString(), slow.toString());
    assertTrue(out.contains("55 cells in both runs"), out);
    String sortLine =
        out.lines()
            .filter(l -> l.trim().startsWith("sort ") && l.contains("tine p=2"))
            .findFirst()
            .orElseThrow();
    assertTrue(sortLine.contains("SLOWER"), out);
    assertTrue(out.contains("1 slower, 0 faster, 54 without a clear change"), out);
    String sameOut = cli("compare", base.toString(), same.toString());
    assertTrue(sameOut.contains("0 slower, 0 faster, 55 without a clear change"), sameOut);
    assertTrue(
        cli("compare", base.toString(), dir.resolve("missing.json").toString())
            .contains("missing.json: no such file"));
  }

  /** Only {@code programs}' cells of a run, every time × {@code box} (the whole box slower). */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> only(
      List<Map<String, Object>> run, List<String> programs, double box) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Map<String, Object> m : run) {
      if (!programs.contains((String) m.get("program"))) continue;
      Map<String, Object> c = new LinkedHashMap<>(m);
      c.put("times_ms", ((List<Double>) m.get("times_ms")).stream().map(t -> t * box).toList());
      c.put("median_ms", (Double) m.get("median_ms") * box);
      out.add(c);
    }
    return out;
  }

  /**
   * The README's "tine bench fib sort" run, compared on a box that became 30% slower: with two
   * programs there is no run-wide index, so each cell is read against its own program's sequential
   * cell. Before, every cell, the sequential rows included, was flagged SLOWER; a real 20% slowdown
   * is still found.
   */
  @Test
  void aSmallRunReadsEachProgramAgainstItsOwnSequentialCell() {
    List<String> two = List.of("fib", "sort");
    int boxFlags = 0, planted = 0;
    java.util.Set<Compare.Index> indexes = java.util.EnumSet.noneOf(Compare.Index.class);
    for (int seed = 200; seed < 210; seed++) {
      Random rnd = new Random(seed);
      List<Map<String, Object>> base = only(run(rnd, ROUNDS, null, 1, true), two, 1),
          slowerBox = only(run(rnd, ROUNDS, null, 1, true), two, 1.3),
          slowSort = only(run(rnd, ROUNDS, "sort tine p=2", 1.2, true), two, 1.3);
      Compare.Result res = Compare.compare(base, slowerBox, 0.05);
      assertEquals(10, res.rows().size());
      boxFlags += res.flagged().size();
      for (Compare.Row r : res.rows())
        if (r.runtime().equals("seq"))
          assertEquals(Compare.Verdict.SAME, r.verdict(), "the index is not flagged: " + r);
      indexes.add(res.index());
      for (Compare.Row r : Compare.compare(base, slowSort, 0.05).flagged())
        if (r.program().equals("sort") && r.label().equals("tine p=2")) planted++;
    }
    assertTrue(boxFlags <= 1, boxFlags + " cells flagged for the box's own slowdown");
    assertEquals(java.util.Set.of(Compare.Index.PROGRAM), indexes);
    assertTrue(planted >= 8, "the planted slowdown was flagged in " + planted + " of 10");
    Random rnd = new Random(7);
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    Compare.print(
        Compare.compare(
            only(run(rnd, ROUNDS, null, 1, true), two, 1),
            only(run(rnd, ROUNDS, null, 1, true), two, 1.3),
            0.05),
        "base.json",
        0.05,
        new PrintStream(o));
    String out = o.toString();
    assertTrue(out.contains("change vs own seq"), out);
    assertTrue(out.lines().anyMatch(l -> l.contains(" seq ") && l.contains("index")), out);
    assertTrue(out.lines().noneMatch(l -> l.contains("SLOWER") && !l.contains("flag:")), out);
    assertTrue(out.contains("columns:"), "the columns explained once: " + out);
  }

  /** The p printed is the one the flag reads: Holm's adjusted p. */
  @Test
  void thePrintedPIsHolmsAdjustedP() {
    Random rnd = new Random(42);
    List<Map<String, Object>> base = run(rnd, ROUNDS, null, 1, true),
        now = run(rnd, ROUNDS, "sort tine p=2", 1.2, true);
    Compare.Result res = Compare.compare(base, now, 0.05);
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    Compare.print(res, "base.json", 0.05, new PrintStream(o));
    String out = o.toString();
    for (Compare.Row r : res.rows()) {
      assertTrue(r.holmP() >= r.p(), r.toString());
      if (r.p() < 0.05 && r.holmP() > 0.05) // the raw p alone would have flagged it
      assertEquals(Compare.Verdict.SAME, r.verdict(), r.toString());
      if (r.verdict() != Compare.Verdict.SAME) assertTrue(r.holmP() <= 0.05, r.toString());
      String line =
          out.lines()
              .filter(
                  l -> l.trim().startsWith(r.program() + " ") && l.contains(" " + r.label() + " "))
              .findFirst()
              .orElseThrow();
      assertTrue(line.contains(Compare.pValue(r.holmP())), line + " shows Holm p " + r.holmP());
    }
    assertTrue(out.contains("Holm p"), out);
  }

  static String cli(String... args) {
    StringWriter err = new StringWriter();
    PrintStream old = System.out;
    ByteArrayOutputStream so = new ByteArrayOutputStream();
    System.setOut(new PrintStream(so));
    try {
      var cl = TineCli.commandLine();
      cl.setErr(new PrintWriter(err));
      cl.execute(args);
      return so + err.toString();
    } finally {
      System.setOut(old);
    }
  }
}

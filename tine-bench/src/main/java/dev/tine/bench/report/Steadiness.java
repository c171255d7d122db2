package dev.tine.bench.report;

import static dev.tine.bench.report.Charts.f;
import static dev.tine.bench.report.Charts.num;

import dev.tine.bench.run.RunConditions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Whether a run's machine was quiet enough for its scaling figures to mean much, judged from what
 * the run itself recorded: the load average against the cores, the measured two-thread ceiling, and
 * how far each cell's per-round ratio to the sequential time wandered between rounds. Built from
 * the JSON records, so a saved run is judged the same way.
 *
 * <p>The thresholds are deliberately loose: a quiet 2-core machine measures a two-thread ceiling of
 * 1.2-1.9 and keeps each cell's per-round ratios within about 1.5× of each other; a run that reads
 * a ceiling under {@value #LOW_CEILING}, or rounds {@value #WIDE_ROUNDS}× apart, has had its CPUs
 * taken by something else for a good part of the run.
 *
 * @param reasons why the machine looks busy; empty if it does not
 * @param holds what still holds in such a run, or "" if nothing is flagged
 */
public record Steadiness(List<String> reasons, String holds) {
  static final double LOW_CEILING = 1.3;
  static final double WIDE_ROUNDS = 2.5;
  public static final double BUSY_LOAD_PER_CORE = 1.5;

  /** True when the run looks disturbed. */
  public boolean busy() {
    return !reasons.isEmpty();
  }

  /** Judges a run from its records. */
  public static Steadiness of(List<Map<String, Object>> records) {
    List<String> why = new ArrayList<>();
    if (records.isEmpty()) return new Steadiness(why, "");
    RunConditions run = RunConditions.fromMap(records.get(0).get("run"));
    if (run != null && run.cores() > 0 && run.loadBefore() > BUSY_LOAD_PER_CORE * run.cores()) {
      why.add(
          f(
              "the load average was %.1f on %d %s when the run started (other processes wanted the CPUs)",
              run.loadBefore(), run.cores(), run.cores() == 1 ? "core" : "cores"));
    }
    double ceiling = num(records.get(0).get("ceiling"));
    int cores = run != null ? run.cores() : coresOf(records);
    if (Double.isFinite(ceiling) && cores >= 2 && ceiling < LOW_CEILING) {
      why.add(
          f(
              "two threads did only %.2f× the work of one (a quiet machine with %d cores measures 1.2-2.0×)",
              ceiling, cores));
    }
    Spread worst = null, worstP1 = null;
    for (Map<String, Object> m : records) {
      Spread s = spread(records, m);
      if (s == null) continue;
      if (worst == null || s.ratio() > worst.ratio()) worst = s;
      if (num(m.get("threads")) == 1 && (worstP1 == null || s.ratio() > worstP1.ratio()))
        worstP1 = s;
    }
    if (worst != null && worst.ratio() >= WIDE_ROUNDS) {
      why.add(
          f(
              "%s's rounds ranged from %.2f× to %.2f× of the sequential time",
              worst.label(), worst.low(), worst.high()));
    }
    if (why.isEmpty()) return new Steadiness(why, "");
    String holds;
    // p=1 "held" only if its own rounds stayed within what a quiet machine shows: being half as
    // wild as the worst p>1 cell (rounds 13x apart against 30x) is not steady
    if (worstP1 != null && worstP1.ratio() < WIDE_ROUNDS) {
      holds =
          "What still holds: ratios at p=1 (one worker, no contention for the second core) held"
              + " steady (their rounds stayed within "
              + spreadWords(worstP1.ratio())
              + "); speedups, %ceiling and the p≥2 verdicts can flip between two runs. Rerun on a"
              + " quiet machine, or with more --repeat, before relying on them.";
    } else {
      holds =
          "Even the p=1 ratios wandered"
              + (worstP1 != null ? " (rounds up to " + spreadWords(worstP1.ratio()) + ")" : "")
              + ", so read each figure only with its interval, and rerun on a quiet machine before"
              + " comparing runs.";
    }
    return new Steadiness(List.copyOf(why), holds);
  }

  /** "12%" of each other for a small spread, "3.5×" apart for a large one. */
  private static String spreadWords(double ratio) {
    return ratio < 2
        ? f("%.0f%% of each other", 100 * (ratio - 1))
        : f("%.1f× of each other", ratio);
  }

  /** One line per reason, for the console. */
  public List<String> lines() {
    if (!busy()) return List.of();
    List<String> l = new ArrayList<>();
    l.add("BUSY MACHINE: these figures were measured on a disturbed machine:");
    for (String r : reasons) l.add("  - " + r + ";");
    l.add("  " + holds);
    return l;
  }

  /** How far a non-sequential cell's per-round ratio to the sequential time wandered. */
  private record Spread(String label, double low, double high) {
    double ratio() {
      return high / low;
    }
  }

  private static Spread spread(List<Map<String, Object>> records, Map<String, Object> m) {
    if ("seq".equals(m.get("runtime"))) return null;
    Map<String, Object> seq = null;
    for (Map<String, Object> x : records)
      if ("seq".equals(x.get("runtime")) && x.get("program").equals(m.get("program"))) seq = x;
    if (seq == null) return null;
    double[] a = Compare.times(m), b = Compare.times(seq);
    int n = Math.min(a.length, b.length);
    double[] r =
        java.util.stream.IntStream.range(0, n)
            .mapToDouble(i -> a[i] / b[i])
            .filter(d -> Double.isFinite(d) && d > 0)
            .sorted()
            .toArray();
    if (r.length < 3) return null;
    return new Spread(
        m.get("program") + " " + m.get("runtime") + " p=" + (int) num(m.get("threads")),
        r[0],
        r[r.length - 1]);
  }

  private static int coresOf(List<Map<String, Object>> records) {
    Object machine = records.get(0).get("machine");
    return machine instanceof Map<?, ?> mm ? (int) num(mm.get("cores")) : -1;
  }

  @Override
  public String toString() {
    return String.join(System.lineSeparator(), lines());
  }
}

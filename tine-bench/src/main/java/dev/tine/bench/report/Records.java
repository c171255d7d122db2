package dev.tine.bench.report;

import dev.tine.bench.run.BenchResult;
import dev.tine.bench.run.Cell;
import dev.tine.bench.run.Engine;
import dev.tine.bench.run.RunConditions;
import dev.tine.bench.run.TineCounters;
import dev.tine.bench.stats.Ratio;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bench's JSON: one flat record per (program, engine, threads, size), as the README's schema
 * documents. Ratios are paired per round, as in the tables, each with its 95% interval; the
 * per-round times are kept so that a later run can be compared with this one ({@code --compare}).
 */
public final class Records {
  private Records() {}

  /** The records of a run, without its conditions (experiments that reuse the bench's cells). */
  public static List<Map<String, Object>> of(BenchResult r) {
    return of(r, null);
  }

  /**
   * The records of a run; each carries {@code run} (date, command line, load) when {@code
   * conditions} is given.
   */
  public static List<Map<String, Object>> of(BenchResult r, RunConditions conditions) {
    List<Map<String, Object>> out = new ArrayList<>();
    Map<String, Object> run = conditions == null ? null : conditions.toMap();
    double ceil = r.ceilingMedian();
    Map<String, Object> machine = r.machine() == null ? null : r.machine().toMap();
    for (Cell c : r.cells()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("program", c.program.name());
      m.put("parameters", c.workload.parameters());
      // a Tine-only rewrite: vs_jdk divides by that program's JDK version (not like for like)
      if (c.program.rewriteOf() != null) m.put("rewrite_of", c.program.rewriteOf());
      m.put("runtime", c.engine.id);
      m.put("threads", c.threads);
      m.put("size", r.size().id());
      m.put("runs", c.runs());
      m.put("median_ms", c.medianMillis());
      m.put("min_ms", c.minMillis());
      m.put("max_ms", c.maxMillis());
      m.put("verified", c.verified());
      Ratio xSeq = r.xSeq(c);
      ratio(m, "x_seq", xSeq);
      ratio(m, "speedup", xSeq.known() ? xSeq.inverse() : Ratio.NONE);
      m.put("ceiling", finite(ceil));
      if (c.engine != Engine.SEQ) m.put("thread_ceiling", finite(r.ceilingMedian(c.threads)));
      ratio(m, "vs_jdk", r.vsJdk(c));
      Ratio vsBuiltin = r.vsBuiltin(c);
      if (vsBuiltin.known()) ratio(m, "vs_builtin", vsBuiltin);
      if (c.engine == Engine.JDK_BUILTIN) m.put("builtin_form", c.workload.jdkBuiltinForm());
      m.put("times_ms", Arrays.stream(c.timesMs()).mapToObj(Records::finite).toList());
      int runs = Math.max(1, c.runs());
      if (c.engine.countsTasks()) {
        TineCounters k = c.counters().perRun(runs);
        m.put("forks", k.forks());
        m.put("steals", k.steals());
        m.put("local_pops", k.localPops());
        m.put("joins", k.joins());
        m.put("joins_helped", k.joinsHelped());
        m.put("joins_blocked", k.joinsBlocked());
        m.put("tasks_executed", k.tasksExecuted());
        m.put("parks", k.parks());
      } else if (c.engine == Engine.JDK || c.engine == Engine.JDK_BUILTIN) {
        m.put("steals", c.jdkSteals() / runs);
      }
      long tasks = c.workload.tasksPerRun();
      if (tasks > 0 && c.engine != Engine.SEQ) {
        m.put("task_rate_per_s", tasks / (c.medianMillis() / 1000.0));
      }
      m.put("minor_gc_count", (double) c.gc().minorCount() / runs);
      m.put("minor_gc_ms", (double) c.gc().minorMillis() / runs);
      m.put("full_gc_count", (double) c.gc().fullCount() / runs);
      m.put("full_gc_ms", (double) c.gc().fullMillis() / runs);
      if (!c.verified()) m.put("failure", c.failure());
      if (r.machine() != null) m.put("machine", machine);
      if (run != null) m.put("run", run);
      out.add(m);
    }
    return out;
  }

  /**
   * {@code name}, {@code name_ci_low}, {@code name_ci_high}: the ratio and its 95% interval (null
   * when not known; the seq cell's own x_seq is 1.0 with the interval [1.0, 1.0]).
   */
  static void ratio(Map<String, Object> m, String name, Ratio x) {
    m.put(name, finite(x.value()));
    m.put(name + "_ci_low", finite(x.low()));
    m.put(name + "_ci_high", finite(x.high()));
  }

  static Double finite(double d) {
    return Double.isFinite(d) ? d : null;
  }
}

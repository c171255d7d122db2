package dev.tine.bench.report;

import dev.tine.bench.run.BenchResult;
import dev.tine.bench.run.Cell;
import dev.tine.bench.run.Engine;
import dev.tine.bench.run.TineCounters;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bench's JSON: one flat record per (program, engine, threads, size), as the README's schema
 * documents. Ratios are paired per round, as in the tables.
 */
public final class Records {
  private Records() {}

  public static List<Map<String, Object>> of(BenchResult r) {
    List<Map<String, Object>> out = new ArrayList<>();
    double ceil = r.ceilingMedian();
    for (Cell c : r.cells()) {
      Cell seqCell = r.seqTwin(c), jdkCell = r.jdkTwin(c);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("program", c.program.name());
      m.put("parameters", c.workload.parameters());
      m.put("runtime", c.engine.id);
      m.put("threads", c.threads);
      m.put("size", r.size().id());
      m.put("runs", c.runs());
      m.put("median_ms", c.medianMillis());
      m.put("min_ms", c.minMillis());
      m.put("max_ms", c.maxMillis());
      m.put("verified", c.verified());
      double xSeq = seqCell == null ? Double.NaN : c.pairedRatio(seqCell);
      m.put("x_seq", finite(xSeq));
      m.put("speedup", finite(1 / xSeq));
      m.put("ceiling", finite(ceil));
      m.put("vs_jdk", c.engine.isTine() && jdkCell != null ? finite(c.pairedRatio(jdkCell)) : null);
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
      } else if (c.engine == Engine.JDK) {
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
      out.add(m);
    }
    return out;
  }

  static Double finite(double d) {
    return Double.isFinite(d) ? d : null;
  }
}

package dev.tine.bench.cli;

import dev.tine.executor.PoolSizeAdvisor;
import java.io.File;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tine advise}: a pool size from figures or a saved MeasuredExecutor snapshot. */
@Command(
    name = "advise",
    mixinStandardHelpOptions = true,
    description = {
      "Recommends a thread-pool size and shows the reasoning: Little's law, M/M/c (Erlang C) wait",
      "percentiles, Goetz's N = Ncpu*U*(1+W/C), and a CPU-capacity check.",
      "Give the figures (--arrival-rate and --service-ms at least), or a MeasuredExecutor snapshot",
      "saved as JSON (--snapshot, e.g. from 'tine experiment pool-sizing --snapshots DIR')."
    })
final class AdviseCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--arrival-rate",
      paramLabel = "PER_SEC",
      description = "Arrivals per second (lambda).")
  Double arrivalRate;

  @Option(
      names = "--service-ms",
      paramLabel = "MS",
      description = "Mean service time per task (S).")
  Double serviceMs;

  @Option(
      names = "--cpu-ms",
      paramLabel = "MS",
      description = "Mean CPU time per task (C), if known; enables Goetz and the CPU check.")
  Double cpuMs;

  @Option(
      names = "--cores",
      paramLabel = "N",
      description = "Processors for the pool (default: this machine's).")
  int cores = Runtime.getRuntime().availableProcessors();

  @Option(
      names = "--target-utilization",
      paramLabel = "U",
      description = "Per-thread (and CPU) utilization to aim for (default 0.8).")
  double targetUtilization = 0.8;

  @Option(
      names = "--percentile",
      paramLabel = "P",
      description = "Bound this percentile of the queueing wait (with --max-wait-ms).")
  Double percentile;

  @Option(names = "--max-wait-ms", paramLabel = "MS", description = "The bound on that percentile.")
  Double maxWaitMs;

  @Option(
      names = "--max-pool-size",
      paramLabel = "N",
      description = "Largest size to consider (default 10000).")
  int maxPoolSize = 10_000;

  @Option(
      names = "--snapshot",
      paramLabel = "FILE",
      description = "Read lambda, S, C and cores from a saved snapshot (JSON).")
  File snapshot;

  @Option(names = "--json", description = "Print the recommendation as JSON.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    PoolSizeAdvisor.Recommendation r;
    try {
      r = PoolSizeAdvisor.advise(inputs());
    } catch (IllegalArgumentException e) {
      throw Check.bad(spec, e.getMessage());
    }
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>(r.figures());
      m.put("reasoning", r.reasoning());
      System.out.println(JsonOutput.JSON.writeValueAsString(m));
    } else {
      System.out.println(r);
    }
    return 0;
  }

  private PoolSizeAdvisor.Inputs inputs() {
    double p = percentile == null ? Double.NaN : percentile;
    double w = maxWaitMs == null ? Double.NaN : maxWaitMs;
    if (snapshot == null) {
      if (arrivalRate == null || serviceMs == null) {
        throw Check.bad(spec, "give --arrival-rate and --service-ms, or --snapshot FILE");
      }
      return new PoolSizeAdvisor.Inputs(
          arrivalRate,
          serviceMs,
          cpuMs == null ? Double.NaN : cpuMs,
          cores,
          targetUtilization,
          p,
          w,
          maxPoolSize);
    }
    Map<String, Object> m;
    try {
      @SuppressWarnings("unchecked")
      Map<String, Object> read = JsonOutput.JSON.readValue(snapshot, Map.class);
      m = read;
    } catch (IOException e) {
      throw Check.bad(spec, "cannot read snapshot " + snapshot + ": " + e.getMessage());
    }
    double completed = num(m, "completed"),
        secs = num(m, "seconds"),
        util = num(m, "cpu_utilization");
    int procs = (int) num(m, "processors");
    double svc = num(m, "avg_service_ms");
    double c =
        util < 0 || completed == 0
            ? Double.NaN
            : Math.min(svc, util * secs * procs * 1000 / completed);
    return new PoolSizeAdvisor.Inputs(
        arrivalRate != null ? arrivalRate : num(m, "arrival_rate"),
        serviceMs != null ? serviceMs : svc,
        cpuMs != null ? cpuMs : c,
        procs,
        targetUtilization,
        p,
        w,
        maxPoolSize);
  }

  private double num(Map<String, Object> m, String key) {
    Object v = m.get(key);
    if (!(v instanceof Number n))
      throw Check.bad(spec, "snapshot " + snapshot + " has no number '" + key + "'");
    return n.doubleValue();
  }
}

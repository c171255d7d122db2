package dev.tine.bench.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.tine.executor.ExecutorSnapshot;
import dev.tine.executor.PoolSizeAdvisor;
import java.io.File;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tine advise}: a pool size from figures or a saved MeasuredExecutor snapshot. */
@Command(
    name = "advise",
    header = "Recommends a thread-pool size from figures or a saved snapshot, with the reasoning.",
    mixinStandardHelpOptions = true,
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {
      ExitCodes.DONE,
      ExitCodes.FAILED,
      ExitCodes.BAD_INPUT,
      ExitCodes.NO_SIZE_FITS_LINE
    },
    description = {
      "Recommends a thread-pool size and shows the reasoning: Little's law, M/M/c (Erlang C) wait "
          + "percentiles, Goetz's N = Ncpu*U*(1+W/C), and a CPU-capacity check. Give the figures "
          + "(--arrival-rate and --service-ms at least), or a MeasuredExecutor snapshot saved as JSON "
          + "(--snapshot, e.g. from 'tine experiment pool-sizing --snapshots DIR'). The target, unless "
          + "--percentile and --max-wait-ms give one: p90 queueing wait no longer than max(1 ms, S), "
          + "the same default as the pool-sizing experiment and tine top. A snapshot's answer never "
          + "contradicts its measured wait: when the pool waited less than M/M/c predicts (a closed or "
          + "throttled load: clients that wait for their reply), it is sized with the finite-source "
          + "queue, from --clients or from a population fitted to the measured waits. A snapshot of a "
          + "saturated open load (tasks waiting longer than they run, or its queue growing) gives a "
          + "lower bound, from the load it estimates was offered."
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
      description = "Utilization U in Goetz's formula (default 0.8).")
  double targetUtilization = 0.8;

  @Option(
      names = "--percentile",
      paramLabel = "P",
      description =
          "Bound this percentile of the queueing wait (with --max-wait-ms; default: 90, bound max(1 ms, S)).")
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
      description =
          "Read lambda, S, C and cores from a saved snapshot (JSON, written by 'tine experiment"
              + " pool-sizing --snapshots DIR').")
  File snapshot;

  @Option(
      names = "--clients",
      paramLabel = "N",
      description =
          "With --snapshot: N clients sent the tasks, each waiting for its reply (a closed"
              + " population, as in the pool-sizing experiment); sized with the finite-source queue.")
  Integer clients;

  @Option(names = "--json", description = "Print the recommendation as JSON.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    if ((percentile == null) != (maxWaitMs == null))
      throw Check.bad(spec, "give both --percentile and --max-wait-ms, or neither");
    PoolSizeAdvisor.Recommendation r;
    String target;
    try {
      if (snapshot != null) {
        if (arrivalRate != null || serviceMs != null || cpuMs != null)
          throw Check.bad(
              spec,
              "--snapshot takes λ, S and C from the file; give either the snapshot or the figures");
        if (clients != null && clients <= 0)
          throw Check.bad(spec, "--clients must be positive, was " + clients);
        ExecutorSnapshot s = snapshot();
        double svc = s.avgServiceMs();
        target = target(svc);
        r =
            PoolSizeAdvisor.adviseSnapshot(
                s,
                clients == null ? 0 : clients,
                targetUtilization,
                percentile != null ? percentile : PoolSizeAdvisor.DEFAULT_PERCENTILE,
                maxWaitMs != null ? maxWaitMs : PoolSizeAdvisor.defaultMaxWaitMs(svc),
                maxPoolSize);
      } else {
        if (clients != null) throw Check.bad(spec, "--clients goes with --snapshot");
        if (arrivalRate == null || serviceMs == null) {
          throw Check.bad(spec, "give --arrival-rate and --service-ms, or --snapshot FILE");
        }
        target = target(serviceMs);
        r =
            PoolSizeAdvisor.advise(
                new PoolSizeAdvisor.Inputs(
                    arrivalRate,
                    serviceMs,
                    cpuMs == null ? Double.NaN : cpuMs,
                    cores,
                    targetUtilization,
                    percentile != null ? percentile : PoolSizeAdvisor.DEFAULT_PERCENTILE,
                    maxWaitMs != null ? maxWaitMs : PoolSizeAdvisor.defaultMaxWaitMs(serviceMs),
                    maxPoolSize));
      }
    } catch (PoolSizeAdvisor.NoSizeFits e) {
      // a valid question without an answer is not a usage error: its own exit code
      spec.commandLine().getErr().println("tine advise: no pool size fits: " + e.getMessage());
      spec.commandLine().getErr().flush();
      return ExitCodes.NO_SIZE_FITS;
    } catch (IllegalArgumentException e) {
      throw Check.bad(spec, e.getMessage());
    }
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("target", target);
      m.putAll(r.figures());
      m.put("lower_bound", r.lowerBound());
      m.put("reasoning", r.reasoning());
      System.out.println(JsonOutput.JSON.writeValueAsString(m));
    } else {
      System.out.println("target: " + target);
      System.out.println(r);
    }
    return 0;
  }

  private String target(double serviceMs) {
    if (percentile != null)
      return String.format(
          Locale.ROOT, "p%s queueing wait ≤ %.4g ms (given)", trim(percentile), maxWaitMs);
    return PoolSizeAdvisor.defaultTargetWords(serviceMs);
  }

  private static String trim(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }

  /** The saved snapshot, or a one-line reason why the file is not one. */
  private ExecutorSnapshot snapshot() {
    Map<String, Object> m =
        JsonFiles.read(
            spec,
            snapshot,
            new TypeReference<Map<String, Object>>() {},
            "a snapshot written by --snapshots");
    try {
      return ExecutorSnapshot.fromMap(m);
    } catch (IllegalArgumentException e) {
      throw Check.bad(
          spec, snapshot + " is not a snapshot written by --snapshots (" + e.getMessage() + ")");
    }
  }
}

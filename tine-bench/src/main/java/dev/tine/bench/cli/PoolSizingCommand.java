package dev.tine.bench.cli;

import dev.tine.bench.experiments.PoolSizing;
import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tine experiment pool-sizing}: Pepperdine's article. */
@Command(
    name = "pool-sizing",
    header =
        "Clients x pool sizes on a measured server, with the advisor's size (Pepperdine's article).",
    mixinStandardHelpOptions = true,
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.DONE, ExitCodes.FAILED, ExitCodes.BAD_INPUT},
    description = {
      "Pepperdine's article: a loopback server whose requests compute (sqrt(2) to many digits) or sleep (an",
      "external call), on a MeasuredExecutor; 1 and 10 closed-loop clients x pool sizes 1, 4, 8",
      "and self-sizing. Prints throughput, Little's L, dead-time ratio, CPU, p90 wait and the",
      "advisor's recommendation for each."
    })
final class PoolSizingCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--quick",
      description = "Short runs (1 s warm-up + 1 s measured, instead of 2 s + 5 s).")
  boolean quick;

  @Option(
      names = "--seconds",
      paramLabel = "S",
      description = "Measured seconds per run, after the warm-up (overrides --quick).")
  Double seconds;

  @Option(
      names = "--clients",
      split = ",",
      hideParamSyntax = true,
      paramLabel = "N[,N]",
      description = "Client counts (default 1,10).")
  List<Integer> clients = List.of(1, 10);

  @Option(
      names = "--pools",
      split = ",",
      hideParamSyntax = true,
      paramLabel = "SIZE[,...]",
      description = "Pool sizes, numbers or 'adaptive' (default 1,4,8,adaptive).")
  List<String> pools = List.of("1", "4", "8", "adaptive");

  @Option(
      names = "--cpu-digits",
      paramLabel = "D",
      description = "Digits of sqrt(2) per CPU request (default 10000, about 1 ms).")
  int cpuDigits = 10_000;

  @Option(
      names = "--sleep-ms",
      paramLabel = "MS",
      description = "Sleep per I/O request (default 5).")
  int sleepMs = 5;

  @Option(
      names = "--cpu-share",
      paramLabel = "F",
      description = "Fraction of requests that compute (default 0.5).")
  double cpuShare = 0.5;

  @Mixin JsonOutput json = new JsonOutput();

  @Option(
      names = "--snapshots",
      paramLabel = "DIR",
      description = "Save each run's executor snapshot as JSON (for 'tine advise --snapshot').")
  File snapshots;

  private void check(double secs) {
    Check.inOpenClosed(spec, "--seconds", secs, 0, 3600);
    Check.inRange(spec, "--clients", clients, 1, 1000);
    for (String p : pools) {
      if (p.equals("adaptive")) continue;
      int size;
      try {
        size = Integer.parseInt(p);
      } catch (NumberFormatException e) {
        throw Check.bad(spec, "--pools takes numbers or 'adaptive', not '" + p + "'");
      }
      if (size <= 0) throw Check.bad(spec, "--pools sizes must be positive, was " + size);
    }
    Check.inRange(spec, "--cpu-digits", cpuDigits, 1, 100_000);
    if (sleepMs < 0) throw Check.bad(spec, "--sleep-ms must not be negative, was " + sleepMs);
    if (!(cpuShare >= 0 && cpuShare <= 1))
      throw Check.bad(spec, "--cpu-share must be in [0, 1], was " + cpuShare);
  }

  @Override
  public Integer call() throws Exception {
    double secs = seconds != null ? seconds : quick ? 1.0 : 5.0;
    check(secs);
    json.check(spec);
    OutputPaths.directory(spec, "--snapshots", snapshots);
    PrintStream out = json.tables();
    out.printf(
        "Pepperdine's article: requests %.0f%% compute (sqrt(2) to %d digits), %.0f%% sleep %d ms; each run %.1f s warm-up"
            + " then %.1f s measured; %d cores%n",
        100 * cpuShare,
        cpuDigits,
        100 * (1 - cpuShare),
        sleepMs,
        quick ? 1.0 : 2.0,
        secs,
        Runtime.getRuntime().availableProcessors());
    Duration warm = Duration.ofMillis(quick ? 1000 : 2000);
    PoolSizing exp =
        new PoolSizing(warm, Duration.ofMillis((long) (secs * 1000)), cpuDigits, sleepMs, cpuShare);
    List<PoolSizing.Result> rs =
        exp.run(clients.stream().mapToInt(Integer::intValue).toArray(), pools, out);
    out.println();
    PoolSizing.print(rs, out);
    out.println();
    out.println(
        "settled: seconds until the pool size stayed within 1 of its final value (self-sizing starts at 1).");
    out.println(
        "Little L: completions/s x mean response time = requests in the server on average (queued + running).");
    out.println(
        "dead time: share of response time spent queued (Pepperdine's ratio). advisor: the size PoolSizeAdvisor");
    out.println(
        "recommends from this run's snapshot for a p90 queueing wait no longer than max(1 ms, S) (the default");
    out.println(
        "target of 'tine advise --snapshot F --clients N' too), knowing the clients are a closed population:");
    out.println(
        "finite-source M/M/c, never more threads than clients, at most the pool's size when its measured p90");
    out.println("met the target and more when it did not.");
    for (int c : clients) {
      double bestFixed = 0, adaptive = -1;
      String best = "";
      for (PoolSizing.Result r : rs) {
        if (r.clients() != c) continue;
        if (r.poolSize().equals("adaptive")) adaptive = r.throughputRps();
        else if (r.throughputRps() > bestFixed) {
          bestFixed = r.throughputRps();
          best = r.poolSize();
        }
      }
      if (adaptive >= 0 && bestFixed > 0) {
        out.printf(
            Locale.ROOT,
            "%d %s: self-sizing reached %.0f%% of the best fixed size's throughput (pool %s)%n",
            c,
            c == 1 ? "client" : "clients",
            100 * adaptive / bestFixed,
            best);
      }
    }
    if (snapshots != null) {
      Files.createDirectories(snapshots.toPath());
      for (PoolSizing.Result r : rs) {
        Path f =
            snapshots
                .toPath()
                .resolve("clients-" + r.clients() + "-pool-" + r.poolSize() + ".json");
        JsonOutput.JSON.writeValue(f.toFile(), r.snapshot().toMap());
      }
      out.println("snapshots written to " + snapshots);
    }
    List<Map<String, Object>> recs = new ArrayList<>();
    for (PoolSizing.Result r : rs) recs.add(r.toMap());
    json.write(recs);
    return 0;
  }
}

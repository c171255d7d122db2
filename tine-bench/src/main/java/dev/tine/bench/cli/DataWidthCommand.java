package dev.tine.bench.cli;

import dev.tine.bench.experiments.DataWidth;
import dev.tine.bench.report.ExperimentReport;
import dev.tine.bench.run.BenchResult;
import dev.tine.bench.run.Engine;
import dev.tine.bench.run.Threads;
import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tine experiment data-width}: Lea's paper §4.3. */
@Command(
    name = "data-width",
    header = "The same sort over byte, short, int and long data (Lea's paper §4.3).",
    mixinStandardHelpOptions = true,
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.DONE, ExitCodes.FAILED, ExitCodes.BAD_INPUT},
    description = {
      "Lea's paper §4.3 (Lea fig. 4-5): the same sort over byte, short, int and long data holding values "
          + "0..255. Cilksort sequentially and on Tine at each thread count, in interleaved rounds; prints "
          + "time, speedup over 1 thread with its 95%% interval, and the long/byte time ratio that Lea "
          + "measured as 242.5 s / 122.5 s. Every result is checked for order and for its multiset. --quick: "
          + "4M values, 5 rounds, under a minute on 2 cores."
    })
final class DataWidthCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--quick",
      description = "4,000,000 values and 5 timed rounds (default: 16,000,000 and 10).")
  boolean quick;

  @Option(
      names = "--n",
      paramLabel = "N",
      description = "Values to sort (overrides --quick's; Lea sorted 100,000,000).")
  Integer n;

  @Option(
      names = "--threads",
      split = ",",
      hideParamSyntax = true,
      paramLabel = "N[,N...]",
      description =
          "Thread counts (default: 1,2 on up to 2 cores; else 1,2,4,... up to the core count).")
  List<Integer> threads = Threads.defaults(Runtime.getRuntime().availableProcessors());

  @Option(
      names = "--runtime",
      split = ",",
      hideParamSyntax = true,
      paramLabel = "seq,tine[,jdk]",
      description = "Runtimes (default: seq,tine).")
  List<String> runtimes = List.of("seq", "tine");

  @Option(names = "--repeat", paramLabel = "N", description = "Timed rounds (overrides --quick's).")
  Integer repeat;

  @Option(
      names = "--report",
      paramLabel = "FILE",
      description = "Also write an HTML page with this experiment's section.")
  File report;

  @Mixin JsonOutput json = new JsonOutput();

  @Override
  public Integer call() throws Exception {
    int values = n != null ? n : quick ? 4_000_000 : 16_000_000,
        rounds = repeat != null ? repeat : quick ? 5 : 10;
    Check.inRange(spec, "--n", values, 2, 500_000_000);
    Check.inRange(spec, "--repeat", rounds, 1, 10_000);
    Check.inRange(spec, "--threads", threads, 1, 1024);
    List<Engine> engines = new ArrayList<>();
    for (String r : runtimes) {
      Engine e;
      try {
        e = Engine.parse(r);
      } catch (IllegalArgumentException ex) {
        throw Check.bad(spec, ex.getMessage());
      }
      if (e != Engine.SEQ && e != Engine.TINE && e != Engine.JDK)
        throw Check.bad(spec, "--runtime takes seq, tine and jdk here");
      engines.add(e);
    }
    json.check(spec);
    OutputPaths.file(spec, "--report", report);
    PrintStream out = json.tables();
    out.printf(
        "Lea's paper §4.3: cilksort of %,d values 0..255 as byte, short, int and long; runtimes %s, threads %s,"
            + " 2 warm-up + %d timed rounds%n",
        values, runtimes, threads, rounds);
    BenchResult r = DataWidth.run(values, threads, engines, 2, rounds, System.err);
    DataWidth.print(r, threads, out);
    List<Map<String, Object>> recs = DataWidth.records(r);
    json.write(recs);
    if (report != null) {
      Files.writeString(report.toPath(), ExperimentReport.page("Tine: data width", recs));
      out.println("HTML report written to " + report);
    }
    return r.allVerified() ? 0 : 1;
  }
}

package dev.tine.bench.cli;

import dev.tine.bench.experiments.GcExperiment;
import dev.tine.bench.experiments.GcTables;
import dev.tine.bench.report.ExperimentReport;
import dev.tine.bench.run.Machine;
import dev.tine.bench.run.Threads;
import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tine experiment gc}: Lea's paper §4.2. */
@Command(
    name = "gc",
    header = "How the collector and the young generation's size shape speedup (Lea's paper §4.2).",
    mixinStandardHelpOptions = true,
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.DONE, ExitCodes.FAILED, ExitCodes.BAD_INPUT},
    description = {
      "Lea's paper §4.2 (Lea fig. 4-4): how the heap shapes speedup. Fork-every fib and Lea's fib "
          + "(threshold 13) on Tine and the JDK at each thread count, in child JVMs, under each collector "
          + "(Serial, Parallel, G1, ZGC) with the young generation fixed by -Xmn at 4 MB, 64 MB and (2+2p) "
          + "MB as Lea swept his semi-spaces. Prints time, speedup over 1 thread, GC count and GC time per "
          + "run; every fib value is checked. --quick: about two minutes on 2 cores."
    })
final class GcCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--quick",
      description =
          "fib-every(31) and fib(35), 3 warm-up + 7 timed rounds per JVM (default: 34, 38, 3 + 10).")
  boolean quick;

  @Option(
      names = "--threads",
      split = ",",
      hideParamSyntax = true,
      paramLabel = "N[,N...]",
      description =
          "Thread counts (default: 1,2 on up to 2 cores; else 1,2,4,... up to the core count).")
  List<Integer> threads = Threads.defaults(Runtime.getRuntime().availableProcessors());

  @Option(
      names = "--collectors",
      split = ",",
      hideParamSyntax = true,
      paramLabel = "serial,parallel,g1,zgc",
      description = "Collectors (default: serial,parallel,g1,zgc).")
  List<String> collectors = List.of("serial", "parallel", "g1", "zgc");

  @Option(
      names = "--young",
      split = ",",
      hideParamSyntax = true,
      paramLabel = "MB|2+2p",
      description =
          "Young generation sizes in MB, or 2+2p (default: 4,64,2+2p; ZGC always sizes its own).")
  List<String> young = List.of("4", "64", "2+2p");

  @Option(
      names = "--heap-mb",
      paramLabel = "MB",
      description = "Heap of each child JVM, -Xms = -Xmx (default: 512).")
  int heapMb = 512;

  @Option(
      names = "--report",
      paramLabel = "FILE",
      description = "Also write an HTML page with this experiment's section.")
  File report;

  @Mixin JsonOutput json = new JsonOutput();

  @Override
  public Integer call() throws Exception {
    Check.inRange(spec, "--threads", threads, 1, 1024);
    for (String c : collectors) {
      if (!List.of("serial", "parallel", "g1", "zgc").contains(c)) {
        throw Check.bad(spec, "--collectors takes serial, parallel, g1 and zgc, not '" + c + "'");
      }
    }
    for (String y : young) {
      if (y.equals("2+2p")) continue;
      int mb;
      try {
        mb = Integer.parseInt(y);
      } catch (NumberFormatException e) {
        throw Check.bad(spec, "--young takes sizes in MB or 2+2p, not '" + y + "'");
      }
      Check.inRange(spec, "--young", mb, 1, heapMb / 2);
    }
    Check.inRange(spec, "--heap-mb", heapMb, 64, 1 << 20);
    json.check(spec);
    OutputPaths.file(spec, "--report", report);
    PrintStream out = json.tables();
    int everyN = quick ? 31 : 34, leaN = quick ? 35 : 38, warmup = 3, repeat = quick ? 7 : 10;
    var exp =
        new GcExperiment(
            GcExperiment.settings(collectors, young),
            threads,
            everyN,
            leaN,
            warmup,
            repeat,
            heapMb);
    out.printf(
        "Lea's paper §4.2: fork-every fib(%d) and Lea's fib(%d), Tine and JDK, %d warm-up + %d timed rounds per JVM,"
            + " heap %d MB; %s%n",
        everyN, leaN, warmup, repeat, heapMb, Machine.current());
    List<GcExperiment.Result> rs = exp.run(out);
    List<Map<String, Object>> recs = GcExperiment.records(rs, everyN, leaN);
    Map<String, Object> machine = Machine.current().toMap();
    machine.put("gc", "each setting's own (child JVMs)");
    recs.forEach(m -> m.put("machine", machine));
    GcTables.print(recs, out);
    json.write(recs);
    if (report != null) {
      Files.writeString(
          report.toPath(), ExperimentReport.page("Tine: garbage collection and speedup", recs));
      out.println("HTML report written to " + report);
    }
    return rs.stream().allMatch(GcExperiment.Result::verified) ? 0 : 1;
  }
}

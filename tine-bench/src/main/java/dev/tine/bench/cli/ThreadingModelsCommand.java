package dev.tine.bench.cli;

import dev.tine.bench.experiments.ThreadingModels;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tine experiment threading-models}: the Solaris threading document. */
@Command(
    name = "threading-models",
    header = "Platform (1:1) vs virtual (M:N) threads: throughput, fairness, memory.",
    mixinStandardHelpOptions = true,
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.DONE, ExitCodes.FAILED, ExitCodes.BAD_INPUT},
    description = {
      "The Solaris threading document's experiment on today's JVM: platform threads (1:1) vs virtual threads (M:N), 400 and 2000 "
          + "threads each repeating equal units of CPU work, then of blocking work (1 ms sleeps): "
          + "throughput and the fairness spread (most vs least work done, read mid-run); and what "
          + "parked threads cost in memory (the default stack size)."
    })
final class ThreadingModelsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--threads",
      split = ",",
      hideParamSyntax = true,
      paramLabel = "N[,N]",
      description = "Thread counts (default 400,2000).")
  List<Integer> threads = List.of(400, 2000);

  @Option(
      names = "--seconds",
      paramLabel = "S",
      description = "Seconds per run (default 2; 0.5 with --quick).")
  Double seconds;

  @Option(names = "--quick", description = "Half-second runs instead of 2 s (about 10 s in all).")
  boolean quick;

  @Mixin JsonOutput json = new JsonOutput();

  @Override
  public Integer call() throws Exception {
    Check.inRange(spec, "--threads", threads, 1, 20_000);
    double seconds = this.seconds != null ? this.seconds : quick ? 0.5 : 2;
    Check.inOpenClosed(spec, "--seconds", seconds, 0, 600);
    json.check(spec);
    PrintStream out = json.tables();
    var exp = new ThreadingModels();
    List<ThreadingModels.Result> rs = new ArrayList<>();
    out.println("  warming up the JIT (2 threads of each kind) ...");
    exp.warmUp();
    for (boolean blocking : new boolean[] {false, true}) {
      for (int n : threads) {
        for (boolean virtual : new boolean[] {false, true}) {
          out.printf(
              "  %s, %d %s threads ...%n",
              blocking ? "blocking" : "cpu", n, virtual ? "virtual" : "platform");
          rs.add(exp.run(virtual, blocking, n, seconds));
        }
      }
    }
    out.println();
    ThreadingModels.print(rs, out);
    out.println();
    out.printf(
        "%d cores. fairness spread: (most - least) / most units one thread did in the middle half of the run.%n",
        Runtime.getRuntime().availableProcessors());
    out.println(
        "Virtual threads are not time-sliced: with CPU work a few run to the end of the window while the");
    out.println(
        "others wait (spread near 100%) — the starvation the Solaris threading document saw under M:N, in its extreme form.");
    out.println("With blocking work they yield their carrier at every sleep and share it evenly.");
    out.println(
        "Platform threads are time-sliced: the kernel runs each for a slice of a few ms in turn, so a round");
    out.println(
        "takes about threads x slice / cores (2000 threads: ~3 s on a 2-core box). Over a middle window shorter");
    out.println(
        "than a round some threads get no slice (spread 100%, yet every thread works over the run): widen it");
    out.println("with --seconds (the middle window is half the run).");
    int n = threads.get(threads.size() - 1);
    // Virtual first: platform threads unmap their stacks a little after join returns, which made a
    // measurement right after them read negative.
    ThreadingModels.MemoryKb v = exp.parkedCost(true, n), p = exp.parkedCost(false, n);
    out.printf(
        "memory for %d parked threads (process VmSize / VmRSS deltas, so approximate): platform +%d MB of"
            + " address space (%.1f MB reserved per thread: its stack, guard pages and native bookkeeping; only touched"
            + " pages become resident) and %+d MB resident; virtual %+d MB address space, %+d MB resident (their stacks"
            + " are heap objects, as big as the frames in use)%n",
        n,
        p.addressSpaceKb() / 1024,
        p.addressSpaceKb() / 1024.0 / n,
        p.residentKb() / 1024,
        v.addressSpaceKb() / 1024,
        v.residentKb() / 1024);
    List<Map<String, Object>> recs = new ArrayList<>();
    for (var r : rs) recs.add(r.toMap());
    json.write(recs);
    return 0;
  }
}

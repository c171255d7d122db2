package dev.tine.bench.cli;

import dev.tine.bench.experiments.ForkJoinTuning;
import dev.tine.bench.experiments.ForkJoinTuningTables;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tine experiment fork-join-tuning}: the fork/join tuning study. */
@Command(
    name = "fork-join-tuning",
    header = "Forking at every step vs throttled forks, JDK and Tine (the fork/join tuning study).",
    mixinStandardHelpOptions = true,
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.DONE, ExitCodes.FAILED, ExitCodes.BAD_INPUT},
    description = {
      "The fork/join tuning study: fib(40) and quicksort of 2M ints, programs 1 (sequential), 2 (fork at every step)",
      "and 3 (forks throttled by an atomic counter) at multiplicity 1, 2, 4 and 8 on the JDK's",
      "ForkJoinPool, with Tine's rows beside them, in the layout of the study's tables 2-1..2-3",
      "and 3-1..3-4 (times, GC, fork/join/steal counts, worker CPU and BLOCKED/WAITING)."
    })
final class ForkJoinTuningCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--quick",
      description = "fib(32) and 200,000 elements instead of fib(40) and 2,000,000.")
  boolean quick;

  @Option(
      names = "--threads",
      split = ",",
      hideParamSyntax = true,
      paramLabel = "N[,N]",
      description = "Multiplicities (default 1,2,4,8).")
  List<Integer> threads = List.of(1, 2, 4, 8);

  @Mixin JsonOutput json = new JsonOutput();

  @Override
  public Integer call() throws Exception {
    Check.inRange(spec, "--threads", threads, 1, 256);
    json.check(spec);
    PrintStream out = json.tables();
    int fibN = quick ? 32 : 40, sortN = quick ? 200_000 : 2_000_000;
    out.printf(
        "the fork/join tuning study: fib(%d) and quicksort of %,d ints; one run per cell, as in the study%n",
        fibN, sortN);
    var exp = new ForkJoinTuning(fibN, sortN);
    int[] ms = threads.stream().mapToInt(Integer::intValue).toArray();
    List<ForkJoinTuning.Run> runs = exp.run(ms, out);
    ForkJoinTuningTables.print(runs, ms, out);
    json.write(runs.stream().map(ForkJoinTuning.Run::toMap).toList());
    return runs.stream().allMatch(ForkJoinTuning.Run::verified) ? 0 : 1;
  }
}

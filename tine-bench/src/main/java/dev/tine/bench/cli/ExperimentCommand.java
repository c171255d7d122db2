package dev.tine.bench.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code tine experiment}: the experiments of the source documents (Lea's paper, Pepperdine's
 * article and others), one subcommand each.
 */
@Command(
    name = "experiment",
    header = "Runs an experiment from the source documents on this machine.",
    mixinStandardHelpOptions = true,
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.DONE, ExitCodes.FAILED, ExitCodes.BAD_INPUT},
    description =
        "Runs one of the experiments of the source documents (Lea's paper, Pepperdine's article and others) on this machine (thread-pool ones on loopback TCP only).",
    subcommands = {
      PoolVsThreadsCommand.class,
      PoolSizingCommand.class,
      ThreadingModelsCommand.class,
      ForkJoinTuningCommand.class,
      GcCommand.class,
      DataWidthCommand.class,
      dev.tine.agent.experiment.AttachExperiment.class,
      CommandLine.HelpCommand.class
    })
final class ExperimentCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}

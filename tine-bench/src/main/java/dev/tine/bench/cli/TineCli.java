package dev.tine.bench.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code tine} command line. Every command reports bad input by throwing picocli's {@link
 * picocli.CommandLine.ParameterException}; {@link #commandLine()} maps it to one message on stderr,
 * a pointer to the command's help, and exit code 2.
 */
@Command(
    name = "tine",
    mixinStandardHelpOptions = true,
    version = "tine 0.1.0",
    description = "Tine: a work-stealing fork/join runtime, its benchmarks and experiments.",
    subcommands = {
      BenchCommand.class,
      CompareCommand.class,
      ReportCommand.class,
      AdviseCommand.class,
      ExperimentCommand.class,
      dev.tine.agent.top.TopCommand.class,
      CommandLine.HelpCommand.class
    })
public final class TineCli implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new TineCli());
    cl.setParameterExceptionHandler((ex, a) -> {
      CommandLine c = ex.getCommandLine();
      PrintWriter err = c.getErr();
      err.println("tine: " + ex.getMessage());
      err.println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for the options.");
      return 2;
    });
    return cl;
  }
}

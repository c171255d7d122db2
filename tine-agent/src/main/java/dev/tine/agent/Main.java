package dev.tine.agent;

import dev.tine.agent.top.TopCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code java -jar tine-agent.jar top <pid>}: the agent jar as a command line, for use without the
 * {@code tine} CLI (where {@code top} is a subcommand of its own).
 */
@Command(
    name = "tine-agent",
    mixinStandardHelpOptions = true,
    version = "tine-agent 0.1.0",
    description = "Measures the thread pools of a running JVM without changing its code.",
    subcommands = {
      TopCommand.class,
      dev.tine.agent.tune.TuneCommand.class,
      dev.tine.agent.experiment.AttachExperiment.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new Main()).execute(args));
  }
}

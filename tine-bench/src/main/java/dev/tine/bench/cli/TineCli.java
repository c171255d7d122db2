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
    versionProvider = TineCli.Version.class,
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.DONE, ExitCodes.FAILED, ExitCodes.BAD_INPUT},
    description =
        "Tine: a work-stealing fork/join runtime, a thread pool that measures itself, and an agent that"
            + " measures the pools of a running JVM; with benchmarks and experiments.",
    subcommands = {
      BenchCommand.class,
      CompareCommand.class,
      ReportCommand.class,
      AdviseCommand.class,
      ExperimentCommand.class,
      dev.tine.agent.top.TopCommand.class,
      dev.tine.agent.tune.TuneCommand.class,
      CommandLine.HelpCommand.class
    })
public final class TineCli implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * Runs {@code tine} and exits with its exit code.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** Lists the exit codes of a command from the agent module, unless it lists its own. */
  private static void exitCodes(CommandLine c, java.util.Map<String, String> codes) {
    if (c != null && c.getCommandSpec().usageMessage().exitCodeList().isEmpty())
      c.getCommandSpec().usageMessage().exitCodeListHeading(ExitCodes.HEADING).exitCodeList(codes);
  }

  /**
   * The version the build stamped into {@code version.properties} (resource filtering), so that
   * {@code --version} names the artifacts' version, SNAPSHOT included.
   */
  static final class Version implements CommandLine.IVersionProvider {
    static String version() {
      java.util.Properties p = new java.util.Properties();
      try (java.io.InputStream in = TineCli.class.getResourceAsStream("version.properties")) {
        if (in != null) p.load(in);
      } catch (java.io.IOException e) {
        // unreadable: "unknown" below
      }
      String v = p.getProperty("version", "");
      return v.isEmpty() || v.startsWith("${") ? "unknown (not built by Maven)" : v;
    }

    @Override
    public String[] getVersion() {
      return new String[] {"tine " + version()};
    }
  }

  private static void summary(CommandLine c, String header) {
    if (c != null && c.getCommandSpec().usageMessage().header().length == 0)
      c.getCommandSpec().usageMessage().header(header);
  }

  /**
   * The command line with Tine's error handling: bad input is one line on stderr and exit code 2.
   *
   * @return a new command line for {@code tine}
   */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new TineCli());
    // One-line summaries for the commands that live in the agent module, whose descriptions
    // are several lines long (the command lists show only a summary's first line).
    summary(
        cl.getSubcommands().get("top"),
        "Shows the thread pools of a running JVM, refreshed like top.");
    summary(
        cl.getSubcommands().get("experiment").getSubcommands().get("attach-experiment"),
        "Pepperdine's experiments on an unmodified server, measured by the agent.");
    summary(
        cl.getSubcommands().get("tune"),
        "Resizes the thread pools of a running JVM from their own figures, with guard rails.");
    exitCodes(cl.getSubcommands().get("top"), ExitCodes.top());
    exitCodes(
        cl.getSubcommands().get("experiment").getSubcommands().get("attach-experiment"),
        ExitCodes.standard());
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

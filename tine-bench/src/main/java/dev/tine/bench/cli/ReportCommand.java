package dev.tine.bench.cli;

import dev.tine.bench.report.HtmlReport;
import java.io.File;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tine report RUN.json -o report.html}: the HTML report of a saved bench run. */
@Command(
    name = "report",
    header = "Writes the HTML report of a saved bench run.",
    mixinStandardHelpOptions = true,
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.DONE, ExitCodes.FAILED, ExitCodes.BAD_INPUT},
    description = {
      "Writes the HTML report of a saved bench run (tine bench --json FILE), as 'tine bench --report' "
          + "does; with --include, the sections of saved experiment runs (tine experiment gc|data-width "
          + "--json FILE)."
    })
final class ReportCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "RUN.json", description = "A saved bench run.")
  File run;

  @Option(
      names = {"-o", "--out"},
      required = true,
      paramLabel = "FILE",
      description = "The HTML file to write.")
  File out;

  @Option(
      names = "--include",
      paramLabel = "EXPERIMENT.json",
      split = ",",
      hideParamSyntax = true,
      description = "Saved experiment runs to add as sections (gc, data-width).")
  List<File> include = List.of();

  @Option(
      names = "--title",
      paramLabel = "TEXT",
      description = "The page title (default: 'Tine bench').")
  String title = "Tine bench";

  @Override
  public Integer call() throws Exception {
    List<Map<String, Object>> records = CompareCommand.read(spec, run);
    List<String> sections = ExperimentSections.read(spec, include);
    OutputPaths.file(spec, "-o", out);
    Files.writeString(out.toPath(), HtmlReport.html(records, title, null, sections));
    System.out.println("HTML report written to " + out);
    return 0;
  }
}

package dev.tine.bench.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.tine.bench.report.Compare;
import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tine compare BASE.json NEW.json}: two saved bench runs, cell by cell. */
@Command(
    name = "compare",
    header = "Compares two saved bench runs cell by cell, as benchstat does.",
    mixinStandardHelpOptions = true,
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.DONE, ExitCodes.FAILED, ExitCodes.BAD_INPUT},
    description = {
      "Compares two saved bench runs (tine bench --json FILE), as benchstat does: for each cell in "
          + "both, the change of its median time with a 95%% interval, flagged SLOWER or FASTER only when "
          + "the interval excludes no change and the change is at least --min-change. 'tine bench --compare "
          + "BASE.json' runs the bench and compares it with BASE.json in one go."
    })
final class CompareCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "BASE.json", description = "The earlier run.")
  File base;

  @Parameters(index = "1", paramLabel = "NEW.json", description = "The later run.")
  File now;

  @Option(
      names = "--min-change",
      paramLabel = "PERCENT",
      description = "Smallest change to flag, in percent (default: 5).")
  double minChangePct = 5;

  @Override
  public Integer call() {
    double min = minChange(spec, minChangePct);
    List<Map<String, Object>> b = read(spec, base), n = read(spec, now);
    Compare.print(Compare.compare(b, n, min), base.getName(), min, System.out);
    return 0;
  }

  static double minChange(CommandSpec spec, double pct) {
    if (!(pct >= 0 && pct < 1000))
      throw Check.bad(spec, "--min-change must be in [0, 1000), was " + pct);
    return pct / 100;
  }

  /** A saved bench run, or a ParameterException naming the file and what is wrong with it. */
  static List<Map<String, Object>> read(CommandSpec spec, File f) {
    List<Map<String, Object>> rs =
        JsonFiles.read(
            spec,
            f,
            new TypeReference<List<Map<String, Object>>>() {},
            "a run saved by 'tine bench' (its --json file, or results/*.json)");
    for (Map<String, Object> m : rs) {
      if (!(m.get("program") instanceof String)
          || !(m.get("runtime") instanceof String)
          || !(m.get("median_ms") instanceof Number)) {
        throw Check.bad(
            spec,
            f
                + " is not a 'tine bench --json' file (a record lacks program, runtime or median_ms)");
      }
    }
    return rs;
  }
}

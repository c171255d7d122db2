package dev.tine.bench.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;

/** Report sections from saved experiment runs, for --include. */
final class ExperimentSections {
  private ExperimentSections() {}

  static List<String> read(CommandSpec spec, List<File> files) {
    List<String> sections = new ArrayList<>();
    for (File f : files) {
      List<Map<String, Object>> rs =
          JsonFiles.read(
              spec,
              f,
              new TypeReference<List<Map<String, Object>>>() {},
              "a gc or data-width experiment run (tine experiment ... --json FILE)");
      String section = dev.tine.bench.report.ExperimentReport.section(rs);
      if (section == null)
        throw Check.bad(
            spec, f + " is not a gc or data-width experiment run (tine experiment ... --json)");
      sections.add(section);
    }
    return sections;
  }
}

package dev.tine.bench.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import java.io.File;
import java.io.IOException;
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
      List<Map<String, Object>> rs;
      try {
        rs = JsonOutput.JSON.readValue(f, new TypeReference<List<Map<String, Object>>>() {});
      } catch (IOException e) {
        throw Check.bad(
            spec,
            "cannot read experiment records from "
                + f
                + ": "
                + e.getMessage().lines().findFirst().orElse(""));
      }
      String section = dev.tine.bench.report.ExperimentReport.section(rs);
      if (section == null)
        throw Check.bad(
            spec, f + " is not a gc or data-width experiment run (tine experiment ... --json)");
      sections.add(section);
    }
    return sections;
  }
}

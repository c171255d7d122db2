package dev.tine.bench.report;

import java.util.List;
import java.util.Map;

/** Report sections for the seed 002 §4.2/§4.3 experiments, chosen by the records' "experiment" field. */
public final class ExperimentReport {
  private ExperimentReport() {}

  /** The section for these records, or null if they are not from a known experiment. */
  public static String section(List<Map<String, Object>> records) {
    return null; // filled in with the gc and data-width experiments
  }
}

package dev.tine.bench;

import java.util.Map;

/** A benchmark program: a name, a description, and its workloads by size. */
public interface Program {
  String name();

  String description();

  /**
   * The workload at {@code size}, with per-program overrides such as {@code n=40} (keys are this
   * program's parameter names).
   */
  Workload workload(Size size, Map<String, String> overrides);

  static int intParam(Map<String, String> o, String key, int dflt) {
    String v = o.get(key);
    if (v == null) {
      return dflt;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "parameter " + key + " must be an integer, was '" + v + "'");
    }
  }
}

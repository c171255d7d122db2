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

  /**
   * For a program whose Tine version is rewritten with a Tine-only API ({@code Tine.joinLong}, a
   * {@code Scope} join) while its JDK version is another suite program's: that program's name. Null
   * (the default) for a program written the same way on both runtimes. The bench's headline
   * compares only the latter: a rewrite is reported on its own line, so that one JDK program is not
   * counted once per Tine form.
   */
  default String rewriteOf() {
    return null;
  }

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

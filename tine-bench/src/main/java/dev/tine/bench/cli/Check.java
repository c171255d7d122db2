package dev.tine.bench.cli;

import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Argument checks shared by the commands: each failure is a ParameterException (exit code 2). */
final class Check {
  private Check() {}

  static ParameterException bad(CommandSpec spec, String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  /** Every value in [lo, hi]. */
  static void inRange(CommandSpec spec, String option, List<Integer> values, int lo, int hi) {
    for (int v : values) inRange(spec, option, v, lo, hi);
  }

  static void inRange(CommandSpec spec, String option, int v, int lo, int hi) {
    if (v < lo || v > hi) throw bad(spec, option + " must be in " + lo + ".." + hi + ", was " + v);
  }

  /** {@code v} in (lo, hi]. */
  static void inOpenClosed(CommandSpec spec, String option, double v, double lo, double hi) {
    if (!(v > lo && v <= hi))
      throw bad(spec, option + " must be in (" + fmt(lo) + ", " + fmt(hi) + "], was " + fmt(v));
  }

  private static String fmt(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }
}

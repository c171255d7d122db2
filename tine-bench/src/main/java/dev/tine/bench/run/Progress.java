package dev.tine.bench.run;

import java.io.PrintStream;
import java.util.Locale;

/** A one-line progress display on stderr; only when it is a terminal and a run is long. */
final class Progress {
  private final PrintStream ps;
  private final int total;
  private final long start = System.nanoTime();
  private int done;
  private boolean shown;

  Progress(PrintStream ps, int total) {
    this.ps = isTerminal() ? ps : null; // a redirected stderr gets no carriage-return noise
    this.total = total;
  }

  static boolean isTerminal() {
    java.io.Console c = System.console();
    if (c == null) return false;
    try { // JDK 22+: a Console exists even when redirected; ask it
      return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(c);
    } catch (ReflectiveOperationException e) {
      return true; // JDK 21: a non-null console is a terminal
    }
  }

  void step(Cell c, String phase) {
    done++;
    if (ps == null) return;
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
    if (elapsedMs < 3000 && !shown) return; // short runs print no progress
    shown = true;
    int width = 30, filled = (int) ((long) width * (done - 1) / Math.max(1, total));
    ps.printf(
        Locale.ROOT,
        "\r[%s%s] %3d%% %-14s %-10s %-16s %5ds",
        "#".repeat(filled),
        " ".repeat(width - filled),
        100 * (done - 1) / Math.max(1, total),
        c.program.name(),
        c.label(),
        phase,
        elapsedMs / 1000);
    ps.flush();
  }

  void done() {
    if (ps != null && shown) {
      ps.print("\r" + " ".repeat(100) + "\r");
      ps.flush();
    }
  }
}

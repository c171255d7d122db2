package dev.tine.bench.run;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress on stderr: on a terminal, one line redrawn in place (only once a run is long); elsewhere
 * (CI, a pipe to tee) one plain line per round, so a log never sits silent for minutes. Rounds
 * interleave every program's cells, so no program is finished before the last round: a round is the
 * unit of progress.
 */
final class Progress {
  private final PrintStream ps;
  private final PrintStream lines;
  private final int total;
  private final long start = System.nanoTime();
  private int done;
  private boolean shown;

  Progress(PrintStream ps, int total) {
    boolean terminal = isTerminal();
    this.ps = terminal ? ps : null; // a redirected stderr gets no carriage-return noise
    this.lines = terminal ? null : ps;
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

  /** The end of a round: one line when not on a terminal. */
  void roundDone(int round, int warmup, int repeat, int programs) {
    if (lines == null) return;
    long s = (System.nanoTime() - start) / 1_000_000_000;
    boolean timed = round >= warmup;
    int left = warmup + repeat - round - 1;
    lines.printf(
        Locale.ROOT,
        "tine bench: %s round %d/%d done (%d %s), %d s elapsed, about %d s left%n",
        timed ? "timed" : "warm-up",
        timed ? round - warmup + 1 : round + 1,
        timed ? repeat : warmup,
        programs,
        programs == 1 ? "program" : "programs",
        s,
        left * s / (round + 1));
    lines.flush();
  }

  void done() {
    if (ps != null && shown) {
      ps.print("\r" + " ".repeat(100) + "\r");
      ps.flush();
    }
  }
}

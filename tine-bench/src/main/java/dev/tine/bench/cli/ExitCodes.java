package dev.tine.bench.cli;

import dev.tine.agent.resize.ResizeResult;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The exit codes the commands return, as their help lists them (picocli's {@code "code:meaning"}
 * form). 1 is picocli's code for an exception while running; 2 is {@link TineCli}'s for bad input.
 */
final class ExitCodes {
  private ExitCodes() {}

  static final String HEADING = "%nExit codes:%n";

  static final String DONE = "0:done";
  static final String FAILED = "1:failed while running (the reason on stderr)";
  static final String BAD_INPUT = "2:bad input, refused before any work (one line on stderr)";

  /** bench: a program's result was wrong. */
  static final String WRONG_RESULT =
      "1:a program computed a wrong result (FAILED in the tables), or the run failed";

  /** advise: the question was valid, but no pool size meets its target. */
  static final int NO_SIZE_FITS = 3;

  static final String NO_SIZE_FITS_LINE =
      "3:no pool size meets the target (the limit reached on stderr)";

  /**
   * tine top's codes (the command lives in the agent module, whose AttachClient returns them):
   * listed here, where the CLI assembles its help.
   */
  static Map<String, String> top() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("0", "done (also: the target exited, or --stop-agent found no agent)");
    m.put(
        "1",
        "could not attach or load the agent, or lost the connection; --resize: the pool refused"
            + " the size (put back as it was)");
    m.put(
        "2",
        "bad input, e.g. a size below 1 or above "
            + ResizeResult.MAX_SIZE
            + " (one line on stderr)");
    m.put("3", "no process with that pid");
    m.put("4", "the process belongs to another user");
    m.put("5", "the process is not a Java virtual machine");
    m.put(
        "6",
        "not loading the agent: the target's Java is too old, or its heap has too little room");
    m.put(
        Integer.toString(ResizeResult.NOT_RESIZABLE),
        "--resize/--restore: the pool's size cannot be set at run time (the reason on stderr)");
    m.put(
        Integer.toString(ResizeResult.NO_SUCH_POOL),
        "--resize/--restore: no pool of that name (or the prefix names several)");
    m.put(
        Integer.toString(ResizeResult.RESIZED_BY_ANOTHER),
        "--resize/--restore: another tool resized the pool since the agent last looked"
            + " (--force overrides)");
    m.put(
        Integer.toString(ResizeResult.NO_AGENT),
        "--resize/--restore: no agent runs in the target (none is loaded; nothing changed)");
    return m;
  }

  /** The agent module's experiment: picocli's codes. */
  static Map<String, String> standard() {
    Map<String, String> m = new LinkedHashMap<>();
    for (String s : new String[] {DONE, FAILED, BAD_INPUT}) {
      int colon = s.indexOf(':');
      m.put(s.substring(0, colon), s.substring(colon + 1));
    }
    return m;
  }
}

package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a test class's {@code main} in a child JVM under {@code -Xint} with a 1 MB stack, for the
 * overflow sweeps: in the interpreter every small method and {@code VarHandle} access is a call
 * that can overflow, so a sweep reaches each call of the runtime's fork and join paths.
 */
final class InterpretedChild {
  private InterpretedChild() {}

  /**
   * Starts {@code main} with {@code args}, waits up to two minutes, checks that it exited with 0,
   * and returns its whole output; {@link #lastLine} gives the summary line the tests print last.
   */
  static String run(Class<?> main, String... args) throws IOException, InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java.toString(),
                "-Xint",
                "-Xss1m",
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
    cmd.addAll(List.of(args));
    Process proc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    assertTrue(proc.waitFor(120, TimeUnit.SECONDS), "child JVM finished");
    String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertEquals(0, proc.exitValue(), out);
    return out;
  }

  /**
   * A sweep's probe: recurse {@code n} frames, then fork and join {@code k} frames further down.
   */
  interface Pad {
    long at(int n, int k);
  }

  /**
   * Runs {@code pad(d, k)} as a task for the {@code depths} depths from {@code deepest} down and
   * every {@code k} in {@code [0, maxK]}, each overflow delivered to us: the overflow then strikes
   * every call of the fork and join paths in turn.
   */
  static void sweep(WorkStealingPool pool, int deepest, int depths, int maxK, Pad pad) {
    for (int d = deepest; d > deepest - depths; d--) {
      for (int k = 0; k <= maxK; k++) {
        int dd = d, kk = k;
        try {
          pool.invoke(Task.of(() -> pad.at(dd, kk)));
        } catch (StackOverflowError e) {
          // delivered
        }
      }
    }
  }

  static String lastLine(String out) {
    return out.substring(out.lastIndexOf('\n') + 1);
  }
}

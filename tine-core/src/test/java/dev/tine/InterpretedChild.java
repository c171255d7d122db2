package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a test class's {@code main} in a child JVM under {@code -Xint} with a 1 MB stack, for the
 * overflow sweeps: in the interpreter every small method and {@code VarHandle} access is a call
 * that can overflow, so a sweep reaches each call of the runtime's fork and join paths.
 */
final class InterpretedChild {
  private InterpretedChild() {}

  /** No line from the child for this long: it wedged (or spins in a loop that prints nothing). */
  static final long SILENCE_SECONDS = 120;

  /** However much it prints, a child that runs longer than this fails. */
  static final long LIMIT_SECONDS = 30 * 60;

  /**
   * Starts {@code main} with {@code args}, waits while it makes progress, checks that it exited
   * with 0, and returns its whole output; {@link #lastLine} gives the summary line the tests print
   * last.
   *
   * <p>Progress, not a deadline: a child prints a line per step of its search and sweep ({@link
   * #progress}), and fails only after {@link #SILENCE_SECONDS} without one. A fixed two-minute
   * deadline failed children that were still working (about 20 s each on a quiet machine, over 120
   * s beside two other builds and a busy loop per core) and said nothing of where they were.
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
    StringBuffer out = new StringBuffer();
    AtomicLong lastLine = new AtomicLong(System.nanoTime());
    Thread reader =
        Thread.ofPlatform()
            .daemon()
            .start(() -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  out.append(line).append('\n');
                  lastLine.set(System.nanoTime());
                }
              } catch (IOException e) {
                out.append("(reading the child's output failed: ").append(e).append(")\n");
              }
            });
    long start = System.nanoTime();
    while (!proc.waitFor(1, TimeUnit.SECONDS)) {
      long now = System.nanoTime();
      boolean silent = now - lastLine.get() > TimeUnit.SECONDS.toNanos(SILENCE_SECONDS);
      if (silent || now - start > TimeUnit.SECONDS.toNanos(LIMIT_SECONDS)) {
        proc.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        reader.join(5_000);
        fail(
            (silent
                    ? "child JVM printed nothing for " + SILENCE_SECONDS + " s (wedged?)"
                    : "child JVM still running after " + LIMIT_SECONDS + " s")
                + "; its output so far:\n"
                + out);
      }
    }
    reader.join();
    String all = out.toString().trim();
    assertEquals(0, proc.exitValue(), all);
    return all;
  }

  /** A child's progress line (one per step of its search and sweep), so the parent waits on. */
  static void progress(String step) {
    System.out.println("progress " + step);
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
        progress("sweep depth " + d + " k " + k);
      }
    }
  }

  static String lastLine(String out) {
    return out.substring(out.lastIndexOf('\n') + 1);
  }
}

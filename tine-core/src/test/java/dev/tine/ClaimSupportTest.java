package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Claims are on exactly when the VM keeps the fence they rely on, that is when {@code
 * UseSystemMemoryBarrier} is off, however the flag was given: on the command line, in a {@code
 * -XX:Flags=} file (where it is written {@code +UseSystemMemoryBarrier}, without {@code -XX:}), in
 * a {@code -XX:VMOptionsFile=}, or in {@code JAVA_TOOL_OPTIONS}. Each case runs in a child JVM with
 * {@code -XX:+PrintFlagsFinal}, whose table is the ground truth: the value the VM itself runs with.
 * A VM that cannot say (no diagnostic bean) gets claims off: the safe direction.
 *
 * <p>Planted bug it catches (the original detection, which scanned the command line for {@code
 * -XX:+UseSystemMemoryBarrier}): with the flag in a {@code -XX:Flags=} file the child reports
 * claims on while the VM runs without the fence.
 */
class ClaimSupportTest {
  /** The child: prints whether claims are on. */
  public static void main(String[] args) {
    System.out.println("claims=" + LatentStack.claimsSupported());
  }

  private static final Pattern FLAG =
      Pattern.compile("bool\\s+UseSystemMemoryBarrier\\s+=\\s+(true|false)");
  private static final Pattern CLAIMS = Pattern.compile("(?m)^claims=(true|false)$");

  static Stream<Arguments> ways() {
    return Stream.of(
        Arguments.of("not given", false),
        Arguments.of("command line", true),
        Arguments.of("command line, off", false),
        Arguments.of("Flags file", true),
        Arguments.of("Flags file, off", false),
        Arguments.of("VMOptionsFile", true),
        Arguments.of("JAVA_TOOL_OPTIONS", true));
  }

  /**
   * A VM that cannot answer (its diagnostic bean's module, jdk.management, left out): the barrier
   * may be on for all we know, so claims are off, although this VM runs without it.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("unanswered")
  void claimsAreOffWhenTheVmCannotSay(String way, List<String> opts) throws Exception {
    String out = runChild(opts, Map.of());
    Matcher flag = FLAG.matcher(out);
    assertTrue(flag.find(), "the child printed its flags:\n" + out);
    assertEquals("false", flag.group(1), "this child runs without the barrier");
    Matcher claims = CLAIMS.matcher(out);
    assertTrue(claims.find(), "the child printed claims=...:\n" + out);
    assertEquals("false", claims.group(1), way + ": claims must be off when the VM cannot say");
  }

  static Stream<Arguments> unanswered() {
    return Stream.of(
        Arguments.of(
            "without jdk.management", List.of("--limit-modules", "java.base,java.management")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("ways")
  void claimsAreOffExactlyWhenTheVmUsesTheSystemMemoryBarrier(
      String way, boolean given, @TempDir Path dir) throws Exception {
    List<String> opts = new ArrayList<>();
    Map<String, String> env = new java.util.HashMap<>();
    switch (way) {
      case "not given" -> {}
      case "command line" -> opts.add("-XX:+UseSystemMemoryBarrier");
      case "command line, off" -> opts.add("-XX:-UseSystemMemoryBarrier");
      case "Flags file" -> opts.add("-XX:Flags=" + write(dir, "flags", "+UseSystemMemoryBarrier"));
      case "Flags file, off" ->
          opts.add("-XX:Flags=" + write(dir, "flags", "-UseSystemMemoryBarrier"));
      case "VMOptionsFile" ->
          opts.add("-XX:VMOptionsFile=" + write(dir, "options", "-XX:+UseSystemMemoryBarrier"));
      case "JAVA_TOOL_OPTIONS" -> env.put("JAVA_TOOL_OPTIONS", "-XX:+UseSystemMemoryBarrier");
      default -> throw new IllegalArgumentException(way);
    }
    String out = runChild(opts, env);
    Matcher flag = FLAG.matcher(out);
    assertTrue(flag.find(), "the child printed its flags:\n" + out);
    boolean barrier = Boolean.parseBoolean(flag.group(1));
    if (given) {
      assumeTrue(barrier, "this OS does not offer the system memory barrier: the VM turned it off");
    }
    Matcher claims = CLAIMS.matcher(out);
    assertTrue(claims.find(), "the child printed claims=...:\n" + out);
    assertEquals(
        !barrier,
        Boolean.parseBoolean(claims.group(1)),
        way
            + ": UseSystemMemoryBarrier is "
            + barrier
            + " in the VM, so claims must be "
            + !barrier);
  }

  private static Path write(Path dir, String name, String line) throws IOException {
    return Files.writeString(dir.resolve(name), line + "\n", StandardCharsets.UTF_8);
  }

  private static String runChild(List<String> opts, Map<String, String> env)
      throws IOException, InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = new ArrayList<>();
    cmd.add(java.toString());
    cmd.addAll(opts);
    cmd.addAll(
        List.of(
            "-XX:+PrintFlagsFinal",
            "-cp",
            System.getProperty("java.class.path"),
            ClaimSupportTest.class.getName()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    pb.environment().remove("JDK_JAVA_OPTIONS");
    pb.environment().putAll(env);
    Process proc = pb.start();
    // Read while it runs: the flag table is large enough to fill a pipe.
    byte[] bytes = proc.getInputStream().readAllBytes();
    assertTrue(proc.waitFor(120, TimeUnit.SECONDS), "child JVM finished");
    String out = new String(bytes, StandardCharsets.UTF_8);
    assertEquals(0, proc.exitValue(), out);
    return out;
  }
}

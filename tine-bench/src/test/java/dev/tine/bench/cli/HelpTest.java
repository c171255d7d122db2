package dev.tine.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every command's help, read as a user reads it: no warning from picocli (an unescaped % in a
 * description made {@code tine top --help} start with three), every option named, and the exit
 * codes listed.
 */
class HelpTest {
  /** The command paths, e.g. [experiment, pool-sizing], of every command but picocli's help. */
  static List<List<String>> commands() {
    List<List<String>> out = new ArrayList<>();
    out.add(List.of());
    walk(TineCli.commandLine(), new ArrayList<>(), out, new IdentityHashMap<>());
    return out;
  }

  private static void walk(
      CommandLine cl, List<String> path, List<List<String>> out, Map<CommandLine, Boolean> seen) {
    for (var e : cl.getSubcommands().entrySet()) {
      if (e.getKey().equals("help") || seen.put(e.getValue(), true) != null) continue; // aliases
      List<String> p = new ArrayList<>(path);
      p.add(e.getKey());
      out.add(p);
      walk(e.getValue(), p, out, seen);
    }
  }

  private static CommandLine find(List<String> path) {
    CommandLine c = TineCli.commandLine();
    for (String s : path) c = c.getSubcommands().get(s);
    return c;
  }

  @Test
  void everyHelpIsCleanAndComplete() {
    List<List<String>> cmds = commands();
    for (String expected :
        List.of("bench", "compare", "report", "advise", "top", "tune", "experiment"))
      assertTrue(cmds.contains(List.of(expected)), "walked " + expected + ": " + cmds);
    assertTrue(cmds.size() >= 14, "every experiment too: " + cmds);
    for (List<String> path : cmds) {
      List<String> args = new ArrayList<>(path);
      args.add("--help");
      CliTest.Run r = CliTest.run(args.toArray(String[]::new));
      String what = "tine " + String.join(" ", args) + ": " + r;
      assertEquals(0, r.code(), what);
      assertEquals("", r.err(), "nothing on stderr, no picocli warning: " + what);
      assertFalse(r.out().contains("[picocli"), what);
      var spec = find(path).getCommandSpec();
      for (OptionSpec o : spec.options()) {
        if (o.hidden()) continue;
        String shown =
            o.negatable()
                ? "--[no-]" + o.longestName().substring(2)
                : o.longestName(); // --[no-]save
        assertTrue(r.out().contains(shown), shown + " listed: " + what);
      }
      assertTrue(r.out().contains("Exit codes:"), "exit codes listed: " + what);
      var codes = spec.usageMessage().exitCodeList();
      assertTrue(codes.containsKey("0") && codes.containsKey("2"), what);
      for (var c : codes.entrySet()) { // the code, then its meaning's start (long ones wrap)
        assertTrue(
            Pattern.compile(
                    "(?m)^\\s*"
                        + c.getKey()
                        + "\\s+"
                        + Pattern.quote(
                            c.getValue().substring(0, Math.min(20, c.getValue().length()))))
                .matcher(r.out())
                .find(),
            "code " + c.getKey() + " listed: " + what);
      }
    }
  }

  /** tine top lists what AttachClient returns: 3 no such process, ... */
  @Test
  void topListsItsOwnExitCodes() {
    CliTest.Run r = CliTest.run("top", "--help");
    for (String code : List.of("3", "4", "5", "6"))
      assertTrue(Pattern.compile("(?m)^\\s*" + code + "\\s+\\w").matcher(r.out()).find(), r.out());
    assertTrue(r.out().contains("DEAD%, the share"), "%% printed as %: " + r.out());
  }

  /** --version names the build's version (0.1.0-SNAPSHOT while the artifacts are snapshots). */
  @Test
  void versionIsTheBuildsVersion() throws Exception {
    String pom = Files.readString(Path.of("pom.xml")); // surefire runs in the module's directory
    Matcher m =
        Pattern.compile("<parent>.*?<version>([^<]+)</version>", Pattern.DOTALL).matcher(pom);
    assertTrue(m.find(), "the parent's version in tine-bench/pom.xml");
    CliTest.Run r = CliTest.run("--version");
    assertEquals(0, r.code(), r.toString());
    assertEquals("tine " + m.group(1), r.out().strip());
  }

  /** A valid question without an answer is not a usage error: exit 3, the reason on stderr. */
  @Test
  void adviseWithoutAnAnswerHasItsOwnExitCode() {
    // 800/s × 5 ms of CPU is 4 cores' worth on 2: no pool size serves it
    CliTest.Run r =
        CliTest.run(
            "advise",
            "--arrival-rate",
            "800",
            "--service-ms",
            "10",
            "--cpu-ms",
            "5",
            "--cores",
            "2");
    assertEquals(ExitCodes.NO_SIZE_FITS, r.code(), r.toString());
    assertTrue(r.err().startsWith("tine advise: no pool size fits: "), r.err());
    assertEquals(1, r.err().lines().count(), r.err());
    assertFalse(r.err().contains("--help"), "not a usage error: " + r.err());
  }
}

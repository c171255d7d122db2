package dev.tine.agent.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.servers.ServerHarness.Mode;
import dev.tine.agent.servers.ServerHarness.ServerProcess;
import dev.tine.agent.top.AttachClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Bad input to {@code tine tune} changes nothing: one line on stderr, the documented exit code, and
 * the target's pool as it was (its size, and no resize counted by the agent).
 */
class TuneInputIT {
  static int sizeAndResizes(AttachClient agent, int[] out) throws Exception {
    for (Map<String, Object> p : agent.pools()) {
      if (String.valueOf(p.get("Name")).startsWith("tomcat-exec")) {
        out[0] = ((Number) p.get("CurrentSize")).intValue();
        out[1] = ((Number) p.get("ResizeCount")).intValue();
        return out[0];
      }
    }
    throw new AssertionError("no Tomcat pool in " + agent.pools());
  }

  static TuneRun tune(String... args) {
    return new TuneRun(args);
  }

  @Test
  void badInputIsOneLineAnExitCodeAndNothingChanged() throws Exception {
    try (ServerProcess server =
        new ServerProcess(Mode.AT_START, TomcatServer.class, List.of("2"))) {
      String[] hello = server.expect("PORT", 60).split(" ");
      String pid = hello[3];
      try (HttpLoad load = new HttpLoad(Integer.parseInt(hello[1]), 8, 5_000, 2_000, false);
          AttachClient agent =
              AttachClient.attach(
                  Long.parseLong(pid),
                  ServerHarness.agentJar(),
                  null,
                  AttachClient.Mode.EXISTING)) {
        while (load.answered.get() < 200) Thread.sleep(20);
        // the pool is measured (and its size known) before the bad commands
        int[] before = new int[2];
        for (long deadline = System.nanoTime() + 30_000_000_000L; System.nanoTime() < deadline; ) {
          try {
            sizeAndResizes(agent, before);
            break;
          } catch (AssertionError e) {
            Thread.sleep(200);
          }
        }
        String[][] cases = {
          {"2", "--min 8 is above --max 4", pid, "--min", "8", "--max", "4", "--apply"},
          {"2", "--min must be positive", pid, "--min", "0", "--max", "4", "--apply"},
          {"2", "--max: a pool size must be at least 1", pid, "--max", "0"},
          {"8", "no pool named 'nosuch'", pid, "nosuch", "--max", "4", "--apply"},
          {"2", "--restore-on-exit goes with --apply", pid, "--max", "4", "--restore-on-exit"}
        };
        for (String[] c : cases) {
          TuneRun t = tune(java.util.Arrays.copyOfRange(c, 2, c.length));
          int code = t.waitFor(60);
          String err = t.err.toString().trim();
          System.out.println(
              "tune "
                  + String.join(" ", java.util.Arrays.copyOfRange(c, 2, c.length))
                  + " -> "
                  + code
                  + ": "
                  + err);
          assertEquals(Integer.parseInt(c[0]), code, err);
          assertTrue(err.contains(c[1]) && !err.contains("\n"), "one line: " + err);
          assertTrue(err.contains("nothing changed"), err);
          assertEquals(List.of(), t.lines, "nothing on stdout");
        }
        int[] after = new int[2];
        sizeAndResizes(agent, after);
        assertEquals(before[0], after[0], "the pool's size");
        assertEquals(0, after[1], "resizes the agent counted");
        // a pool another tool already resizes: tune leaves it, in one line, and changes nothing
        var r = agent.resize("tomcat-exec", 3, "tine top --resize", "by hand");
        assertTrue(r.ok() && r.to() == 3, r.toString());
        TuneRun t = tune(pid, "tomcat-exec", "--max", "16", "--apply", "--count", "3");
        assertEquals(0, t.waitFor(60), t.err.toString());
        System.out.println("tune " + pid + " tomcat-exec --max 16 --apply --count 3: " + t.lines);
        assertEquals(1, t.lines.size(), "one line: " + t.lines);
        assertTrue(
            t.lines.get(0).contains(" backs off tomcat-exec at 3: ")
                && t.lines.get(0).contains("resized through the agent by tine top --resize"),
            t.lines.toString());
        sizeAndResizes(agent, after);
        assertEquals(3, after[0], "the other tool's size stays");
        assertEquals(1, after[1], "no resize by tune");
      }
    }
    // a target without the agent: tune loads none
    try (ServerProcess plain = new ServerProcess(Mode.ATTACHED, TomcatServer.class, List.of("2"))) {
      String pid = plain.expect("PORT", 60).split(" ")[3];
      TuneRun t = tune(pid, "--max", "4", "--apply");
      int code = t.waitFor(60);
      String err = t.err.toString().trim();
      System.out.println("tune " + pid + " --max 4 --apply (no agent) -> " + code + ": " + err);
      assertEquals(10, code, err);
      assertTrue(
          err.contains("no tine agent runs in pid " + pid) && err.contains("nothing changed"), err);
      var still =
          assertThrows(
              AttachClient.AttachProblem.class,
              () ->
                  AttachClient.attach(
                      Long.parseLong(pid),
                      ServerHarness.agentJar(),
                      null,
                      AttachClient.Mode.EXISTING));
      assertEquals(10, still.exitCode, "an agent was loaded: " + still.getMessage());
    }
  }
}

package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.top.AttachClient;
import dev.tine.agent.tune.TuneCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code tine tune} on Tine's own pools: a self-sizing {@code MeasuredExecutor} is left to its own
 * loop (one line saying tune uses that self-sizing), a {@code WorkStealingPool} is refused with the
 * reason its parallelism is fixed; neither is changed.
 */
class TuneOwnPoolsIT {
  @Test
  void usesAMeasuredExecutorsSelfSizingAndExplainsAWorkStealingPool() throws Exception {
    List<String> cp = new ArrayList<>(List.of(FleetIT.TEST_CLASSES));
    for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator))
      if (e.matches(".*(tine-core|tine-executor|HdrHistogram).*")) cp.add(e);
    try (ChildJvm app =
        ChildJvm.java(
            List.of("-Xmx128m", "-javaagent:" + ChildJvm.agentJar()),
            String.join(java.io.File.pathSeparator, cp),
            OwnPoolsScenario.class.getName())) {
      long pid = Long.parseLong(app.expect("READY", 60).split(" ")[1]);
      try (AttachClient c =
          AttachClient.attach(pid, ChildJvm.agentJar(), null, AttachClient.Mode.EXISTING)) {
        ResizeIT.awaitPools(c, "me-fixed", "me-self", "wsp");
      }
      StringWriter out = new StringWriter(), err = new StringWriter();
      CommandLine cl = new CommandLine(new TuneCommand());
      cl.setOut(new PrintWriter(out, true));
      cl.setErr(new PrintWriter(err, true));
      int code =
          cl.execute(Long.toString(pid), "me-self", "wsp", "--max", "8", "--apply", "--count", "3");
      String lines = out.toString();
      System.out.println(err + lines);
      assertEquals(0, code, err.toString());
      assertTrue(
          lines.contains(" self-sizing me-self at ")
              && lines.contains(
                  ": MeasuredExecutor me-self sizes itself from its own measurements (selfSizing)")
              && lines.contains("; tine tune uses that self-sizing and sets nothing"),
          lines);
      assertTrue(
          lines.contains(" leaves wsp at 2: a WorkStealingPool's parallelism is fixed"), lines);
      assertEquals(2, lines.strip().split("\n").length, "one line each: " + lines);
      assertEquals("SIZES me-fixed=2 me-self-selfSizing=true wsp=2", ResizeIT.sizes(app));
      app.send("quit");
      assertEquals(0, app.waitFor(60));
    }
  }
}

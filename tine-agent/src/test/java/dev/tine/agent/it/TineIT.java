package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

/**
 * Tine's WorkStealingPool, measured by the agent from its submissions and its public stats. Needs
 * tine-core's classes (built before this module in a whole-project build; {@code
 * -Dtine.core.classes} points elsewhere): skipped, saying so, when they are not there, and failed
 * in CI ({@link Preconditions}).
 */
class TineIT {
  @Test
  void externalSubmissionsAreCountedExactlyAndStatsRead() throws Exception {
    Path core = Path.of(System.getProperty("tine.core.classes", "../tine-core/target/classes"));
    Preconditions.require(
        Files.isRegularFile(core.resolve("dev/tine/WorkStealingPool.class")),
        "tine-core is not built at " + core.toAbsolutePath() + " (./mvnw verify builds it first)");
    String cp = IdentityIT.TEST_CLASSES + File.pathSeparator + core.toAbsolutePath();
    try (ChildJvm j =
        ChildJvm.java(
            List.of("-Xmx256m", "-javaagent:" + ChildJvm.agentJar() + "=quiet=true"),
            cp,
            TineScenario.class.getName())) {
      assertEquals(0, j.waitFor(60), "stdout " + j.all + " stderr " + j.err);
      String out = String.join("\n", j.all);
      assertTrue(j.all.contains("invokeAll 10"), out);
      // The agent's figures against the pool's own: what the application submitted (each an
      // external push: 160, and one per range reduce run to make steals), and its stats().
      String line =
          j.all.stream().filter(l -> l.startsWith("A tine-scenario ")).findFirst().orElse("");
      Matcher m = TineScenario.LINE.matcher(line);
      assertTrue(m.matches(), out);
      long arrivals = Long.parseLong(m.group(1)), submitted = Long.parseLong(m.group(5));
      long completed = Long.parseLong(m.group(3)), executed = Long.parseLong(m.group(6));
      long steals = Long.parseLong(m.group(4)), ownSteals = Long.parseLong(m.group(7));
      assertEquals(submitted, arrivals, "arrivals: " + line);
      assertTrue(submitted >= 161, "a reduce ran: " + line);
      assertEquals(2, Integer.parseInt(m.group(2)), "parallelism: " + line);
      assertEquals(executed, completed, "completed = the pool's tasksExecuted: " + line);
      assertTrue(executed >= submitted, "every submission ran: " + line);
      assertTrue(ownSteals > 0, "the pool stole (the comparison below means something): " + line);
      assertEquals(ownSteals, steals, "steals = the pool's own: " + line);
      assertTrue(out.contains("A failures=0"), out);
    }
  }
}

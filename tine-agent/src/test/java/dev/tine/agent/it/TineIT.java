package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Tine's WorkStealingPool, measured by the agent from its submissions and its public stats. Needs
 * tine-core's classes (built before this module in a whole-project build; {@code
 * -Dtine.core.classes} points elsewhere): skipped, saying so, when they are not there.
 */
class TineIT {
  @Test
  void externalSubmissionsAreCountedExactlyAndStatsRead() throws Exception {
    Path core = Path.of(System.getProperty("tine.core.classes", "../tine-core/target/classes"));
    Assumptions.assumeTrue(
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
      // 100 submit + 50 execute + 10 invokeAll, each one external push
      assertTrue(
          j.all.contains(
              "A tine-scenario arrivals=160 parallelism=2 executedAtLeast=true steals=true"),
          out);
      assertTrue(out.contains("A failures=0"), out);
    }
  }
}

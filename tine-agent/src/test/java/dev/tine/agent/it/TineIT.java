package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tine's WorkStealingPool, measured by the agent from its submissions and its public stats. */
class TineIT {
  @Test
  void externalSubmissionsAreCountedExactlyAndStatsRead() throws Exception {
    // test classes and tine-core only: not the agent's unshaded classes, which would shadow the jar's
    List<String> cp = new ArrayList<>(List.of(IdentityIT.TEST_CLASSES));
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (e.contains("tine-core")) cp.add(e);
    }
    try (ChildJvm j = ChildJvm.java(List.of("-Xmx256m", "-javaagent:" + ChildJvm.agentJar() + "=quiet=true"),
        String.join(File.pathSeparator, cp), TineScenario.class.getName())) {
      assertEquals(0, j.waitFor(60), "stdout " + j.all + " stderr " + j.err);
      String out = String.join("\n", j.all);
      assertTrue(j.all.contains("fib 6765"), out);
      // 100 submit + 50 execute + 10 invokeAll + 1 invoke, each one external push
      assertTrue(j.all.contains("A tine-scenario arrivals=161 parallelism=2 executedAtLeast=true steals=true"), out);
      assertTrue(out.contains("A failures=0"), out);
    }
  }
}

package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.top.AttachClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An application's stack traces (and the rest of its standard output) are byte-identical with and
 * without the agent: loaded at start, and attached while the pool threads already exist (their
 * {@code runWorker} frames then run in a class the attach redefined, which the JVM prints as
 * "Unknown Source" unless the agent puts the file name back).
 */
class StackTraceIT {
  enum Mode {
    PLAIN,
    AT_START,
    ATTACHED
  }

  private static String run(Mode mode) throws Exception {
    List<String> jvm = new ArrayList<>(List.of("-Xmx128m", "-XX:+EnableDynamicAgentLoading"));
    if (mode == Mode.AT_START) jvm.add("-javaagent:" + ChildJvm.agentJar() + "=quiet=true");
    try (ChildJvm j =
        ChildJvm.java(jvm, IdentityIT.TEST_CLASSES, StackTraceScenario.class.getName())) {
      long pid = Long.parseLong(j.expect("READY", 30).split(" ")[1]);
      AttachClient agent = null;
      if (mode == Mode.ATTACHED)
        agent = AttachClient.attach(pid, ChildJvm.agentJar(), "quiet=true");
      try {
        j.send("go");
        j.expect("DONE", 60);
        if (agent != null) {
          Object failures = agent.agent().get("Failures");
          assertEquals(0L, ((Number) failures).longValue(), "" + agent.agent().get("LastFailure"));
        }
        j.send("end");
        assertEquals(0, j.waitFor(60), "stdout " + j.all + " stderr " + j.err);
      } finally {
        if (agent != null) agent.close();
      }
      assertTrue(j.all.contains("DONE"), "stdout " + j.all);
      List<String> out = new ArrayList<>(j.all);
      out.removeIf(l -> l.startsWith("READY "));
      return String.join("\n", out);
    }
  }

  @Test
  void stackTracesAreByteIdenticalAtStartAndAttached() throws Exception {
    String plain = run(Mode.PLAIN);
    assertTrue(plain.contains("ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:"), plain);
    assertTrue(!plain.contains("Unknown Source"), plain);
    assertEquals(plain, run(Mode.AT_START), "with -javaagent");
    assertEquals(plain, run(Mode.ATTACHED), "attached");
  }
}

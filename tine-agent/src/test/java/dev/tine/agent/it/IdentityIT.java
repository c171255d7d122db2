package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The application's behaviour does not change under the agent: the same program run with and
 * without {@code -javaagent} prints the same behaviour lines (task identity in the hooks, the
 * queue, remove, shutdownNow, rejections; exceptions and their stack traces; scheduled and
 * fork/join results), and the agent's counts are exact.
 */
class IdentityIT {
  static final String TEST_CLASSES = System.getProperty("it.test.classes", "target/test-classes");

  private static List<String> run(boolean agent) throws Exception {
    List<String> jvm = new ArrayList<>(List.of("-Xmx512m"));
    if (agent) jvm.add("-javaagent:" + ChildJvm.agentJar() + "=quiet=true");
    try (ChildJvm j =
        ChildJvm.java(
            jvm, TEST_CLASSES, IdentityScenario.class.getName(), agent ? "agent" : "plain")) {
      int rc = j.waitFor(90);
      assertEquals(0, rc, "exit status; stdout " + j.all + " stderr " + j.err);
      assertTrue(j.all.contains("DONE"), "stdout " + j.all);
      if (agent)
        assertTrue(
            j.err.stream().noneMatch(l -> l.contains("tine-agent: not started")),
            "stderr " + j.err);
      return new ArrayList<>(j.all);
    }
  }

  @Test
  void behaviourIsIdenticalWithTheAgentAndItsCountsAreExact() throws Exception {
    List<String> plain = run(false), withAgent = run(true);
    List<String> b0 = plain.stream().filter(l -> l.startsWith("B ")).toList();
    List<String> b1 = withAgent.stream().filter(l -> l.startsWith("B ")).toList();
    assertTrue(
        b0.stream().noneMatch(l -> l.endsWith(" FAIL")),
        "the scenario itself fails without the agent: " + b0);
    assertEquals(b0, b1, "behaviour changed under the agent");

    Map<String, String> a = new LinkedHashMap<>();
    for (String l : withAgent) {
      if (l.startsWith("A ")) {
        String[] w = l.substring(2).split(" ", 2);
        a.put(w[0], w.length > 1 ? w[1] : "");
      }
    }
    String all = String.join("\n", withAgent);
    assertEquals(
        "arrivals=2 completed=2 rejected=0 failed=0 state=terminated", a.get("hooks"), all);
    assertEquals(
        "arrivals=4 completed=3 rejected=0 failed=0 state=terminated", a.get("queue"), all);
    assertEquals(
        "arrivals=3 completed=1 rejected=0 failed=0 state=terminated", a.get("queue2"), all);
    assertEquals(
        "arrivals=4 completed=4 rejected=0 failed=2 state=terminated", a.get("throwing"), all);
    assertEquals(
        "arrivals=8 completed=2 rejected=6 failed=0 state=terminated", a.get("abort"), all);
    assertEquals(
        "arrivals=3 completed=2 rejected=1 failed=0 state=terminated", a.get("callerruns"), all);
    // discard-oldest re-offers the refused task after dropping the oldest: execute is entered twice
    assertEquals(
        "arrivals=5 completed=3 rejected=1 failed=0 state=terminated", a.get("discardoldest"), all);
    assertEquals("arrivals=23 completed=23 rejected=0 failed=1 state=terminated", a.get("fj"), all);
    assertEquals(
        "arrivals=40 completed=40 rejected=0 failed=0 state=terminated", a.get("cached"), all);
    String sched = a.get("sched");
    assertTrue(
        sched != null
            && sched.matches("arrivals=(\\d+) completed=\\1 rejected=0 failed=0 state=terminated"),
        sched);
    assertTrue(Integer.parseInt(sched.replaceAll("arrivals=(\\d+).*", "$1")) >= 6, sched);
    assertEquals(
        "true", a.get("sched-due"), "a scheduled task's wait counts from its due time: " + all);
    assertEquals(
        "0", a.get("dropped").replaceAll(".*: ", ""), "collected pools are forgotten: " + all);
    assertTrue(a.get("failures=0").startsWith("last="), all);
  }
}

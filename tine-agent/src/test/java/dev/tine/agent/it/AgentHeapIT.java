package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.AgentConfig;
import dev.tine.agent.top.AttachClient;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The agent cannot hurt its target's heap: a {@code -Xmx64m} service with 20 MB live and 24 pools
 * survives the attach and runs on; the heap the agent holds per measured pool, after a full GC, is
 * within {@link AgentConfig#BYTES_PER_POOL} for pools of 2 and of 64 threads (the same service
 * without the agent is the baseline); a target whose heap could not hold the agent is refused
 * before anything is loaded.
 */
class AgentHeapIT {
  static final String TEST_CLASSES = System.getProperty("it.test.classes", "target/test-classes");

  /** The heap after a full GC in the child (bytes). */
  static long heap(ChildJvm app) throws Exception {
    app.send("gc");
    return Long.parseLong(app.expect("HEAP used=", 60).substring("HEAP used=".length()));
  }

  static void pools(ChildJvm app, int n) throws Exception {
    app.send("pools " + n);
    app.expect("OK pools", 60);
  }

  /**
   * Heap after a full GC with 1 pool, then with {@code 1 + added} pools (bytes), each pool of
   * {@code threads} threads, with the agent or without; the agent measures every pool first.
   */
  static long[] slope(boolean agent, int threads, int added, StringBuilder report)
      throws Exception {
    try (ChildJvm app =
        ChildJvm.java(
            List.of("-Xmx64m", "-XX:+UseG1GC"),
            TEST_CLASSES,
            HeapScenario.class.getName(),
            "20",
            Integer.toString(threads))) {
      long pid = Long.parseLong(app.expect("READY", 60).split(" ")[1]);
      pools(app, 1);
      AttachClient client = null;
      try {
        if (agent) {
          client = AttachClient.attach(pid, ChildJvm.agentJar(), "quiet=true");
          awaitPools(client, 1);
        } else {
          // the same JMX connector the agent's client starts, without the agent (the client no
          // longer starts it in a target without the agent)
          var vm = com.sun.tools.attach.VirtualMachine.attach(Long.toString(pid));
          try {
            vm.startLocalManagementAgent();
          } finally {
            vm.detach();
          }
        }
        Thread.sleep(2000);
        long one = heap(app);
        pools(app, added);
        if (agent) awaitPools(client, 1 + added);
        Thread.sleep(3000); // every pool's window filled
        long many = heap(app);
        report.append(
            String.format(
                Locale.ROOT,
                "%s, %d threads per pool: heap after full GC %.2f MB with 1 pool, %.2f MB with %d;"
                    + " %.1f KB per added pool%n",
                agent ? "agent" : "no agent",
                threads,
                one / 1048576.0,
                many / 1048576.0,
                1 + added,
                (many - one) / 1024.0 / added));
        assertTrue(app.process.isAlive(), "the service died: " + app.err);
        assertFalse(String.join("\n", app.err).contains("OutOfMemoryError"), "stderr " + app.err);
        return new long[] {one, many};
      } finally {
        if (client != null) client.close();
        app.send("quit");
        app.expect("BYE", 60);
        assertEquals(0, app.waitFor(60));
      }
    }
  }

  /**
   * The agent's heap per added pool of {@code threads} threads: the slope with the agent less the
   * slope without. The service drains its pools before each reading (a backlog of tasks, which a
   * loaded machine builds, moved a reading by MBs either way); a share above the bound is measured
   * once more, with both JVMs again, and the smaller of the two shares is kept (each a whole
   * measurement: mixing the smaller agent slope with the smaller plain slope would count a plain
   * reading that came out low against the agent).
   */
  static double share(int threads, int added, StringBuilder report) throws Exception {
    long[] plain = slope(false, threads, added, report),
        agent = slope(true, threads, added, report);
    double s = ((agent[1] - agent[0]) - (plain[1] - plain[0])) / (double) added;
    if (s > AgentConfig.BYTES_PER_POOL) {
      long[] plain2 = slope(false, threads, added, report),
          agent2 = slope(true, threads, added, report);
      s = Math.min(s, ((agent2[1] - agent2[0]) - (plain2[1] - plain2[0])) / (double) added);
    }
    return s;
  }

  static void awaitPools(AttachClient c, int n) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (System.nanoTime() < deadline) {
      long measured =
          c.pools().stream()
              .filter(p -> String.valueOf(p.get("Name")).matches("p\\d+-worker"))
              .count();
      if (measured >= n) return;
      Thread.sleep(200);
    }
    throw new AssertionError("the agent does not measure " + n + " pools: " + c.pools());
  }

  @Test
  void aSmallServiceSurvivesTheAttachAndPoolsOf2Or64ThreadsCostAtMost256KbEach() throws Exception {
    StringBuilder report = new StringBuilder();
    int added = 23; // 24 pools in all
    double perPool2 = share(2, added, report), perPool64 = share(64, 7, report);
    report.append(
        String.format(
            Locale.ROOT,
            "the agent's heap per measured pool: %.1f KB (2 threads), %.1f KB (64 threads)%n",
            perPool2 / 1024,
            perPool64 / 1024));
    System.out.println(report);
    assertTrue(perPool2 <= AgentConfig.BYTES_PER_POOL, report.toString());
    assertTrue(perPool64 <= AgentConfig.BYTES_PER_POOL, report.toString());
  }

  @Test
  void aHeapThatCouldNotHoldTheAgentIsRefusedBeforeAnythingIsLoaded() throws Exception {
    try (ChildJvm app =
        ChildJvm.java(
            List.of("-Xmx32m", "-XX:+UseG1GC"),
            TEST_CLASSES,
            HeapScenario.class.getName(),
            "18",
            "2")) {
      long pid = Long.parseLong(app.expect("READY", 60).split(" ")[1]);
      pools(app, 4);
      heap(app); // a collection, so the live data is known
      try (ChildJvm top = TopIT.top(Long.toString(pid), "--once")) {
        assertEquals(6, top.waitFor(60), "stdout " + top.all + " stderr " + top.err);
        String err = String.join("\n", top.err);
        assertEquals(1, top.err.size(), "one line: " + err);
        assertTrue(err.contains("not loading the agent") && err.contains("maxPools"), err);
        System.out.println("refused: " + err);
      }
      // The same target with a cap that fits: loaded, and it runs on.
      try (ChildJvm top =
          TopIT.top(Long.toString(pid), "--once", "--json", "--agent-options", "maxPools=8")) {
        assertEquals(0, top.waitFor(60), "stdout " + top.all + " stderr " + top.err);
      }
      assertTrue(app.process.isAlive(), "stderr " + app.err);
      assertFalse(String.join("\n", app.err).contains("OutOfMemoryError"), "stderr " + app.err);
      app.send("quit");
      app.expect("BYE", 60);
      assertEquals(0, app.waitFor(60));
    }
  }
}

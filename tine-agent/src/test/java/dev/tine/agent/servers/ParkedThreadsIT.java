package dev.tine.agent.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tine.agent.servers.ServerHarness.Mode;
import dev.tine.agent.servers.ServerHarness.ServerProcess;
import dev.tine.agent.top.AttachClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * After an attach, a pool thread that was parked inside {@code getTask} goes on in that frame,
 * which is the old, uninstrumented code: the task it returns starts unseen at {@code getTask}'s
 * exit. That task, and the requests it serves, must be counted all the same. Counts, not rates:
 * exact against the application's own, whatever the load on the machine.
 */
class ParkedThreadsIT {
  /** Tasks, or requests, after the attach. */
  static final int K = 100, CONNECTIONS = 4, EACH = 10;

  /**
   * A JDK pool, and Tomcat's own, each of 4 threads made and parked in {@code getTask} before the
   * attach, then exactly {@value #K} tasks, the first 4 of which each thread takes one of: the
   * agent counts {@value #K} arrivals and {@value #K} completed tasks.
   */
  @ParameterizedTest
  @ValueSource(strings = {"juc", "tomcat"})
  void everyTaskIsCountedAfterAnAttachIntoThreadsParkedInGetTask(String kind) throws Exception {
    try (ServerProcess app =
        new ServerProcess(Mode.ATTACHED, ParkedWorkersScenario.class, List.of(kind, "4"))) {
      long pid = Long.parseLong(app.expect("READY", 60).split(" ")[1]);
      try (AttachClient agent =
          AttachClient.attach(pid, ServerHarness.agentJar(), "window=60,quiet=true")) {
        app.ask("go " + K, "DONE");
        Map<String, Object> p = awaitPool(agent, "parked", K);
        String line = kind + ": " + p.get("Kind") + " " + p.get("Name") + " " + counts(p);
        System.out.println("after an attach into parked threads, " + line);
        assertEquals(K, num(p, "Arrivals"), "arrivals: " + line);
        assertEquals(K, num(p, "Completed"), "completed tasks: " + line);
        assertEquals(0L, num(agent.agent(), "Failures"), "" + agent.agent().get("LastFailure"));
      }
    }
  }

  /**
   * Tomcat (its own pool of 4 threads) that has served before the attach, every request thread
   * parked in {@code getTask} at the attach; then exactly {@value #CONNECTIONS}×{@value #EACH}
   * keep-alive requests, 4 at once (20 ms each, so each parked thread takes one of the first): the
   * agent counts every request the server's own log counts.
   */
  @Test
  void everyRequestIsCountedAfterAnAttachIntoTomcatThreadsParkedInGetTask() throws Exception {
    try (ServerProcess server =
        new ServerProcess(Mode.ATTACHED, TomcatServer.class, List.of("4"))) {
      String[] hello = server.expect("PORT", 60).split(" ");
      int port = Integer.parseInt(hello[1]);
      long pid = Long.parseLong(hello[3]);
      int n = CONNECTIONS * EACH;
      // the pool's threads made and used before the agent arrives
      assertEquals(n, HttpLoad.exactly(port, CONNECTIONS, EACH, 20_000, 0), "before the attach");
      Thread.sleep(300); // the closed connections' last events
      server.ask("parked tomcat-exec-", "PARKED");
      long before = Long.parseLong(server.ask("count", "COUNT").split(" ")[1]);
      try (AttachClient agent =
          AttachClient.attach(pid, ServerHarness.agentJar(), "window=60,quiet=true")) {
        assertEquals(n, HttpLoad.exactly(port, CONNECTIONS, EACH, 20_000, 0), "after the attach");
        long served = Long.parseLong(server.ask("count", "COUNT").split(" ")[1]) - before;
        Map<String, Object> p = awaitPool(agent, "tomcat-exec", n);
        String line =
            p.get("Kind")
                + " "
                + p.get("Name")
                + " "
                + p.get("Unit")
                + " "
                + counts(p)
                + "; the server's log: "
                + served
                + " requests";
        System.out.println("after an attach into parked Tomcat threads: " + line);
        assertEquals(n, served, line);
        assertEquals("requests", p.get("Unit"), line);
        assertEquals(served, num(p, "Completed"), "requests counted: " + line);
        assertEquals(0L, num(agent.agent(), "Failures"), "" + agent.agent().get("LastFailure"));
      }
    }
  }

  private static String counts(Map<String, Object> p) {
    return "arrivals "
        + p.get("Arrivals")
        + ", completed "
        + p.get("Completed")
        + ", tasks completed "
        + p.get("TaskCompleted");
  }

  /**
   * The pool named {@code prefix}..., 2.5 s after its completed count reaches {@code expected}
   * (bounded: 20 s of the agent's ticks, which a loaded machine can hold back), else as it last
   * read.
   */
  private static Map<String, Object> awaitPool(AttachClient agent, String prefix, long expected)
      throws Exception {
    long deadline = System.nanoTime() + 20_000_000_000L;
    Map<String, Object> last = null;
    while (System.nanoTime() < deadline) {
      for (Map<String, Object> p : agent.pools()) {
        if (String.valueOf(p.get("Name")).startsWith(prefix)) last = p;
      }
      if (last != null && num(last, "Completed") >= expected) {
        // and a few ticks later: a task or request counted twice would show by then
        Thread.sleep(2_500);
        for (Map<String, Object> p : agent.pools()) {
          if (String.valueOf(p.get("Name")).startsWith(prefix)) last = p;
        }
        return last;
      }
      Thread.sleep(200);
    }
    if (last == null) throw new AssertionError("no pool " + prefix + ": " + agent.pools());
    return last;
  }

  private static long num(Map<String, Object> p, String k) {
    return ((Number) p.get(k)).longValue();
  }
}

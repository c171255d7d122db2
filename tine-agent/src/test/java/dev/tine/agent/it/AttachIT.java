package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.demo.LoopbackServer;
import dev.tine.agent.experiment.LoadClient;
import dev.tine.agent.top.AttachClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The agent attached to a running server that knows nothing of Tine ({@link LoopbackServer}, plain
 * {@code Executors.newFixedThreadPool} and a {@code ForkJoinPool}), under 10 closed-loop clients:
 * its figures against the clients' own count of what they sent and the server's own timings of the
 * same requests, over the same window. Then every rejection, and the server after the client
 * detached and after the agent stopped.
 */
class AttachIT {
  /** Service: 10 ms of "a call to another system" plus a little CPU. */
  static final int SLEEP_MICROS = 10_000, CPU_ITERATIONS = 20_000;

  static final int WINDOW_S = 3;

  record Window(long fromMillis, long toMillis, double seconds) {}

  @Test
  void figuresMatchTheServersOwnOverTheSameWindowAndEveryRejectionIsCounted() throws Exception {
    try (ChildJvm server =
        ChildJvm.java(
            List.of("-Xmx256m"),
            ChildJvm.serverClasses().toString(),
            LoopbackServer.class.getName(),
            "fixed",
            "1")) {
      String[] hello = server.expect("PORT", 30).split(" ");
      int port = Integer.parseInt(hello[1]);
      long pid = Long.parseLong(hello[3]);
      StringBuilder report = new StringBuilder();
      long rejectedBefore;
      try (LoadClient clients = new LoadClient(port, 10, SLEEP_MICROS, CPU_ITERATIONS)) {
        AttachClient agent =
            AttachClient.attach(pid, ChildJvm.agentJar(), "window=" + WINDOW_S + ",quiet=true");
        try (agent) {
          int lastId = 0;
          // The pool made before the agent arrived is found when it next runs a task.
          for (String config : List.of("fixed 1", "fixed 4", "fixed 8", "forkjoin 4")) {
            long swappedAt = System.currentTimeMillis();
            if (!config.equals("fixed 1")) {
              server.send("pool " + config);
              server.expect("OK pool", 30);
              swappedAt = System.currentTimeMillis();
            }
            Map<String, Object> p = steadyPool(agent, config, lastId, swappedAt);
            lastId = ((Number) p.get("Id")).intValue();
            check(config, p, clients, server, report);
          }
          server.send("totals");
          rejectedBefore = Long.parseLong(server.expect("TOTALS", 60).split(" ")[2]);
          // Rejections: a pool of 1 thread and a queue of 2 (abort policy) under the same 10
          // clients,
          // who resend at once when refused: thousands of rejections a second.
          server.send("pool bounded 1 2");
          server.expect("OK pool", 30);
          // until the clients have seen 100 refusals (a loaded box can hold them back for long
          // beyond any fixed pause), bounded
          long refused = System.nanoTime() + 60_000_000_000L;
          while (clients.rejectedReplies() <= 100 && System.nanoTime() < refused) Thread.sleep(20);
          clients.close();
          assertEquals(0, clients.wrong(), "wrong answers");
          assertTrue(
              clients.rejectedReplies() > 100,
              "rejections seen by clients: " + clients.rejectedReplies());
          server.send("totals");
          long serverRejected = Long.parseLong(server.expect("TOTALS", 60).split(" ")[2]);
          assertTrue(
              serverRejected - rejectedBefore > 100,
              "rejections: " + (serverRejected - rejectedBefore));
          long agentRejected = waitForRejections(agent, serverRejected);
          report.append(
              String.format(
                  Locale.ROOT,
                  "rejections: server %d, agent %d, clients saw %d%n",
                  serverRejected,
                  agentRejected,
                  clients.rejectedReplies()));
          assertEquals(serverRejected, agentRejected, "every rejection counted exactly\n" + report);
          Object failures = agent.agent().get("Failures");
          assertEquals(
              0L,
              ((Number) failures).longValue(),
              "agent failures: " + agent.agent().get("LastFailure"));
        }
      }
      System.out.println(report);

      // The client has detached (JMX connection closed); the agent stays. The server still serves,
      // with the same answers.
      server.send("pool fixed 2");
      server.expect("OK pool", 30);
      serveAndCheck(port, "after the client detached");

      // Stop the agent (original bytecode back): its MXBeans go, the server still serves.
      try (AttachClient again = AttachClient.attach(pid, ChildJvm.agentJar(), "quiet=true")) {
        assertTrue(!again.loadedNow, "the agent was still loaded");
        again.stopAgent();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!again.pools().isEmpty() && System.nanoTime() < deadline) Thread.sleep(100);
        assertTrue(again.pools().isEmpty(), "pool MXBeans left after stop");
      }
      serveAndCheck(port, "after the agent stopped");
      server.send("quit");
      assertEquals(0, server.waitFor(30));
      assertTrue(
          server.err.stream()
              .noneMatch(l -> l.contains("Exception") || l.contains("tine-agent: not started")),
          "server stderr: " + server.err);
    }
  }

  private static void serveAndCheck(int port, String when) throws Exception {
    try (LoadClient c = new LoadClient(port, 4, 1_000, 50_000)) {
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (c.answered() < 400 && System.nanoTime() < deadline) Thread.sleep(20);
      c.close();
      assertTrue(c.answered() >= 400, when + ": answered " + c.answered());
      assertEquals(0, c.wrong(), when + ": wrong answers");
      assertEquals(0, c.rejectedReplies(), when + ": rejected");
    }
  }

  /**
   * The newest running pool of this configuration, once its window lies wholly after the swap
   * (steady state): waits (bounded) for ticks, reading the figures each time.
   */
  private static Map<String, Object> steadyPool(
      AttachClient agent, String config, int afterId, long swappedAt) throws Exception {
    String kind = config.startsWith("forkjoin") ? "ForkJoinPool" : "ThreadPoolExecutor";
    long deadline = System.nanoTime() + 30_000_000_000L;
    Map<String, Object> last = null;
    while (System.nanoTime() < deadline) {
      for (Map<String, Object> p : agent.pools()) {
        String name = String.valueOf(p.get("Name"));
        if (!kind.equals(p.get("Kind"))
            || !"running".equals(p.get("State"))
            || name.startsWith("RMI")) continue;
        if (((Number) p.get("Id")).intValue() <= afterId) continue;
        last = p;
        long at = ((Number) p.get("MeasuredAtMillis")).longValue();
        double w = ((Number) p.get("WindowSeconds")).doubleValue();
        if (w > WINDOW_S - 0.2 && at - (long) (w * 1000) > swappedAt + 1000) return p;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no steady window for " + config + "; last figures " + last);
  }

  private static void check(
      String config,
      Map<String, Object> p,
      LoadClient clients,
      ChildJvm server,
      StringBuilder report)
      throws Exception {
    long to = ((Number) p.get("MeasuredAtMillis")).longValue();
    double w = ((Number) p.get("WindowSeconds")).doubleValue();
    long from = to - Math.round(w * 1000);
    double clientRate = clients.sentBetween(from, to) / w;
    server.send("stats " + from + " " + to);
    String[] st = server.expect("STATS", 60).split(" ");
    long n = Long.parseLong(st[1]);
    double serverWaitMs = Long.parseLong(st[2]) / 1e6 / n,
        serverServiceMs = Long.parseLong(st[3]) / 1e6 / n;
    double lambda = num(p, "ArrivalRate"),
        s = num(p, "ServiceMillis"),
        wq = num(p, "WaitMillis"),
        l = num(p, "LittlesL");
    double expectedL = clientRate * (serverWaitMs + serverServiceMs) / 1000;
    String line =
        String.format(
            Locale.ROOT,
            "%-10s %s: λ %.1f/s (clients %.1f/s), S %.2f ms (server %.2f), Wq %.2f ms (server %.2f), L %.2f (λ·W %.2f),"
                + " dead %.1f%%, p50/p99 wait %.2f/%.2f ms, window %.2f s, %d requests%n",
            config,
            p.get("Name"),
            lambda,
            clientRate,
            s,
            serverServiceMs,
            wq,
            serverWaitMs,
            l,
            expectedL,
            100 * num(p, "DeadTimeRatio"),
            num(p, "WaitP50Millis"),
            num(p, "WaitP99Millis"),
            w,
            n);
    report.append(line);
    System.out.print(line);
    assertTrue(n > 50, "too few requests in the window: " + line);
    within("λ", lambda, clientRate, 0.05, line);
    within("S", s, serverServiceMs, 0.10, line);
    within("Wq", wq, serverWaitMs, 0.10, line);
    within("L", l, expectedL, 0.05, line);
  }

  private static void within(
      String what, double measured, double truth, double tolerance, String line) {
    assertTrue(
        Math.abs(measured - truth) <= tolerance * Math.abs(truth),
        String.format(
            Locale.ROOT,
            "%s off by more than %.0f%%: %.4f vs %.4f%n%s",
            what,
            100 * tolerance,
            measured,
            truth,
            line));
  }

  private static double num(Map<String, Object> p, String k) {
    return ((Number) p.get(k)).doubleValue();
  }

  /**
   * Σ Rejected over the server's pools, once it reaches {@code expected} (bounded: 60 s; the
   * figures move at the agent's ticks, which a loaded box can hold back for seconds).
   */
  private static long waitForRejections(AttachClient agent, long expected) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L, sum = -1;
    while (System.nanoTime() < deadline) {
      long s = 0;
      List<String> seen = new ArrayList<>();
      for (Map<String, Object> p : agent.pools()) {
        if (String.valueOf(p.get("Name")).startsWith("RMI")) continue;
        s += ((Number) p.get("Rejected")).longValue();
        seen.add(p.get("Name") + "=" + p.get("Rejected"));
      }
      sum = s;
      if (sum == expected) break;
      Thread.sleep(200);
    }
    return sum;
  }
}

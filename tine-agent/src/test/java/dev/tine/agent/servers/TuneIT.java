package dev.tine.agent.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.servers.ServerHarness.Mode;
import dev.tine.agent.servers.ServerHarness.ServerProcess;
import dev.tine.agent.top.AttachClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code tine tune --apply} on real servers under loopback clients, judged by the server's own
 * request log (its p90 request wait over a window before tuning and one after), not by the agent's
 * figures tune decides from. The agent runs with a 3 s window. Long (about a minute a server on 2
 * cores): behind {@code -Ptune} ({@code mvn verify -Ptune -pl tine-agent -am}).
 */
@Tag("tune")
class TuneIT {
  /** The server's own figures over a window: requests/s, p90 and p99 request wait (ms). */
  record Truth(double rate, double p90, double p99, long requests) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%.0f requests/s, p90 wait %.2f ms, p99 wait %.2f ms (%d requests)",
          rate,
          p90,
          p99,
          requests);
    }
  }

  static Truth truth(ServerProcess server, long from, long to) throws Exception {
    String[] st = server.ask("stats " + from + " " + to, "STATS").split(" ");
    long ended = Long.parseLong(st[8]);
    return new Truth(
        ended * 1000.0 / (to - from),
        Long.parseLong(st[12]) / 1e6,
        Long.parseLong(st[11]) / 1e6,
        ended);
  }

  /** The server's log over the {@code seconds} from now (after a short settling pause). */
  static Truth measure(ServerProcess server, int seconds) throws Exception {
    long from = System.currentTimeMillis() + 200;
    Thread.sleep(seconds * 1000L + 400);
    return truth(server, from, from + seconds * 1000L);
  }

  static Map<String, Object> pool(AttachClient agent, String prefix) throws Exception {
    for (Map<String, Object> p : agent.pools())
      if (String.valueOf(p.get("Name")).startsWith(prefix)) return p;
    throw new AssertionError("no pool " + prefix + " in " + agent.pools());
  }

  /**
   * Runs tune --apply until it has made a change that passed its check and then changed nothing for
   * three windows in a row (bounded by its --count); returns its lines.
   */
  static List<String> tuneUntilSettled(TuneRun tune) throws Exception {
    long quietSince = System.nanoTime();
    boolean kept = false;
    long deadline = System.nanoTime() + 150_000_000_000L;
    while (System.nanoTime() < deadline) {
      String l = tune.next(" ", 1);
      if (l != null) {
        if (l.contains(" resized ") || l.contains(" restored ") || l.contains(" stepped back "))
          quietSince = System.nanoTime();
        if (l.contains(" kept ")) kept = true;
        if (l.contains(" restored ") || l.contains(" backs off ")) break;
      }
      if (kept && System.nanoTime() - quietSince > 10_000_000_000L) break;
    }
    return new ArrayList<>(tune.lines);
  }

  /**
   * The undersized server scenario on one server: {@code maxThreads} request threads, 16 keep-alive
   * clients in a closed loop, a 5 ms handler. Returns a line for the report.
   */
  static String undersized(
      Class<?> main, List<String> args, String poolPrefix, boolean close, int clients)
      throws Exception {
    try (ServerProcess server = new ServerProcess(Mode.AT_START, main, args)) {
      String[] hello = server.expect("PORT", 60).split(" ");
      int port = Integer.parseInt(hello[1]);
      long pid = Long.parseLong(hello[3]);
      try (HttpLoad load = new HttpLoad(port, clients, 5_000, 2_000, close);
          AttachClient agent =
              AttachClient.attach(
                  pid, ServerHarness.agentJar(), null, AttachClient.Mode.EXISTING)) {
        while (load.answered.get() < 500) Thread.sleep(20);
        Truth untuned = measure(server, 4);
        int before = ((Number) pool(agent, poolPrefix).get("CurrentSize")).intValue();
        List<String> lines;
        try (TuneRun tune =
            new TuneRun(
                Long.toString(pid), poolPrefix, "--max", "64", "--apply", "--count", "200")) {
          lines = tuneUntilSettled(tune);
          Truth tuned = measure(server, 4);
          Map<String, Object> p = pool(agent, poolPrefix);
          int after = ((Number) p.get("CurrentSize")).intValue();
          String report =
              String.format(
                  Locale.ROOT,
                  "%s %s: %d → %d threads; untuned %s; tuned %s; p90 wait %.1f× lower; the agent's"
                      + " advice now %s (%s)",
                  main.getSimpleName(),
                  p.get("Name"),
                  before,
                  after,
                  untuned,
                  tuned,
                  untuned.p90() / Math.max(tuned.p90(), 1e-3),
                  p.get("RecommendedSize"),
                  p.get("Recommendation"));
          System.out.println(report);
          tune.close();
          assertEquals(0, tune.waitFor(30), "tune's exit code; stderr " + tune.err);
          String all = String.join("\n", tune.lines);
          assertEquals(0, load.wrong.get(), "wrong answers");
          assertTrue(
              lines.stream().anyMatch(l -> l.contains(" resized ")),
              "tune resized nothing:\n" + all);
          assertTrue(
              lines.stream().noneMatch(l -> l.contains(" restored ") || l.contains(" backs off ")),
              "tune gave up:\n" + all);
          assertTrue(after > before, report + "\n" + all);
          assertTrue(
              all.contains(" kept ") && all.contains("on exit: the size passed its check"),
              "the size kept on exit:\n" + all);
          // the figure: the p90 request wait, from the server's own log, 5× lower
          assertTrue(untuned.p90() >= 5 * tuned.p90(), report + "\n" + all);
          return report + "\n" + all;
        }
      }
    }
  }

  @Test
  void anUndersizedTomcatIsGrownUntilItsRequestsWaitFiveTimesLess() throws Exception {
    undersized(TomcatServer.class, List.of("2"), "tomcat-exec", false, 16);
  }
}

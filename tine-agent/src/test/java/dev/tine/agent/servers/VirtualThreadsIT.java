package dev.tine.agent.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.servers.ServerHarness.Mode;
import dev.tine.agent.servers.ServerHarness.ServerProcess;
import dev.tine.agent.top.AttachClient;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Jetty 12 running each request on a new virtual thread, under 8 keep-alive clients: what sizing
 * still means. The agent shows the carrier pool (the JDK's virtual-thread scheduler): its
 * parallelism is the server's core count; virtual threads started per second match the server's
 * requests per second; every request is mounted at least twice (it parks in its sleep); the
 * carriers' busy time λS is at least the requests' own measured CPU segments and at most the
 * carriers; and each request that pins its carrier (30 ms in a class initializer) is counted from
 * JFR's {@code jdk.VirtualThreadPinned}, exactly.
 */
class VirtualThreadsIT {
  static final int PINS = 5;

  @Test
  void attached() throws Exception {
    carrierPoolRequestsAndPinnedCarriers(Mode.ATTACHED);
  }

  /** Kept out of the default verify for time (-Pservers-full). */
  @Test
  @Tag("servers-full")
  void atStart() throws Exception {
    carrierPoolRequestsAndPinnedCarriers(Mode.AT_START);
  }

  private static void carrierPoolRequestsAndPinnedCarriers(Mode mode) throws Exception {
    try (ServerProcess server =
        new ServerProcess(mode, JettyServer.class, List.of("8", "virtual"))) {
      String[] hello = server.expect("PORT", 60).split(" ");
      int port = Integer.parseInt(hello[1]);
      long pid = Long.parseLong(hello[3]);
      try (HttpLoad load = new HttpLoad(port, 8, 4_000, 20_000, false)) {
        long loadedAt = System.currentTimeMillis();
        while (load.answered.get() < 100) Thread.sleep(20);
        try (AttachClient agent =
            AttachClient.attach(
                pid,
                ServerHarness.agentJar(),
                "window=" + ServerHarness.WINDOW_S + ",quiet=true")) {
          long from = mode == Mode.ATTACHED ? System.currentTimeMillis() : loadedAt;
          Map<String, Object> carriers =
              ServerHarness.steadyPool(agent, "virtual threads", "", from);
          // virtual threads started (counted at two ticks ~3 s apart) vs requests between them;
          // the carriers' figures of the second tick against the requests in its window
          Map<String, Object> first = tick(agent, 0);
          carriers = tick(agent, at(first) + 3000);
          long a = at(first), b = at(carriers);
          String[] st = server.ask("stats " + a + " " + b, "STATS").split(" ");
          double requests = Long.parseLong(st[5]), started = startedBy(carriers) - startedBy(first);
          long windowFrom = b - Math.round(num(carriers, "WindowSeconds") * 1000);
          String[] inWindow = server.ask("stats " + windowFrom + " " + b, "STATS").split(" ");
          double rps = Long.parseLong(inWindow[5]) / ((b - windowFrom) / 1000.0);
          int processors = Integer.parseInt(server.ask("count", "COUNT").split(" ")[2]);
          double lambda = num(carriers, "ArrivalRate"), s = num(carriers, "ServiceMillis");
          double wq = num(carriers, "WaitMillis"), l = num(carriers, "LittlesL");
          String line =
              String.format(
                  Locale.ROOT,
                  "VirtualThreads %-9s carriers %s (parallelism %s of %d cores): mounts λ %.1f/s,"
                      + " mounted S %.3f ms, waiting to mount Wq %.3f ms, L %.2f, busy λS %.2f;"
                      + " virtual threads started %.0f vs requests %.0f (%.1f/s in the window); %s",
                  mode,
                  carriers.get("Name"),
                  carriers.get("Parallelism"),
                  processors,
                  lambda,
                  s,
                  wq,
                  l,
                  lambda * s / 1000,
                  started,
                  requests,
                  rps,
                  carriers.get("Recommendation"));
          System.out.println(line);
          assertEquals(processors, ((Number) carriers.get("Parallelism")).intValue(), line);
          ServerHarness.within("virtual threads started", started, requests, 0.05, 0, line);
          double cpuMs = cpuSegmentMs(server);
          // each request parks once (its sleep): mounted twice, at start and after the sleep
          assertTrue(lambda >= 1.9 * rps, "each request is mounted at least twice: " + line);
          assertTrue(lambda <= 2.5 * rps, "each request is mounted about twice: " + line);
          assertTrue(
              lambda * s / 1000 >= 0.9 * rps * cpuMs / 1000,
              "carriers busy at least the requests' CPU segments (" + cpuMs + " ms each): " + line);
          assertTrue(lambda * s / 1000 <= processors * 1.05, "busy beyond the carriers: " + line);
          ServerHarness.within("L", l, lambda * (wq + s) / 1000, 0.01, 0, line);

          // pinned carriers: each /pin request blocks 30 ms in a class initializer
          long pinnedBefore = pinned(agent);
          for (int i = 0; i < PINS; i++) get(port, "/pin");
          long deadline = System.nanoTime() + 20_000_000_000L;
          long pinned = pinnedBefore;
          while (pinned - pinnedBefore < PINS && System.nanoTime() < deadline) {
            Thread.sleep(250);
            pinned = pinned(agent);
          }
          Thread.sleep(1500); // and no more than that
          pinned = pinned(agent);
          assertEquals(PINS, pinned - pinnedBefore, "pinned events: " + recommendation(agent));
          assertEquals(0, load.wrong.get(), "wrong answers");
          assertEquals(
              0L,
              ((Number) agent.agent().get("Failures")).longValue(),
              "" + agent.agent().get("LastFailure"));
          System.out.println(
              "VirtualThreads "
                  + mode
                  + " pinned "
                  + (pinned - pinnedBefore)
                  + " of "
                  + PINS
                  + ": "
                  + recommendation(agent));
        }
      }
    }
  }

  private static final Pattern STARTED =
      Pattern.compile("virtual threads started [0-9.]+/s \\((\\d+) in all\\)");
  private static final Pattern PINNED = Pattern.compile("pinned (\\d+) times");

  /** The carriers' figures of the first tick at or after {@code notBefore}. */
  private static Map<String, Object> tick(AttachClient agent, long notBefore) throws Exception {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (System.nanoTime() < deadline) {
      for (Map<String, Object> p : agent.pools()) {
        if ("virtual threads".equals(p.get("Kind")) && at(p) >= notBefore) return p;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no tick of the carriers' figures after " + notBefore);
  }

  private static long at(Map<String, Object> p) {
    return ((Number) p.get("MeasuredAtMillis")).longValue();
  }

  /** Virtual threads started by the tick (counted as the tick runs). */
  private static long startedBy(Map<String, Object> p) {
    Matcher m = STARTED.matcher(String.valueOf(p.get("Recommendation")));
    assertTrue(m.find(), String.valueOf(p.get("Recommendation")));
    return Long.parseLong(m.group(1));
  }

  private static long pinned(AttachClient agent) throws Exception {
    Matcher m = PINNED.matcher(recommendation(agent));
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /** The carriers' figures' text (counts as of the last tick). */
  private static String recommendation(AttachClient agent) throws Exception {
    for (Map<String, Object> p : agent.pools()) {
      if ("virtual threads".equals(p.get("Kind"))) return String.valueOf(p.get("Recommendation"));
    }
    return "";
  }

  /** The mean of the requests' CPU segments (after their sleep), as the server timed them. */
  private static double cpuSegmentMs(ServerProcess server) throws Exception {
    String[] c = server.ask("cpu", "CPU").split(" ");
    return Double.parseDouble(c[1]);
  }

  private static void get(int port, String path) throws Exception {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
    }
  }

  private static double num(Map<String, Object> p, String k) {
    return ((Number) p.get(k)).doubleValue();
  }
}

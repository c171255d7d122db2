package dev.tine.agent.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.servers.ServerHarness.Mode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Embedded Netty 4.1 under 8 keep-alive clients, at start and attached: a {@code
 * DefaultEventExecutorGroup} of 4 executors (each a {@code SingleThreadEventExecutor}) doing the
 * work off one I/O loop, the agent's figures for the group against the server's own log of its
 * tasks; and the handler on the event loops themselves (2 loops), the loop group's requests against
 * the server's own log of them.
 */
class NettyIT {
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"AT_START", "ATTACHED"})
  void executorGroupMatchesTheServersOwnLog(Mode mode) throws Exception {
    ServerHarness.run(
        mode, NettyServer.class, List.of("4"), "Netty", "netty-app", 8, 4_000, 20_000, false);
  }

  /**
   * The group attached into a server that has already served {@value ServerHarness#WARM_REQUESTS}
   * requests: under load, and into its waiting executors before the load. Kept out of the default
   * verify for time (-Pservers-full).
   */
  @Tag("servers-full")
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"WARMED", "WARMED_IDLE"})
  void executorGroupMatchesTheServersOwnLogAttachedAfterWarmUp(Mode mode) throws Exception {
    executorGroupMatchesTheServersOwnLog(mode);
  }

  /**
   * Handlers on the loop: λ, S and the wait from the loop's select returning to the handler's start
   * against the server's log (see {@link NettyLoopServer} for what its log can establish of the
   * wait), each loop's requests adding up to λ, and each loop's time split adding up to its window.
   */
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"AT_START", "ATTACHED"})
  void handlersOnTheEventLoopMatchTheServersOwnLog(Mode mode) throws Exception {
    handlersOnTheLoops(mode, List.of("2"));
  }

  /**
   * The same on Linux's native transport: an {@code EpollEventLoopGroup} of 2 loops
   * (netty-transport-native-epoll), the same figures as NIO's loops. Attached here; at start with
   * {@code -Pservers-full}.
   */
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"ATTACHED"})
  void handlersOnEpollLoopsMatchTheServersOwnLog(Mode mode) throws Exception {
    handlersOnTheLoops(mode, List.of("2", "epoll"));
  }

  @Tag("servers-full")
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"AT_START"})
  void handlersOnEpollLoopsAtStartMatchTheServersOwnLog(Mode mode) throws Exception {
    handlersOnTheLoops(mode, List.of("2", "epoll"));
  }

  /**
   * Handlers on the NIO loops, attached after {@value ServerHarness#WARM_REQUESTS} requests: under
   * load, and into loops waiting in {@code select} before the load (a loop never parks in a pool's
   * queue: what it runs before the attach is its own run loop, entered once). -Pservers-full.
   */
  @Tag("servers-full")
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"WARMED", "WARMED_IDLE"})
  void handlersOnTheEventLoopMatchTheServersOwnLogAttachedAfterWarmUp(Mode mode) throws Exception {
    handlersOnTheLoops(mode, List.of("2"));
  }

  /** The same on Epoll's loops (skipped where the native transport cannot load). -Pservers-full. */
  @Tag("servers-full")
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"WARMED", "WARMED_IDLE"})
  void handlersOnEpollLoopsMatchTheServersOwnLogAttachedAfterWarmUp(Mode mode) throws Exception {
    handlersOnTheLoops(mode, List.of("2", "epoll"));
  }

  private static void handlersOnTheLoops(Mode mode, List<String> args) throws Exception {
    if (args.contains("epoll")) {
      // not a pass where the native transport cannot load (a skip, with Netty's own reason)
      Assumptions.assumeTrue(
          io.netty.channel.epoll.Epoll.isAvailable(),
          () -> "no native epoll here: " + io.netty.channel.epoll.Epoll.unavailabilityCause());
    }
    ServerHarness.Result r;
    String scrape;
    ServerHarness.agentOptions = ",prometheus=127.0.0.1:0";
    try {
      r =
          ServerHarness.run(
              mode, NettyLoopServer.class, args, "Netty", "netty-loop", 8, 1_000, 20_000, false);
      scrape = ServerHarness.lastScrape;
    } finally {
      ServerHarness.agentOptions = "";
    }
    Map<String, Object> p = r.pool();
    assertEquals("requests", p.get("Unit"), r.line());
    String[] loops = (String[]) p.get("LoopThreads");
    double[] rates = (double[]) p.get("LoopRequestRates");
    double[] io = (double[]) p.get("LoopIoShares");
    double[] tasks = (double[]) p.get("LoopTaskShares");
    assertEquals(2, loops.length, "loops " + List.of(loops) + "\n" + r.line());
    double sum = 0;
    for (int i = 0; i < loops.length; i++) {
      sum += rates[i];
      // the handler runs on the loop, in its I/O phase: most of a loaded loop's time
      assertTrue(io[i] > 0.2 && io[i] + tasks[i] <= 1, loops[i] + " " + io[i] + "/" + tasks[i]);
    }
    double lambda = ((Number) p.get("ArrivalRate")).doubleValue();
    // the loops' windows close at the same tick as the requests' but not at the same instant
    ServerHarness.within("Σ loops' requests/s", sum, lambda, 0.05, 0, r.line());
    double shares =
        ((Number) p.get("LoopIoShare")).doubleValue()
            + ((Number) p.get("LoopTaskShare")).doubleValue()
            + ((Number) p.get("LoopIdleShare")).doubleValue();
    assertEquals(1.0, shares, 1e-9, r.line());
    System.out.println(
        mode + " " + dev.tine.agent.top.TopTable.loopRow(p).strip() + "; Σ " + sum + " req/s");
    checkScrape(scrape, String.valueOf(p.get("Name")), loops);
  }

  /**
   * The same figures in the Prometheus scrape (a later tick than the MXBean's read): each loop's
   * requests per second adding up to the group's, the three shares to 1, and the whole scrape valid
   * for promtool (where it is installed).
   */
  private static void checkScrape(String scrape, String name, String[] loops) throws Exception {
    assertTrue(scrape != null && !scrape.isEmpty(), "no scrape");
    String group = "name=\"" + name + "\",type=\"Netty\"";
    double rate = value(scrape, "executor_request_rate{" + group + "}");
    double sum = 0;
    for (String l : loops) {
      sum += value(scrape, "executor_loop_thread_request_rate{" + group + ",loop=\"" + l + "\"}");
    }
    ServerHarness.within("scrape: Σ loops' requests/s", sum, rate, 0.05, 0, scrape);
    double shares = 0;
    for (String phase : List.of("io", "tasks", "idle")) {
      shares += value(scrape, "executor_loop_time_ratio{" + group + ",phase=\"" + phase + "\"}");
    }
    assertEquals(1.0, shares, 1e-4, scrape);
    java.nio.file.Path promtool = null;
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      java.nio.file.Path c = java.nio.file.Path.of(dir, "promtool");
      if (!dir.isEmpty() && java.nio.file.Files.isExecutable(c)) promtool = c;
    }
    if (promtool == null) {
      System.out.println("promtool not on the PATH: the scrape's format is not linted here");
      return;
    }
    Process pt =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectErrorStream(true)
            .start();
    try (var in = pt.getOutputStream()) {
      in.write(scrape.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    String out =
        new String(pt.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(0, pt.waitFor(), "promtool check metrics: " + out + "\n" + scrape);
  }

  private static double value(String scrape, String series) {
    for (String line : scrape.split("\n")) {
      if (line.startsWith(series + " "))
        return Double.parseDouble(line.substring(series.length() + 1));
    }
    throw new AssertionError("no " + series + " in\n" + scrape);
  }
}

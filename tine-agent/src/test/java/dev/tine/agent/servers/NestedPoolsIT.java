package dev.tine.agent.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.servers.ServerHarness.Mode;
import dev.tine.agent.top.TopTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two instrumented pools on the same threads ({@link JettyOverTpeServer}: Jetty's {@code
 * ExecutorThreadPool} over the application's {@code ThreadPoolExecutor}): the application pool's
 * row is measured by its own tasks' start and end, within the tolerances of its own log, although
 * Jetty's requests start and end inside those tasks on the same threads.
 */
class NestedPoolsIT {
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"AT_START", "ATTACHED"})
  void anApplicationPoolUnderJettysExecutorThreadPoolMatchesItsOwnLog(Mode mode) throws Exception {
    ServerHarness.run(
        mode,
        JettyOverTpeServer.class,
        List.of("8"),
        "ThreadPoolExecutor",
        "etp", // Jetty names the pool's threads etpNNN-M
        8,
        4_000,
        20_000,
        false);
  }

  /**
   * Jetty's own row over the same threads: its {@code ExecutorThreadPool}'s requests, those its
   * strategy queues (started by the application pool under it) and those run in place, against
   * Jetty's own request log.
   */
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"AT_START", "ATTACHED"})
  void jettysExecutorThreadPoolMatchesJettysOwnRequestLog(Mode mode) throws Exception {
    ServerHarness.run(
        mode,
        JettyOverTpeServer.class,
        List.of("8", "requests"),
        "Jetty",
        "etp",
        8,
        4_000,
        20_000,
        false);
  }

  /**
   * Both rows on the same threads attached into a server that has already served {@value
   * ServerHarness#WARM_REQUESTS} requests: under load, and into the application pool's parked
   * threads before the load. -Pservers-full.
   */
  @Tag("servers-full")
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"WARMED", "WARMED_IDLE"})
  void anApplicationPoolUnderJettysExecutorThreadPoolMatchesItsOwnLogAttachedAfterWarmUp(Mode mode)
      throws Exception {
    anApplicationPoolUnderJettysExecutorThreadPoolMatchesItsOwnLog(mode);
  }

  /** Jetty's row, as {@link #jettysExecutorThreadPoolMatchesJettysOwnRequestLog}. */
  @Tag("servers-full")
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"WARMED", "WARMED_IDLE"})
  void jettysExecutorThreadPoolMatchesJettysOwnRequestLogAttachedAfterWarmUp(Mode mode)
      throws Exception {
    jettysExecutorThreadPoolMatchesJettysOwnRequestLog(mode);
  }

  /**
   * A Netty group over the application's {@code ThreadPoolExecutor} ({@code NettyServer 4 tpe}):
   * Netty runs each of its 4 executors' run loops as one task of that pool, started once and never
   * ended while the server runs. Netty's row (the group) against Netty's own log, as {@code
   * NettyIT#executorGroupMatchesTheServersOwnLog} checks the default group; and the pool's row, at
   * start and attached alike (attached, the agent finds the pool from its threads, whose every task
   * started before it), true to what the pool knows of its own tasks (4 started, none ended): no
   * arrival or completion in the window, none of Netty's requests or tasks, and no advice to shrink
   * 4 threads that are all busy.
   */
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"AT_START", "ATTACHED"})
  void aNettyGroupOverAnApplicationPoolMatchesNettysOwnLogAndThePoolItsOwnTasks(Mode mode)
      throws Exception {
    ServerHarness.Result r;
    String sizes;
    ServerHarness.askSizes = true;
    try {
      r =
          ServerHarness.run(
              mode,
              NettyServer.class,
              List.of("4", "tpe"),
              "Netty",
              "netty-tpe",
              8,
              4_000,
              20_000,
              false);
      sizes = ServerHarness.lastSizes;
    } finally {
      ServerHarness.askSizes = false;
    }
    List<Map<String, Object>> onThreads = new ArrayList<>();
    for (Map<String, Object> p : r.pools()) {
      if (String.valueOf(p.get("Name")).startsWith("netty-tpe")) onThreads.add(p);
    }
    StringBuilder shown = new StringBuilder(sizes);
    for (Map<String, Object> p : onThreads) shown.append('\n').append(TopTable.record(p));
    System.out.println(mode + " pools on the netty-tpe threads: " + shown);
    // what the application knows of its pool: SIZES tpe threads=n started=s ended=e active=a ...
    Map<String, Integer> own = new java.util.HashMap<>();
    for (String kv : sizes.split(" ")) {
      int eq = kv.indexOf('=');
      if (eq > 0) own.put(kv.substring(0, eq), Integer.parseInt(kv.substring(eq + 1)));
    }
    int n = own.get("threads");
    assertEquals(n, (int) own.get("started"), shown.toString());
    assertEquals(0, (int) own.get("ended"), shown.toString());
    List<Map<String, Object>> netty = new ArrayList<>(), others = new ArrayList<>();
    for (Map<String, Object> p : onThreads) ("Netty".equals(p.get("Kind")) ? netty : others).add(p);
    assertEquals(1, netty.size(), "one Netty row on these threads: " + shown);
    // at start the agent sees the pool's tasks start; attached, they started before it and never
    // pass through the pool again: the agent finds the pool from its threads, running its worker
    // loop at the attach, and shows the same row
    assertEquals(1, others.size(), "the pool's row: " + shown);
    for (Map<String, Object> p : others) {
      assertEquals("ThreadPoolExecutor", p.get("Kind"), shown.toString());
      // its own tasks: none of Netty's requests, tasks or ends
      assertEquals("tasks", p.get("Unit"), "Netty's requests on the pool's row: " + shown);
      assertEquals(0L, num(p, "WindowArrivals"), "arrivals in the window: " + shown);
      assertEquals(0L, num(p, "WindowCompleted"), "ends in the window: " + shown);
      assertEquals(0.0, num(p, "ArrivalRate"), shown.toString());
      assertEquals(own.get("ended").longValue(), num(p, "Completed"), "the pool's ends: " + shown);
      assertTrue(num(p, "Arrivals") <= own.get("started"), "arrivals: " + shown);
      assertEquals(n, num(p, "ActiveCount"), "busy threads: " + shown);
      // all n threads in a task through the whole window: L = n, and not "idle", no size
      assertEquals(n, num(p, "LittlesL"), 1e-9, "L: " + shown);
      assertTrue(
          String.valueOf(p.get("Recommendation")).startsWith("no arrival; " + n + " tasks ran"),
          "advice: " + shown);
      assertEquals(-1L, num(p, "RecommendedSize"), shown.toString());
    }
  }

  private static double num(Map<String, Object> p, String k) {
    return ((Number) p.get(k)).doubleValue();
  }
}

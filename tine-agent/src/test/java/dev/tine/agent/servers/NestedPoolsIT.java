package dev.tine.agent.servers;

import dev.tine.agent.servers.ServerHarness.Mode;
import java.util.List;
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
}

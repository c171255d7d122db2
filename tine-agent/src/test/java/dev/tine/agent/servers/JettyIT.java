package dev.tine.agent.servers;

import dev.tine.agent.servers.ServerHarness.Mode;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Embedded Jetty 12's {@code QueuedThreadPool} (defaults: reserved threads, the adaptive execution
 * strategy) under 8 clients, one request a connection: the agent's request-task figures against the
 * server's own log, at start and attached.
 */
class JettyIT {
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"AT_START", "ATTACHED"})
  void requestTasksMatchTheServersOwnLog(Mode mode) throws Exception {
    ServerHarness.run(
        mode, JettyServer.class, List.of("6"), "Jetty", "jetty-qtp", 8, 4_000, 20_000, false);
  }

  /**
   * The same attached into a server that has already served {@value ServerHarness#WARM_REQUESTS}
   * requests: under load, and into its parked threads before the load (the "attached into
   * applications that have already served traffic"). Kept out of the default verify for time
   * (-Pservers-full).
   */
  @Tag("servers-full")
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"WARMED", "WARMED_IDLE"})
  void requestTasksMatchTheServersOwnLogAttachedAfterWarmUp(Mode mode) throws Exception {
    requestTasksMatchTheServersOwnLog(mode);
  }
}

package dev.tine.agent.servers;

import dev.tine.agent.servers.ServerHarness.Mode;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Embedded Undertow 2.3's worker pool (JBoss threads' {@code EnhancedQueueExecutor} behind XNIO, 4
 * workers) under 8 clients, one request a connection: the agent's λ, S, Wq and L against the
 * server's own log of its dispatches, at start and attached.
 */
class UndertowIT {
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"AT_START", "ATTACHED"})
  void workerPoolMatchesTheServersOwnLog(Mode mode) throws Exception {
    ServerHarness.run(
        mode,
        UndertowServer.class,
        List.of("4"),
        "EnhancedQueueExecutor",
        "XNIO-1 task",
        8,
        4_000,
        20_000,
        true);
  }

  /**
   * The same attached into a server that has already served {@value ServerHarness#WARM_REQUESTS}
   * requests: under load, and into its parked workers before the load. Kept out of the default
   * verify for time (-Pservers-full).
   */
  @Tag("servers-full")
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"WARMED", "WARMED_IDLE"})
  void workerPoolMatchesTheServersOwnLogAttachedAfterWarmUp(Mode mode) throws Exception {
    workerPoolMatchesTheServersOwnLog(mode);
  }
}

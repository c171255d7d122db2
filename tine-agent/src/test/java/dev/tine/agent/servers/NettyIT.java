package dev.tine.agent.servers;

import dev.tine.agent.servers.ServerHarness.Mode;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Embedded Netty 4.1: a {@code DefaultEventExecutorGroup} of 4 executors (each a {@code
 * SingleThreadEventExecutor}) doing the work off one I/O loop, under 8 keep-alive clients: the
 * agent's figures for the group against the server's own log of its tasks, at start and attached.
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
}

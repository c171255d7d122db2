package dev.tine.agent.servers;

import dev.tine.agent.servers.ServerHarness.Mode;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Embedded Tomcat 10.1's request pool (its own {@code ThreadPoolExecutor}, 4 threads) under 8
 * keep-alive clients: the agent's λ, S, Wq and L against the pool's own log of the same tasks, at
 * start and attached.
 */
class TomcatIT {
  @ParameterizedTest
  @EnumSource(Mode.class)
  void requestPoolMatchesTheServersOwnLog(Mode mode) throws Exception {
    ServerHarness.run(
        mode, TomcatServer.class, List.of("4"), "Tomcat", "tomcat-exec", 8, 4_000, 20_000, false);
  }
}

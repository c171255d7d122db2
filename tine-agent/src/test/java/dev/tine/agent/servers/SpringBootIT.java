package dev.tine.agent.servers;

import dev.tine.agent.servers.ServerHarness.Mode;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Spring Boot 3.4 on its embedded Tomcat 10.1 (4 request threads) under 8 keep-alive clients: the
 * agent's figures for Tomcat's request pool against the pool's own log, at start and attached.
 */
class SpringBootIT {
  @ParameterizedTest
  @EnumSource(Mode.class)
  void tomcatRequestPoolMatchesTheServersOwnLog(Mode mode) throws Exception {
    ServerHarness.run(
        mode,
        SpringServer.class,
        List.of("platform", "4"),
        "Tomcat",
        "tomcat-exec",
        8,
        4_000,
        20_000,
        false);
  }
}

package dev.tine.agent.servers;

import dev.tine.agent.servers.ServerHarness.Mode;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Spring Boot 3.4 on its embedded Tomcat 10.1 (4 request threads) under 8 keep-alive clients: the
 * agent's figures for Tomcat's request pool against the pool's own log, at start and attached.
 */
class SpringBootIT {
  @Test
  void attached() throws Exception {
    run(Mode.ATTACHED);
  }

  /** Kept out of the default verify for time (-Pservers-full). */
  @Test
  @Tag("servers-full")
  void atStart() throws Exception {
    run(Mode.AT_START);
  }

  private static void run(Mode mode) throws Exception {
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

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

  /**
   * Boot's own request pool (Tomcat makes it: {@code http-nio-...-exec}, 4 threads), attached under
   * load after the application has served {@value ServerHarness#WARM_REQUESTS} requests. The pool's
   * tasks are not logged (it is Tomcat's): its requests are checked against Tomcat's own request
   * log, λ and S.
   */
  @Test
  void attachedIntoAWarmedUpApplicationsOwnPool() throws Exception {
    ServerHarness.run(
        Mode.WARMED,
        SpringServer.class,
        List.of("default"),
        "Tomcat",
        "http-nio",
        8,
        4_000,
        20_000,
        false);
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

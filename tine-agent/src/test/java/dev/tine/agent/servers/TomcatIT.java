package dev.tine.agent.servers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.servers.ServerHarness.Mode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Embedded Tomcat 10.1's and 11's request pool (its own {@code ThreadPoolExecutor}, 4 threads)
 * under 8 keep-alive clients: the agent's λ, S, Wq and L against the pool's own log of the same
 * tasks, at start and attached.
 */
class TomcatIT {
  @ParameterizedTest
  @EnumSource(Mode.class)
  void requestPoolMatchesTheServersOwnLog(Mode mode) throws Exception {
    ServerHarness.run(
        mode, TomcatServer.class, List.of("4"), "Tomcat", "tomcat-exec", 8, 4_000, 20_000, false);
  }

  /**
   * The same server on Tomcat 11 (its jars copied by the build, in place of 10.1's). Kept out of
   * the default verify for time (-Pservers-full).
   */
  @Tag("servers-full")
  @ParameterizedTest
  @EnumSource(Mode.class)
  void tomcat11RequestPoolMatchesTheServersOwnLog(Mode mode) throws Exception {
    Path jars = Path.of(System.getProperty("tomcat11.dir", "target/tomcat-11"));
    assertTrue(Files.isDirectory(jars), "no Tomcat 11 jars at " + jars + " (run via mvn verify)");
    ServerHarness.tomcatJars = jars;
    try {
      ServerHarness.Result r =
          ServerHarness.run(
              mode,
              TomcatServer.class,
              List.of("4"),
              "Tomcat",
              "tomcat-exec",
              8,
              4_000,
              20_000,
              false);
      assertTrue(
          String.valueOf(r.pool().get("PoolClass"))
              .equals("dev.tine.agent.servers.TomcatServer$LoggedPool"),
          r.line());
    } finally {
      ServerHarness.tomcatJars = null;
    }
  }
}

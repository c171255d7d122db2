package dev.tine.agent.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.servers.ServerHarness.Mode;
import java.util.List;
import java.util.Map;
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

  /**
   * Tomcat's executor set to a Spring {@code ThreadPoolTaskExecutor} (4 threads) whose tasks a
   * {@code TaskDecorator} wraps, through Boot's protocol-handler customizer: the executor's own
   * {@code ThreadPoolExecutor} runs Tomcat's requests (inside the decorator's wrappers), so its row
   * is per request, against Tomcat's access log; its tasks against the decorator's log of them; and
   * it is the only row on its threads. Attached under load after {@value
   * ServerHarness#WARM_REQUESTS} requests. Kept out of the default verify for time (about 40 s on
   * the loaded 2-vCPU box; the default verify has Tomcat on a plain JDK executor, {@code
   * TomcatIT#anApplicationsExecutorShowsTomcatsRequestsAttached}).
   */
  @Test
  @Tag("servers-full")
  void aDecoratedTaskExecutorShowsTomcatsRequestsAttachedAfterWarmUp() throws Exception {
    decoratedTaskExecutor(Mode.WARMED);
  }

  /** The same at start ({@code -javaagent}); also {@code servers-full}. */
  @Test
  @Tag("servers-full")
  void aDecoratedTaskExecutorShowsTomcatsRequestsAtStart() throws Exception {
    decoratedTaskExecutor(Mode.AT_START);
  }

  /**
   * Boot's own request pool, as {@link #attachedIntoAWarmedUpApplicationsOwnPool} checks it, with
   * the application run as users ship it: an executable jar ({@code java -jar}, made by Boot's
   * repackager: {@link BootJar}), Spring's and Tomcat's classes loaded by Boot's {@code
   * LaunchedClassLoader} from the jars nested in it. Kept out of the default verify for time.
   */
  @Test
  @Tag("servers-full")
  void attachedIntoAWarmedUpExecutableJar() throws Exception {
    executableJar(Mode.WARMED, "default");
  }

  /**
   * The same attached while Boot's pool waits for work after {@value ServerHarness#WARM_REQUESTS}
   * requests, then loaded (warm up, attach, load); also {@code servers-full}.
   */
  @Test
  @Tag("servers-full")
  void attachedIntoAnIdleWarmedUpExecutableJar() throws Exception {
    executableJar(Mode.WARMED_IDLE, "default");
  }

  /** The same at start ({@code -javaagent}); also {@code servers-full}. */
  @Test
  @Tag("servers-full")
  void anExecutableJarAtStart() throws Exception {
    executableJar(Mode.AT_START, "default");
  }

  /**
   * The executable jar with Tomcat's pool logging its tasks ({@code platform 4}, as {@link
   * #attached}): its requests' waits known, so Wq is checked too. Attached after warm-up.
   */
  @Test
  @Tag("servers-full")
  void anExecutableJarsLoggedPoolAttachedAfterWarmUp() throws Exception {
    executableJar(Mode.WARMED, "platform");
  }

  private static void executableJar(Mode mode, String pool) throws Exception {
    ServerHarness.bootJar = BootJar.make();
    try {
      ServerHarness.Result r =
          ServerHarness.run(
              mode,
              SpringServer.class,
              pool.equals("default") ? List.of("default") : List.of(pool, "4"),
              "Tomcat",
              pool.equals("default") ? "http-nio" : "tomcat-exec",
              8,
              4_000,
              20_000,
              false);
      // the server ran from the jar: its Tomcat came from Boot's class loader
      assertTrue(r.line().contains("(LaunchedClassLoader)"), r.line());
      assertEquals("requests", r.pool().get("Unit"), r.line());
    } finally {
      ServerHarness.bootJar = null;
    }
  }

  private static void decoratedTaskExecutor(Mode mode) throws Exception {
    ServerHarness.Result r =
        ServerHarness.run(
            mode,
            SpringServer.class,
            List.of("tpte", "4"),
            "ThreadPoolExecutor",
            "tpte-exec",
            8,
            4_000,
            20_000,
            false);
    assertEquals("requests", r.pool().get("Unit"), r.line());
    assertEquals(
        "org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor$1",
        r.pool().get("PoolClass"),
        r.line());
    // one row on the executor's threads: Tomcat made no pool of its own
    List<String> rows = new java.util.ArrayList<>();
    for (Map<String, Object> p : r.pools()) {
      String name = String.valueOf(p.get("Name"));
      if ("Tomcat".equals(p.get("Kind")) || name.startsWith("tpte-exec")) {
        rows.add(p.get("Kind") + " " + name + " " + p.get("Unit"));
      }
    }
    assertEquals(1, rows.size(), "rows on Tomcat's request threads: " + rows);
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

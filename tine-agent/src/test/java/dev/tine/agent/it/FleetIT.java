package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.top.AttachClient;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/**
 * The fleet view: the agent's Prometheus endpoint on a real application that logs its own truth
 * (counts exact; names as {@code tine top} and JFR give them; the scrape, the alerting rules and
 * their unit tests validated by the real {@code promtool}); {@code tine top} reading an agent
 * loaded with {@code -javaagent} where dynamic loading is disabled; {@code --stop-agent} on a
 * stopped agent loading nothing.
 */
class FleetIT {
  static final String TEST_CLASSES = System.getProperty("it.test.classes", "target/test-classes");
  static final Path OBSERVABILITY = Path.of("observability");

  /**
   * promtool from $PROMTOOL, the PATH or ~/go/bin; without it the test is skipped, saying so, or
   * fails in CI ({@link Preconditions}).
   */
  static Path promtool() {
    List<Path> candidates = new ArrayList<>();
    String env = System.getenv("PROMTOOL");
    if (env != null) candidates.add(Path.of(env));
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
      if (!dir.isEmpty()) candidates.add(Path.of(dir, "promtool"));
    candidates.add(Path.of(System.getProperty("user.home"), "go", "bin", "promtool"));
    for (Path p : candidates) if (Files.isExecutable(p)) return p;
    Preconditions.require(
        false,
        "promtool not found (PATH, $PROMTOOL, ~/go/bin): install Debian's prometheus package or"
            + " `go install github.com/prometheus/prometheus/cmd/promtool@latest`");
    return null;
  }

  record Run(int exit, String output) {}

  static Run run(Path dir, String stdin, String... command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    if (dir != null) pb.directory(dir.toFile());
    Process p = pb.start();
    if (stdin != null) p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "promtool hung");
    return new Run(p.exitValue(), out);
  }

  @Test
  void alertingRulesAndTheirUnitTestsPassPromtool() throws Exception {
    Path promtool = promtool();
    Run check =
        run(OBSERVABILITY, null, promtool.toString(), "check", "rules", "tine-pools.rules.yml");
    assertEquals(0, check.exit, check.output);
    assertTrue(check.output.contains("SUCCESS: 4 rules found"), check.output);
    Run test =
        run(OBSERVABILITY, null, promtool.toString(), "test", "rules", "tine-pools.rules.test.yml");
    assertEquals(0, test.exit, test.output);
    String tests = Files.readString(OBSERVABILITY.resolve("tine-pools.rules.test.yml"));
    for (String alert :
        List.of(
            "TinePoolSaturated", "TinePoolWedged", "TinePoolQueueGrowing", "TinePoolWaitP99High"))
      assertTrue(tests.contains("alertname: " + alert), "a unit test for " + alert);
  }

  @Test
  void aRealScrapeIsExactNamedAsTopAndJfrNameThePoolAndPassesPromtool() throws Exception {
    Path promtool = promtool();
    Path dir = Files.createDirectories(Path.of("target", "fleet-it"));
    Path jfr = dir.resolve("fleet.jfr").toAbsolutePath();
    Files.deleteIfExists(jfr);
    List<String> jvm =
        List.of(
            "-Xmx256m",
            // the production setup JEP 451 asks for: the agent at start, no loading at run time
            "-XX:-EnableDynamicAgentLoading",
            "-XX:StartFlightRecording:filename=" + jfr + ",dumponexit=true",
            "-javaagent:" + ChildJvm.agentJar() + "=prometheus=127.0.0.1:0,window=2");
    try (ChildJvm app = ChildJvm.java(jvm, TEST_CLASSES, FleetScenario.class.getName())) {
      long pid = Long.parseLong(app.expect("READY", 60).split(" ")[1]);
      String url = prometheusUrl(app);
      assertTrue(url.startsWith("http://127.0.0.1:"), "loopback unless told otherwise: " + url);

      app.send("burst 300");
      Map<String, Long> truth = truth(app.expect("TRUTH", 60));
      assertTrue(truth.get("rejected") > 0 && truth.get("failed") > 0, truth.toString());
      app.send("burst 200");
      truth = truth(app.expect("TRUTH", 60));

      // The scrape converges to the application's own counts (the agent ticks once a second).
      String labels = "{name=\"orders\",type=\"ThreadPoolExecutor\"}";
      String scrape = "";
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (System.nanoTime() < deadline) {
        scrape = get(url);
        if (value(scrape, "executor_completed_tasks_total" + labels) == truth.get("completed"))
          break;
        Thread.sleep(200);
      }
      assertEquals(
          truth.get("arrivals"), value(scrape, "executor_arrivals_tasks_total" + labels), scrape);
      assertEquals(
          truth.get("rejected"), value(scrape, "executor_rejected_tasks_total" + labels), scrape);
      assertEquals(
          truth.get("completed"), value(scrape, "executor_completed_tasks_total" + labels), scrape);
      assertEquals(
          truth.get("failed"), value(scrape, "executor_failed_tasks_total" + labels), scrape);
      assertEquals(
          truth.get("completed"), value(scrape, "executor_seconds_count" + labels), scrape);
      assertEquals(2, value(scrape, "executor_pool_max_threads" + labels), scrape);
      assertTrue(scrape.contains("# TYPE executor_idle_seconds summary"), scrape);
      assertTrue(
          scrape.contains(
              "executor_idle_percentile_seconds{name=\"orders\",type=\"ThreadPoolExecutor\",phi=\"0.99\"}"),
          scrape);
      assertEquals(
          Runtime.getRuntime().availableProcessors(),
          value(scrape, "tine_agent_processors"),
          scrape);

      Run lint = run(null, scrape, promtool.toString(), "check", "metrics");
      assertEquals(0, lint.exit, "promtool check metrics: " + lint.output + "\n" + scrape);
      Files.writeString(dir.resolve("scrape.txt"), scrape);

      // Every metric the rules and the dashboard use is in the scrape.
      for (String file : List.of("tine-pools.rules.yml", "tine-pools.dashboard.json")) {
        for (String metric : metricsIn(Files.readString(OBSERVABILITY.resolve(file)))) {
          assertTrue(
              Pattern.compile("(?m)^" + metric + "[{ ]").matcher(scrape).find(),
              file + " uses " + metric + ", which the agent does not serve");
        }
      }

      // tine top reads the agent loaded at start; nothing is loaded, and none could be.
      String poolName;
      try (AttachClient top = AttachClient.attach(pid, ChildJvm.agentJar(), null)) {
        assertFalse(top.loadedNow, "the -javaagent agent is read, not loaded again");
        assertEquals("premain", top.agent().get("StartedBy"));
        assertEquals(url, top.agent().get("PrometheusUrl"));
        poolName =
            top.pools().stream()
                .filter(p -> "java.util.concurrent.ThreadPoolExecutor".equals(p.get("PoolClass")))
                .map(p -> String.valueOf(p.get("Name")))
                .findFirst()
                .orElseThrow();
      }
      assertEquals("orders", poolName, "top's name is the scrape's");

      // --stop-agent, twice: the second finds no agent and loads none.
      try (ChildJvm stop = TopIT.top(Long.toString(pid), "--stop-agent")) {
        assertEquals(0, stop.waitFor(60), "stderr " + stop.err);
        assertTrue(stop.err.toString().contains("stopped"), stop.err.toString());
      }
      try (ChildJvm stop = TopIT.top(Long.toString(pid), "--stop-agent")) {
        assertEquals(0, stop.waitFor(60), "stderr " + stop.err);
        assertTrue(stop.err.toString().contains("no tine agent runs"), stop.err.toString());
      }
      assertTrue(
          app.err.stream()
              .noneMatch(l -> l.contains("loaded dynamically") || l.contains("WARNING")),
          "the target printed a warning: " + app.err);
      assertEquals(
          1,
          app.err.stream().filter(l -> l.startsWith("tine-agent ")).count(),
          "one agent started, once: " + app.err);
      assertThrowsIo(url);

      app.send("quit");
      app.expect("BYE", 60);
      // The endpoint's thread is a daemon: the application ends as it would without the agent.
      assertEquals(0, app.waitFor(60), "stdout " + app.all + " stderr " + app.err);
    }
    Set<String> jfrPools = new TreeSet<>();
    for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
      if (e.getEventType().getName().equals("dev.tine.agent.PoolStatistics"))
        jfrPools.add(e.getString("pool"));
    }
    assertTrue(jfrPools.contains("orders"), "JFR names the pool as top does: " + jfrPools);
  }

  @Test
  void theEndpointNeverKeepsTheApplicationAlive() throws Exception {
    // main returns at once (standard input closed): the JVM must end as it would without the agent
    try (ChildJvm app =
        ChildJvm.java(
            List.of("-Xmx128m", "-javaagent:" + ChildJvm.agentJar() + "=prometheus=127.0.0.1:0"),
            TEST_CLASSES,
            FleetScenario.class.getName())) {
      prometheusUrl(app);
      app.process.getOutputStream().close();
      assertEquals(0, app.waitFor(60), "stdout " + app.all + " stderr " + app.err);
      assertTrue(app.all.contains("BYE"), app.all.toString());
    }
  }

  static String prometheusUrl(ChildJvm app) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    Pattern p = Pattern.compile("Prometheus (http://\\S+/metrics)");
    while (System.nanoTime() < deadline) {
      synchronized (app.err) {
        for (String l : app.err) {
          Matcher m = p.matcher(l);
          if (m.find()) return m.group(1);
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no Prometheus URL on standard error: " + app.err);
  }

  static Map<String, Long> truth(String line) {
    Map<String, Long> m = new java.util.HashMap<>();
    for (String kv : line.substring("TRUTH ".length()).split(" ")) {
      String[] p = kv.split("=");
      m.put(p[0], Long.parseLong(p[1]));
    }
    return m;
  }

  static String get(String url) throws Exception {
    HttpClient c = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    HttpResponse<String> r =
        c.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    assertTrue(
        r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"),
        r.headers().toString());
    return r.body();
  }

  static void assertThrowsIo(String url) {
    try {
      get(url);
    } catch (IOException e) {
      return; // the stopped agent closed its endpoint
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("the endpoint still answers after the agent stopped");
  }

  /** The sample's value, or -1 if absent. */
  static long value(String scrape, String sample) {
    for (String l : scrape.split("\n")) {
      if (l.startsWith(sample + " ")) {
        return (long) Double.parseDouble(l.substring(sample.length() + 1).trim());
      }
    }
    return -1;
  }

  static Set<String> metricsIn(String text) {
    Set<String> out = new TreeSet<>();
    Matcher m = Pattern.compile("\\b((?:executor|tine_agent)_[a-z0-9_]+)").matcher(text);
    while (m.find()) out.add(m.group(1));
    return out;
  }
}

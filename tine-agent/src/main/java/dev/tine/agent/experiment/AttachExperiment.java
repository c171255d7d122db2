package dev.tine.agent.experiment;

import dev.tine.agent.demo.LoopbackServer;
import dev.tine.agent.top.AgentJar;
import dev.tine.agent.top.AttachClient;
import dev.tine.agent.top.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Pepperdine's four experiments, measured from outside: the loopback server (plain {@code
 * Executors.newFixedThreadPool}, no Tine class) runs in its own JVM, the agent is attached to it,
 * and the table is printed from the agent's figures, beside the server's own.
 */
@Command(
    name = "attach-experiment",
    aliases = "attach",
    mixinStandardHelpOptions = true,
    description = {
      "Pepperdine's experiments on an unmodified server: 1 client and pool 1, then",
      "10 clients and pools 1, 4, 8. The server (its own JVM, plain",
      "Executors.newFixedThreadPool) knows nothing of Tine; the agent is attached",
      "to it, and the table (Little's L, dead time, CPU...) comes from the agent's",
      "MXBeans, beside the dead time the server measured itself. Pepperdine saw dead",
      "time ≈ 90%%, 60%%, 19%% for pools 1, 4, 8."
    })
public final class AttachExperiment implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--seconds",
      paramLabel = "S",
      description = "Measured window per configuration (default: 5).")
  int seconds = 5;

  @Option(
      names = "--warmup",
      paramLabel = "S",
      description = "Seconds before the window starts (default: 2).")
  int warmup = 2;

  @Option(
      names = "--sleep-ms",
      paramLabel = "MS",
      description = "Per request, the server's call to another system (default: 10).")
  int sleepMs = 10;

  @Option(
      names = "--cpu-iterations",
      paramLabel = "N",
      description = "Per request, the server's CPU work (default: 20000).")
  int cpuIterations = 20_000;

  @Option(
      names = "--quick",
      description =
          "Shorter runs (2 s windows after 1 s of warm-up), as the other experiments' --quick.")
  boolean quick;

  @Option(
      names = "--agent-jar",
      paramLabel = "FILE",
      description = "The agent jar (default: found beside this one).")
  Path agentJar;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "Also write one record per configuration to FILE.")
  Path json;

  record Row(
      int clients,
      int pool,
      Map<String, Object> figures,
      double serverDeadTime,
      double serverServiceMs) {}

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (quick) {
      seconds = Math.min(seconds, 2);
      warmup = Math.min(warmup, 1);
    }
    Path jar = AgentJar.locate(agentJar);
    Path classes = serverClasses(jar);
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-cp",
            classes.toString(),
            LoopbackServer.class.getName(),
            "fixed",
            "1");
    Process server = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    Lines lines = new Lines(server.getInputStream());
    try {
      String[] hello = lines.expect("PORT", 30).split(" ");
      int port = Integer.parseInt(hello[1]);
      long pid = Long.parseLong(hello[3]);
      out.printf(
          "server pid %d (plain Executors.newFixedThreadPool, no Tine class on its class path); requests: %d ms"
              + " sleep + %d hash rounds; window %d s after %d s warm-up%n",
          pid, sleepMs, cpuIterations, seconds, warmup);
      out.flush();
      List<Row> rows = new ArrayList<>();
      try (AttachClient agent =
          AttachClient.attach(pid, jar, "window=" + seconds + ",quiet=true")) {
        int lastId = 0;
        int[][] configs = {{1, 1}, {10, 1}, {10, 4}, {10, 8}};
        for (int[] c : configs) {
          int clients = c[0], pool = c[1];
          send(server, "pool fixed " + pool);
          lines.expect("OK pool", 30);
          long startedAt = System.currentTimeMillis();
          try (LoadClient load = new LoadClient(port, clients, sleepMs * 1000, cpuIterations)) {
            Map<String, Object> f = steady(agent, lastId, startedAt + warmup * 1000L);
            lastId = ((Number) f.get("Id")).intValue();
            long to = ((Number) f.get("MeasuredAtMillis")).longValue();
            long from = to - Math.round(((Number) f.get("WindowSeconds")).doubleValue() * 1000);
            send(server, "stats " + from + " " + to);
            String[] st = lines.expect("STATS", 10).split(" ");
            double wait = Long.parseLong(st[2]), service = Long.parseLong(st[3]);
            long n = Long.parseLong(st[1]);
            rows.add(
                new Row(
                    clients,
                    pool,
                    f,
                    wait / (wait + service),
                    n == 0 ? Double.NaN : service / 1e6 / n));
            out.printf(
                "  %2d %s, pool %d: done%n", clients, clients == 1 ? "client" : "clients", pool);
            out.flush();
          }
        }
      }
      print(out, rows);
      if (json != null) {
        List<Map<String, Object>> recs = new ArrayList<>();
        for (Row r : rows) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("clients", r.clients);
          m.put("pool_size", r.pool);
          m.put("server_dead_time_ratio", r.serverDeadTime);
          m.put("server_service_ms", r.serverServiceMs);
          m.put("agent", r.figures);
          recs.add(m);
        }
        Files.writeString(json, Json.write(recs) + System.lineSeparator());
        out.println("JSON records written to " + json);
      }
      send(server, "quit");
      server.waitFor(10, TimeUnit.SECONDS);
      return 0;
    } finally {
      server.destroyForcibly();
    }
  }

  /** The newest running pool, once its window starts after {@code notBefore}. */
  private static Map<String, Object> steady(AttachClient agent, int afterId, long notBefore)
      throws Exception {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (System.nanoTime() < deadline) {
      for (Map<String, Object> p : agent.pools()) {
        if (!"running".equals(p.get("State")) || !String.valueOf(p.get("Name")).startsWith("pool-"))
          continue;
        if (((Number) p.get("Id")).intValue() <= afterId) continue;
        long at = ((Number) p.get("MeasuredAtMillis")).longValue();
        double w = ((Number) p.get("WindowSeconds")).doubleValue();
        if (at - (long) (w * 1000) >= notBefore) return p;
      }
      Thread.sleep(200);
    }
    throw new IOException("the agent gave no figures for the new pool");
  }

  static void print(PrintWriter out, List<Row> rows) {
    out.println();
    out.println(
        "Pepperdine's table, from the attached agent (the server measured its own dead time too):");
    out.printf(
        Locale.ROOT,
        "%7s %5s %10s %12s %9s %10s %13s %6s %11s %11s  %s%n",
        "clients",
        "pool",
        "completed",
        "throughput/s",
        "Little L",
        "dead time",
        "(server's own)",
        "CPU%",
        "p90 wait ms",
        "service ms",
        "advisor");
    for (Row r : rows) {
      Map<String, Object> f = r.figures;
      out.printf(
          Locale.ROOT,
          "%7d %5d %10d %12.1f %9.2f %9.1f%% %12.1f%% %6.0f %11.2f %11.2f  %s%n",
          r.clients,
          r.pool,
          ((Number) f.get("WindowCompleted")).longValue(),
          num(f, "RetirementRate"),
          num(f, "LittlesL"),
          100 * num(f, "DeadTimeRatio"),
          100 * r.serverDeadTime,
          num(f, "CpuPercent"),
          num(f, "WaitP90Millis"),
          num(f, "ServiceMillis"),
          f.get("RecommendedSize") + ": " + f.get("Recommendation"));
    }
    out.println(
        "Pepperdine's article (4 cores, its own workload): L ≈ 0.98 and dead time ≈ 0.1% with 1 client; with 10 clients"
            + " dead time ≈ 90%, 60%, 19% for pools 1, 4, 8.");
    out.flush();
  }

  private static double num(Map<String, Object> f, String k) {
    return f.get(k) instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  private static void send(Process p, String line) throws IOException {
    p.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().flush();
  }

  /**
   * The server's classes alone, in a temporary directory (the application knows nothing of Tine).
   */
  static Path serverClasses(Path agentJar) throws IOException {
    Path dir = Files.createTempDirectory("tine-loopback-server");
    dir.toFile().deleteOnExit();
    try (JarFile j = new JarFile(agentJar.toFile())) {
      for (var e : Collections.list(j.entries())) {
        if (e.getName().startsWith("dev/tine/agent/demo/") && e.getName().endsWith(".class")) {
          Path p = dir.resolve(e.getName());
          Files.createDirectories(p.getParent());
          try (InputStream in = j.getInputStream(e)) {
            Files.copy(in, p);
          }
          p.toFile().deleteOnExit();
        }
      }
    }
    return dir;
  }

  /** The server's standard output, line by line. */
  private static final class Lines {
    private final BlockingQueue<String> q = new LinkedBlockingQueue<>();

    Lines(InputStream in) {
      Thread t =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                  for (String l; (l = r.readLine()) != null; ) q.add(l);
                } catch (IOException e) {
                  // ended
                }
              },
              "server-output");
      t.setDaemon(true);
      t.start();
    }

    String expect(String prefix, int seconds) throws Exception {
      long deadline = System.nanoTime() + seconds * 1_000_000_000L;
      for (; ; ) {
        String l = q.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (l == null) throw new IOException("the server did not answer '" + prefix + "'");
        if (l.startsWith(prefix)) return l;
      }
    }
  }
}

package dev.tine.agent.core;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tine.agent.state.PoolFigures;
import dev.tine.agent.state.PoolNames;
import dev.tine.agent.state.PoolState;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The agent's opt-in Prometheus endpoint ({@code prometheus=host:port}): {@code GET /metrics} in
 * Prometheus' text exposition format (0.0.4), with the meter names tine-micrometer's {@code
 * ExecutorSnapshotMetrics} gets from Micrometer's Prometheus registry ({@code
 * executor_completed_tasks_total}, {@code executor_idle_seconds}, {@code executor_queued_tasks},
 * ...), each pool labelled {@code name} (as {@code tine top} names it) and {@code type} (its kind).
 *
 * <p>It serves the figures of the agent's last tick and computes nothing on a scrape. The JDK's own
 * HTTP server ({@code com.sun.net.httpserver}, no dependency): one thread, which handles the
 * requests itself, started from a daemon thread so that it is a daemon too and never keeps the
 * application alive.
 */
final class PrometheusEndpoint {
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final AgentRuntime rt;
  private final HttpServer server;

  private PrometheusEndpoint(AgentRuntime rt, HttpServer server) {
    this.rt = rt;
    this.server = server;
  }

  /** Binds {@code host:port} and serves; the port may be 0 (then see {@link #url()}). */
  static PrometheusEndpoint start(AgentRuntime rt, String hostPort) throws Exception {
    int colon = hostPort.lastIndexOf(':');
    String host = hostPort.substring(0, colon);
    int port = Integer.parseInt(hostPort.substring(colon + 1));
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 8);
    PrometheusEndpoint e = new PrometheusEndpoint(rt, server);
    server.createContext("/metrics", e::handle);
    server.setExecutor(null); // the dispatcher thread answers: no pool of the agent's own
    Thread starter = new Thread(server::start, "tine-agent-prometheus-start");
    starter.setDaemon(true); // the server's dispatcher thread inherits it
    starter.start();
    starter.join();
    return e;
  }

  String url() {
    InetSocketAddress a = server.getAddress();
    String h = a.getAddress().getHostAddress();
    if (h.contains(":")) h = "[" + h + "]";
    return "http://" + h + ":" + a.getPort() + "/metrics";
  }

  void stop() {
    server.stop(0);
  }

  private void handle(HttpExchange x) throws IOException {
    try (x) {
      String m = x.getRequestMethod();
      if (!m.equals("GET") && !m.equals("HEAD")) {
        x.getResponseHeaders().set("Allow", "GET, HEAD");
        x.sendResponseHeaders(405, -1);
        return;
      }
      byte[] body;
      try {
        body = scrape().getBytes(StandardCharsets.UTF_8);
      } catch (RuntimeException e) {
        rt.failed(e);
        x.sendResponseHeaders(500, -1);
        return;
      }
      x.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      if (m.equals("HEAD")) {
        x.sendResponseHeaders(200, -1);
        return;
      }
      x.sendResponseHeaders(200, body.length);
      try (OutputStream out = x.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** The exposition text of the last tick. */
  String scrape() {
    List<PoolFigures> pools = new ArrayList<>();
    for (PoolState st : rt.registry.all()) {
      PoolFigures f = st.figures;
      // not the RMI/JMX pools of a JMX client's own connection (they read NaN: nothing measured)
      if (f != null && !PoolNames.jmxMachinery(f.name, f.createdAt)) pools.add(f);
    }
    return render(pools, rt);
  }

  /** Each family once, with every pool's sample: the format wants a family's samples together. */
  static String render(List<PoolFigures> shown, AgentRuntime rt) {
    StringBuilder sb = new StringBuilder(4096);
    List<String> labels = labels(shown);
    // the executor_* families count pool tasks, as their names say; requests have their own below
    List<PoolFigures> pools = new ArrayList<>(shown.size());
    for (PoolFigures f : shown) pools.add(taskView(f));
    family(
        sb,
        "executor_arrivals_tasks_total",
        "counter",
        "Tasks offered to the pool (accepted or rejected), since the agent saw it");
    for (int i = 0; i < pools.size(); i++)
      sample(sb, "executor_arrivals_tasks_total", labels.get(i), pools.get(i).arrivals);
    family(sb, "executor_completed_tasks_total", "counter", "Tasks that finished, normally or not");
    for (int i = 0; i < pools.size(); i++)
      sample(sb, "executor_completed_tasks_total", labels.get(i), pools.get(i).completed);
    family(sb, "executor_failed_tasks_total", "counter", "Tasks that threw");
    for (int i = 0; i < pools.size(); i++)
      sample(sb, "executor_failed_tasks_total", labels.get(i), pools.get(i).failed);
    family(
        sb,
        "executor_rejected_tasks_total",
        "counter",
        "Tasks refused (bounded queue full, or shut down)");
    for (int i = 0; i < pools.size(); i++)
      sample(sb, "executor_rejected_tasks_total", labels.get(i), pools.get(i).rejected);

    family(
        sb, "executor_idle_seconds", "summary", "Time tasks waited in the queue before they ran");
    for (int i = 0; i < pools.size(); i++) {
      PoolFigures f = pools.get(i);
      sample(sb, "executor_idle_seconds_count", labels.get(i), f.completed);
      sample(sb, "executor_idle_seconds_sum", labels.get(i), total(f, f.totalWaitSeconds));
    }
    family(sb, "executor_seconds", "summary", "Time tasks ran (service time)");
    for (int i = 0; i < pools.size(); i++) {
      PoolFigures f = pools.get(i);
      sample(sb, "executor_seconds_count", labels.get(i), f.completed);
      sample(sb, "executor_seconds_sum", labels.get(i), total(f, f.totalServiceSeconds));
    }

    gauge(sb, pools, labels, "executor_queued_tasks", "Tasks in the queue", f -> f.queueLength);
    gauge(sb, pools, labels, "executor_pool_size_threads", "Worker threads", f -> f.poolSize);
    gauge(
        sb,
        pools,
        labels,
        "executor_pool_core_threads",
        "Threads the pool keeps",
        f -> f.corePoolSize);
    gauge(
        sb,
        pools,
        labels,
        "executor_pool_max_threads",
        "Most threads the pool may have",
        f -> f.maximumPoolSize);
    gauge(
        sb, pools, labels, "executor_active_threads", "Threads running tasks", f -> f.activeCount);
    gauge(
        sb,
        pools,
        labels,
        "executor_effective_size_threads",
        "The size that bounds the threads running tasks, the one tine top --resize sets (-1: the"
            + " pool cannot be resized)",
        f -> f.currentSize);
    gauge(
        sb,
        pools,
        labels,
        "executor_original_size_threads",
        "The effective size before tine first changed it (the current one while it has not; -1:"
            + " not resizable)",
        f -> f.originalSize);
    gauge(
        sb,
        pools,
        labels,
        "executor_littles_l_tasks",
        "Little's law over the window: L = arrival rate x (wait + service), the mean number of"
            + " tasks in the executor (queued and running)",
        f -> f.littlesL);
    gauge(
        sb,
        pools,
        labels,
        "executor_dead_time_ratio",
        "Over the window: time tasks waited / (waited + ran), 0..1",
        f -> f.deadTimeRatio);
    gauge(
        sb,
        pools,
        labels,
        "executor_recommended_threads",
        "The size PoolSizeAdvisor recommends for the window's load (-1: none yet)",
        f -> f.recommendedSize);

    percentiles(
        sb,
        pools,
        labels,
        "executor_idle_percentile_seconds",
        "Queue wait over the window, percentile phi",
        true);
    gauge(
        sb,
        pools,
        labels,
        "executor_idle_max_seconds",
        "Longest queue wait over the window",
        f -> f.waitMaxMs / 1000);
    percentiles(
        sb,
        pools,
        labels,
        "executor_percentile_seconds",
        "Service time over the window, percentile phi",
        false);
    gauge(
        sb,
        pools,
        labels,
        "executor_max_seconds",
        "Longest service time over the window",
        f -> f.serviceMaxMs / 1000);

    requests(sb, shown, labels);

    family(
        sb,
        "tine_agent_processors",
        "gauge",
        "Processors available to the JVM (what ΣL is read against)");
    sb.append("tine_agent_processors ").append(rt.processors).append('\n');
    family(sb, "tine_agent_pools_measured", "gauge", "Pools the agent measures");
    sb.append("tine_agent_pools_measured ").append(pools.size()).append('\n');
    family(
        sb,
        "tine_agent_pools_unmeasured",
        "gauge",
        "Pools not measured because the agent's cap (maxPools) was reached");
    sb.append("tine_agent_pools_unmeasured ").append(rt.registry.refused.get()).append('\n');
    family(
        sb,
        "tine_agent_failures_total",
        "counter",
        "Failures inside the agent (each swallowed; the application went on)");
    sb.append("tine_agent_failures_total ").append(rt.failures()).append('\n');
    return sb.toString();
  }

  /** A pool's task figures, under the pool's name and with its advice. */
  static PoolFigures taskView(PoolFigures f) {
    if (f.tasks == null) return f;
    PoolFigures t = f.tasks.copy();
    t.id = f.id;
    t.name = f.name;
    t.kind = f.kind;
    t.recommendedSize = f.recommendedSize;
    t.currentSize = f.currentSize;
    t.originalSize = f.originalSize;
    return t;
  }

  /** The families of the pools measured per request (a server's request pool). */
  private static void requests(StringBuilder sb, List<PoolFigures> pools, List<String> labels) {
    List<PoolFigures> rp = new ArrayList<>();
    List<String> rl = new ArrayList<>();
    for (int i = 0; i < pools.size(); i++) {
      if (PoolFigures.REQUESTS.equals(pools.get(i).unit)) {
        rp.add(pools.get(i));
        rl.add(labels.get(i));
      }
    }
    if (rp.isEmpty()) return;
    family(
        sb,
        "executor_requests_total",
        "counter",
        "Requests the pool's threads handled (the server's per-request entry point)");
    for (int i = 0; i < rp.size(); i++)
      sample(sb, "executor_requests_total", rl.get(i), rp.get(i).completed);
    family(
        sb,
        "executor_request_wait_seconds",
        "summary",
        "Time from a request's bytes being handed to the pool to its handling starting");
    for (int i = 0; i < rp.size(); i++) {
      PoolFigures f = rp.get(i);
      sample(sb, "executor_request_wait_seconds_count", rl.get(i), f.completed);
      sample(sb, "executor_request_wait_seconds_sum", rl.get(i), total(f, f.totalWaitSeconds));
    }
    family(sb, "executor_request_seconds", "summary", "A request's own handling time");
    for (int i = 0; i < rp.size(); i++) {
      PoolFigures f = rp.get(i);
      sample(sb, "executor_request_seconds_count", rl.get(i), f.completed);
      sample(sb, "executor_request_seconds_sum", rl.get(i), total(f, f.totalServiceSeconds));
    }
    gauge(
        sb,
        rp,
        rl,
        "executor_request_rate",
        "Requests per second over the window (λ)",
        f -> f.arrivalRate);
    gauge(
        sb,
        rp,
        rl,
        "executor_littles_l_requests",
        "Little's law over the window: L = requests per second x (wait + handling), the mean"
            + " number of requests waiting for or on the pool's threads",
        f -> f.littlesL);
    gauge(
        sb,
        rp,
        rl,
        "executor_tasks_per_request",
        "Pool tasks per request over the window",
        f -> f.tasksPerRequest);
  }

  /** Since start, mean over the timed tasks times the completed ones (as the Micrometer binder). */
  private static double total(PoolFigures f, double timedSeconds) {
    return f.totalTimed == 0 ? 0 : timedSeconds / f.totalTimed * f.completed;
  }

  private interface Value {
    double of(PoolFigures f);
  }

  private static void gauge(
      StringBuilder sb,
      List<PoolFigures> pools,
      List<String> labels,
      String name,
      String help,
      Value v) {
    family(sb, name, "gauge", help);
    for (int i = 0; i < pools.size(); i++) sample(sb, name, labels.get(i), v.of(pools.get(i)));
  }

  private static void percentiles(
      StringBuilder sb,
      List<PoolFigures> pools,
      List<String> labels,
      String name,
      String help,
      boolean wait) {
    family(sb, name, "gauge", help);
    for (int i = 0; i < pools.size(); i++) {
      PoolFigures f = pools.get(i);
      String l = labels.get(i);
      String open = l.substring(0, l.length() - 1) + ",phi=\"";
      sample(sb, name, open + "0.5\"}", (wait ? f.waitP50Ms : f.serviceP50Ms) / 1000);
      sample(sb, name, open + "0.9\"}", (wait ? f.waitP90Ms : f.serviceP90Ms) / 1000);
      sample(sb, name, open + "0.99\"}", (wait ? f.waitP99Ms : f.serviceP99Ms) / 1000);
    }
  }

  private static void family(StringBuilder sb, String name, String type, String help) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  private static void sample(StringBuilder sb, String name, String labels, double v) {
    sb.append(name).append(labels).append(' ');
    if (Double.isNaN(v)) sb.append("NaN");
    else if (Double.isInfinite(v)) sb.append(v > 0 ? "+Inf" : "-Inf");
    else if (v == Math.rint(v) && Math.abs(v) < 1e15) sb.append((long) v);
    else sb.append(String.format(Locale.ROOT, "%.6g", v));
    sb.append('\n');
  }

  /** {@code {name="...",type="..."}} per pool; a name two pools share gets {@code #id}. */
  static List<String> labels(List<PoolFigures> pools) {
    Map<String, Integer> seen = new HashMap<>();
    for (PoolFigures f : pools) seen.merge(f.name, 1, Integer::sum);
    List<String> out = new ArrayList<>(pools.size());
    for (PoolFigures f : pools) {
      String n = seen.get(f.name) > 1 ? f.name + "#" + f.id : f.name;
      out.add("{name=\"" + escape(n) + "\",type=\"" + escape(f.kind) + "\"}");
    }
    return out;
  }

  static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}

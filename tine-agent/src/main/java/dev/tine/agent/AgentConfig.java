package dev.tine.agent;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The agent's settings, from its argument string: {@code key=value} pairs separated by commas, e.g.
 * {@code -javaagent:tine-agent.jar=window=10,prometheus=9404}. Unknown keys are an error (the agent
 * then does not start, and says why).
 *
 * @param tick how often figures are harvested and the MXBeans refreshed ({@code tick}, ms)
 * @param window the sliding window the rates and percentiles cover ({@code window}, s)
 * @param maxPools pools measured at most (each costs at most {@link #BYTES_PER_POOL} of heap); more
 *     are not measured, counted, and named by {@code tine top} ("pools not measured: cap reached")
 * @param pendingCapacity per pool, arrival times held per task for queued tasks (about 80 bytes
 *     each); beyond, a JDK FIFO queue's arrivals go to its bounded arrival curve ({@code
 *     ArrivalCurve}), other queues' tasks run untimed (still counted)
 * @param timedRate per pool, timed tasks per second above which timing is sampled (counts stay
 *     exact)
 * @param jmx whether to register the MXBeans (the {@code tine top} client reads them)
 * @param terminatedTicks ticks a terminated pool stays visible (its final figures) before it is
 *     forgotten
 * @param quiet whether to keep the one line the agent prints on standard error when it starts
 * @param prometheus where to serve Prometheus' text format ({@code host:port}; a port alone means
 *     the loopback interface, 127.0.0.1), or null for no endpoint (the default: the agent opens no
 *     port unless told to)
 */
public record AgentConfig(
    Duration tick,
    Duration window,
    int maxPools,
    int pendingCapacity,
    int timedRate,
    int terminatedTicks,
    boolean jmx,
    boolean quiet,
    String prometheus) {

  /**
   * The heap one measured pool holds at most, as the headroom check counts it: its tally, window
   * and pending arrivals (bounded), and about 300 bytes per pool thread (within this up to about
   * 600 threads); measured after a full GC in AgentHeapIT (84 KB with 2 threads, 207 KB with 64).
   */
  public static final long BYTES_PER_POOL = 256 * 1024;

  public static final AgentConfig DEFAULT =
      new AgentConfig(
          Duration.ofSeconds(1), Duration.ofSeconds(5), 64, 1024, 20_000, 60, true, false, null);

  /**
   * The heap the agent may hold at most with these settings (every pool at its bound).
   *
   * @return bytes
   */
  public long maxHeapBytes() {
    return BASE_BYTES + (long) maxPools * BYTES_PER_POOL;
  }

  /**
   * The agent's own heap besides its pools (ByteBuddy's and JMX's objects, tables): 1.9 MB measured
   * in AgentHeapIT, bounded here with room to spare.
   */
  public static final long BASE_BYTES = 4L * 1024 * 1024;

  public static AgentConfig parse(String args) {
    Map<String, String> kv = new LinkedHashMap<>();
    if (args != null && !args.isBlank()) {
      for (String part : args.split(",")) {
        String p = part.trim();
        if (p.isEmpty()) continue;
        int eq = p.indexOf('=');
        if (eq <= 0)
          throw new IllegalArgumentException("agent option '" + p + "' is not key=value");
        kv.put(p.substring(0, eq).trim().toLowerCase(Locale.ROOT), p.substring(eq + 1).trim());
      }
    }
    AgentConfig d = DEFAULT;
    Duration tick = d.tick, window = d.window;
    int maxPools = d.maxPools,
        pending = d.pendingCapacity,
        rate = d.timedRate,
        terminated = d.terminatedTicks;
    boolean jmx = d.jmx, quiet = d.quiet;
    String prometheus = d.prometheus;
    for (var e : kv.entrySet()) {
      String v = e.getValue();
      switch (e.getKey()) {
        case "tick" -> tick = Duration.ofMillis(positive(e.getKey(), v, 10));
        case "window" -> window = Duration.ofSeconds(positive(e.getKey(), v, 1));
        case "maxpools" -> maxPools = positive(e.getKey(), v, 1);
        case "pendingcapacity" -> pending = positive(e.getKey(), v, 0);
        case "timedrate" -> rate = positive(e.getKey(), v, 1);
        case "terminatedticks" -> terminated = positive(e.getKey(), v, 0);
        case "jmx" -> jmx = Boolean.parseBoolean(v);
        case "quiet" -> quiet = Boolean.parseBoolean(v);
        case "prometheus" -> prometheus = endpoint(v);
        default ->
            throw new IllegalArgumentException(
                "unknown agent option '"
                    + e.getKey()
                    + "' (known: tick, window, maxPools, pendingCapacity, timedRate, terminatedTicks, jmx, quiet, prometheus)");
      }
    }
    if (window.compareTo(tick) < 0)
      throw new IllegalArgumentException("window must be at least one tick");
    if (pending > 1024)
      throw new IllegalArgumentException(
          "agent option pendingCapacity must be at most 1024 (a pool's heap stays bounded), was "
              + pending);
    return new AgentConfig(
        tick, window, maxPools, pending, rate, terminated, jmx, quiet, prometheus);
  }

  /** {@code host:port} or {@code port} (loopback), checked; the port may be 0 (any free one). */
  static String endpoint(String v) {
    String host = "127.0.0.1", port = v;
    int colon = v.lastIndexOf(':');
    if (colon >= 0) {
      host = v.substring(0, colon);
      port = v.substring(colon + 1);
      if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
      if (host.isEmpty())
        throw new IllegalArgumentException("agent option prometheus: no host in '" + v + "'");
    }
    int p;
    try {
      p = Integer.parseInt(port);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "agent option prometheus must be host:port or port, was '" + v + "'");
    }
    if (p < 0 || p > 65535)
      throw new IllegalArgumentException("agent option prometheus: no port " + p);
    return host + ":" + p;
  }

  private static int positive(String key, String v, int min) {
    try {
      int n = Integer.parseInt(v);
      if (n < min)
        throw new IllegalArgumentException(
            "agent option " + key + " must be at least " + min + ", was " + v);
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "agent option " + key + " must be a number, was '" + v + "'");
    }
  }
}

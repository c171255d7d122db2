package dev.tine.agent.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The agent's settings, from its argument string: {@code key=value} pairs separated by commas, e.g.
 * {@code -javaagent:tine-agent.jar=window=10,maxTimedThreads=16}. Unknown keys are an error (the
 * agent then does not start, and says why).
 *
 * @param tick how often figures are harvested and the MXBeans refreshed ({@code tick}, ms)
 * @param window the sliding window the rates and percentiles cover ({@code window}, s)
 * @param maxPools pools measured at most; more are ignored (counted)
 * @param maxTimedThreads per pool, threads that get a recorder (about 1.1 MB each); the others'
 *     tasks are counted exactly but not timed
 * @param maxRecorders recorders over all pools
 * @param pendingCapacity per pool, arrival times held for queued tasks; beyond, tasks run untimed
 * @param timedRate per pool, timed tasks per second above which timing is sampled (counts stay
 *     exact)
 * @param jmx whether to register the MXBeans (the {@code tine top} client reads them)
 * @param terminatedTicks ticks a terminated pool stays visible (its final figures) before it is
 *     forgotten
 * @param quiet whether to keep the one line the agent prints on standard error when it starts
 */
public record AgentConfig(
    Duration tick,
    Duration window,
    int maxPools,
    int maxTimedThreads,
    int maxRecorders,
    int pendingCapacity,
    int timedRate,
    int terminatedTicks,
    boolean jmx,
    boolean quiet) {

  public static final AgentConfig DEFAULT =
      new AgentConfig(
          Duration.ofSeconds(1), Duration.ofSeconds(5), 64, 8, 32, 16384, 20_000, 60, true, false);

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
        maxTimed = d.maxTimedThreads,
        maxRec = d.maxRecorders,
        pending = d.pendingCapacity,
        rate = d.timedRate,
        terminated = d.terminatedTicks;
    boolean jmx = d.jmx, quiet = d.quiet;
    for (var e : kv.entrySet()) {
      String v = e.getValue();
      switch (e.getKey()) {
        case "tick" -> tick = Duration.ofMillis(positive(e.getKey(), v, 10));
        case "window" -> window = Duration.ofSeconds(positive(e.getKey(), v, 1));
        case "maxpools" -> maxPools = positive(e.getKey(), v, 1);
        case "maxtimedthreads" -> maxTimed = positive(e.getKey(), v, 0);
        case "maxrecorders" -> maxRec = positive(e.getKey(), v, 0);
        case "pendingcapacity" -> pending = positive(e.getKey(), v, 0);
        case "timedrate" -> rate = positive(e.getKey(), v, 1);
        case "terminatedticks" -> terminated = positive(e.getKey(), v, 0);
        case "jmx" -> jmx = Boolean.parseBoolean(v);
        case "quiet" -> quiet = Boolean.parseBoolean(v);
        default ->
            throw new IllegalArgumentException(
                "unknown agent option '"
                    + e.getKey()
                    + "' (known: tick, window, maxPools, maxTimedThreads, maxRecorders, pendingCapacity, timedRate, terminatedTicks, jmx, quiet)");
      }
    }
    if (window.compareTo(tick) < 0)
      throw new IllegalArgumentException("window must be at least one tick");
    return new AgentConfig(
        tick, window, maxPools, maxTimed, maxRec, pending, rate, terminated, jmx, quiet);
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

package dev.tine.bench.run;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * When and how a run was made, and how loaded the machine was around it: what a reader of saved
 * figures needs besides the {@link Machine} to judge them. The load average is the OS's one-minute
 * figure (-1 where the OS gives none), read before the first round and after the last.
 *
 * @param started when the run started (UTC)
 * @param commandLine the command as typed, e.g. {@code tine bench fib --repeat 20}
 * @param loadBefore the one-minute load average before the run, or -1
 * @param loadAfter the one-minute load average after the run (includes the run's own threads)
 * @param cores available processors
 */
public record RunConditions(
    Instant started, String commandLine, double loadBefore, double loadAfter, int cores) {

  /** The conditions now, before a run: the end's load is not known yet. */
  public static RunConditions start(String commandLine) {
    return new RunConditions(
        Instant.now(), commandLine, loadAverage(), -1, Runtime.getRuntime().availableProcessors());
  }

  /** The same, with the load after the run read now. */
  public RunConditions finish() {
    return new RunConditions(started, commandLine, loadBefore, loadAverage(), cores);
  }

  /** The OS's one-minute load average, or -1 where it has none. */
  public static double loadAverage() {
    double l = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    return l >= 0 ? l : -1;
  }

  /** "2026-11-26T11-30-02": the start as a file name (no colons). */
  public String fileStamp() {
    return DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss")
        .withZone(ZoneOffset.UTC)
        .format(started);
  }

  /** The JSON object every record carries as {@code run}. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("started", started.toString());
    m.put("command", commandLine);
    m.put("load_before", loadBefore);
    m.put("load_after", loadAfter);
    m.put("cores", cores);
    return m;
  }

  /** From a record's {@code run} object (a saved run), or null. */
  public static RunConditions fromMap(Object o) {
    if (!(o instanceof Map<?, ?> m)) return null;
    Instant at;
    try {
      at = Instant.parse(String.valueOf(m.get("started")));
    } catch (RuntimeException e) {
      return null;
    }
    return new RunConditions(
        at,
        String.valueOf(m.get("command")),
        num(m.get("load_before")),
        num(m.get("load_after")),
        (int) num(m.get("cores")));
  }

  private static double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : -1;
  }
}

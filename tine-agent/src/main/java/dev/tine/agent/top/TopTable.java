package dev.tine.agent.top;

import dev.tine.agent.state.PoolNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders what {@code tine top} read: one row per pool, and the whole JVM (Pepperdine's system
 * view).
 */
public final class TopTable {
  private TopTable() {}

  /** The JVM row's figures, from the pools' and the agent's attributes. */
  public static Map<String, Object> jvm(
      Map<String, Object> agent, List<Map<String, Object>> pools) {
    double sumL = 0;
    double cpu = 0;
    for (Map<String, Object> p : pools) {
      double l = num(p.get("LittlesL"));
      if (!Double.isNaN(l)) sumL += l;
      double c = num(p.get("CpuPercent"));
      if (c > 0) cpu += c;
    }
    int cores =
        (int) num(agent.getOrDefault("Processors", Runtime.getRuntime().availableProcessors()));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("pools", pools.size());
    m.put("processors", cores);
    m.put("sum_littles_l", sumL);
    m.put("l_per_core", cores > 0 ? sumL / cores : Double.NaN);
    m.put("pool_cpu_percent", cpu);
    m.put("process_cpu_load", num(agent.get("ProcessCpuLoad")));
    m.put("agent_failures", agent.get("Failures"));
    m.put("agent_last_failure", agent.get("LastFailure"));
    return m;
  }

  /**
   * Keeps pools the user asked about: drops the JMX/RMI machinery {@code top} itself brings unless
   * {@code all}.
   */
  public static List<Map<String, Object>> visible(List<Map<String, Object>> pools, boolean all) {
    if (all) return pools;
    List<Map<String, Object>> out = new ArrayList<>();
    for (Map<String, Object> p : pools) {
      if (PoolNames.jmxMachinery(
          String.valueOf(p.get("Name")), String.valueOf(p.get("CreatedAt")))) {
        continue;
      }
      out.add(p);
    }
    return out;
  }

  /** The attributes first in each record, in this order; the rest follow. */
  private static final List<String> ORDER =
      List.of(
          "Id",
          "Name",
          "Kind",
          "State",
          "PoolClass",
          "CreatedAt",
          "CorePoolSize",
          "MaximumPoolSize",
          "PoolSize",
          "ActiveCount",
          "QueueLength",
          "Parallelism",
          "StealCount",
          "WindowSeconds",
          "ArrivalRate",
          "RetirementRate",
          "ServiceMillis",
          "WaitMillis",
          "ResponseMillis",
          "WaitP50Millis",
          "WaitP90Millis",
          "WaitP99Millis",
          "ServiceP50Millis",
          "ServiceP90Millis",
          "ServiceP99Millis",
          "LittlesL",
          "DeadTimeRatio",
          "CpuPercent",
          "CpuPerTaskMillis",
          "RecommendedSize",
          "Recommendation",
          "Arrivals",
          "Completed",
          "Rejected",
          "Failed");

  /** One JSON-ready record per pool (snake_case keys, the main figures first). */
  public static Map<String, Object> record(Map<String, Object> p) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (String k : ORDER) if (p.containsKey(k)) m.put(snake(k), p.get(k));
    for (var e : p.entrySet()) m.putIfAbsent(snake(e.getKey()), e.getValue());
    return m;
  }

  private static String snake(String s) {
    return s.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
  }

  static double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  private static String kind(Object k) {
    return switch (String.valueOf(k)) {
      case "ThreadPoolExecutor" -> "TPE";
      case "ScheduledThreadPoolExecutor" -> "STPE";
      case "ForkJoinPool" -> "FJP";
      case "WorkStealingPool" -> "TINE";
      default -> String.valueOf(k);
    };
  }

  private static String f(double d, int decimals) {
    if (Double.isNaN(d) || d == -1) return "-";
    if (Math.abs(d) >= 10000) return String.format(Locale.ROOT, "%.0f", d);
    return String.format(Locale.ROOT, "%." + decimals + "f", d);
  }

  private static String ms(double d) {
    if (Double.isNaN(d)) return "-";
    if (d < 1) return String.format(Locale.ROOT, "%.3f", d);
    if (d < 100) return String.format(Locale.ROOT, "%.1f", d);
    return String.format(Locale.ROOT, "%.0f", d);
  }

  private static String trunc(String s, int n) {
    return s.length() <= n ? s : s.substring(0, n - 1) + "…";
  }

  /**
   * How long the agent has run in the target.
   *
   * @param agent the agent's MXBean attributes
   * @return seconds since the agent started, or NaN if unknown
   */
  public static double agentAgeSeconds(Map<String, Object> agent) {
    double started = num(agent.get("StartedAtMillis"));
    return Double.isNaN(started) ? Double.NaN : (System.currentTimeMillis() - started) / 1000.0;
  }

  /** Below this width the table drops KIND and CPU% and shows the advised size only. */
  static final int WIDE = 110;

  /**
   * The table, as top would show it, fitted to {@code width} columns (0: no limit): below {@link
   * #WIDE} columns a narrow layout that fits 80 columns.
   */
  public static String render(
      long pid, Map<String, Object> agent, List<Map<String, Object>> pools, int width) {
    return render(pid, agent, pools, width, false);
  }

  /**
   * The table; with {@code tasks}, each pool measured per request (a server's) gets a second row
   * with its pool tasks' figures.
   */
  public static String render(
      long pid,
      Map<String, Object> agent,
      List<Map<String, Object>> pools,
      int width,
      boolean tasks) {
    boolean narrow = width > 0 && width < WIDE;
    String nl = System.lineSeparator();
    StringBuilder sb = new StringBuilder();
    Map<String, Object> j = jvm(agent, pools);
    double window = num(agent.get("WindowSeconds"));
    if (Double.isNaN(window) && !pools.isEmpty()) window = num(pools.get(0).get("WindowSeconds"));
    double age = agentAgeSeconds(agent);
    String head =
        String.format(
            Locale.ROOT,
            "tine top - pid %d - %d %s - window %ss - %s %s ago - %s",
            pid,
            pools.size(),
            pools.size() == 1 ? "pool" : "pools",
            f(window, 1),
            "premain".equals(agent.get("StartedBy")) ? "-javaagent" : "attached",
            duration(age),
            java.time.LocalTime.now().withNano(0));
    sb.append(fit(head, width)).append(nl);
    String fmt =
        narrow
            ? "%-18s %11s %7s %6s %11s %5s %5s %4s %4s"
            : "%-26s %-4s %11s %9s %8s %15s %7s %6s %6s %6s  %s";
    if (narrow) {
      sb.append(
              String.format(
                  Locale.ROOT,
                  fmt,
                  "POOL",
                  "THR c/m/a",
                  "λ/s",
                  "S ms",
                  "Wq p50/p99",
                  "L",
                  "DEAD%",
                  "REJ",
                  "ADV"))
          .append(nl);
    } else {
      sb.append(
              String.format(
                  Locale.ROOT,
                  fmt,
                  "POOL",
                  "KIND",
                  "THREADS c/m/a",
                  "λ/s",
                  "S ms",
                  "Wq p50/p99 ms",
                  "L",
                  "DEAD%",
                  "REJ",
                  "CPU%",
                  "ADVICE"))
          .append(nl);
    }
    for (Map<String, Object> p : pools) {
      String threads = sizes(p);
      String wq = ms(num(p.get("WaitP50Millis"))) + "/" + ms(num(p.get("WaitP99Millis")));
      double dead = num(p.get("DeadTimeRatio"));
      int rec = (int) num(p.get("RecommendedSize"));
      String line;
      if (narrow) {
        line =
            String.format(
                Locale.ROOT,
                fmt,
                trunc(String.valueOf(p.get("Name")), 18),
                threads,
                compact(num(p.get("ArrivalRate"))),
                ms(num(p.get("ServiceMillis"))),
                wq,
                l(num(p.get("LittlesL"))),
                Double.isNaN(dead) ? "-" : f(100 * dead, 1),
                compact(num(p.get("Rejected"))),
                rec > 0 ? Integer.toString(rec) : "-");
      } else {
        String advice = (rec > 0 ? rec + ": " : "") + p.get("Recommendation");
        line =
            String.format(
                Locale.ROOT,
                fmt,
                trunc(String.valueOf(p.get("Name")), 26),
                kind(p.get("Kind")) + ("requests".equals(p.get("Unit")) ? "*" : ""),
                threads,
                f(num(p.get("ArrivalRate")), 1),
                ms(num(p.get("ServiceMillis"))),
                wq,
                f(num(p.get("LittlesL")), 2),
                Double.isNaN(dead) ? "-" : f(100 * dead, 1),
                String.valueOf(p.get("Rejected")),
                f(num(p.get("CpuPercent")), 0),
                advice);
      }
      sb.append(fit(line, width)).append(nl);
      String loops = loopRow(p);
      if (loops != null) sb.append(fit(loops, width)).append(nl);
      if (tasks && "requests".equals(p.get("Unit")))
        sb.append(fit(taskRow(p, fmt, narrow), width)).append(nl);
    }
    if (pools.stream().anyMatch(p -> "requests".equals(p.get("Unit")))) {
      sb.append(
              fit(
                  "server pools ("
                      + (narrow ? "" : "KIND ")
                      + "marked *) are shown per request:"
                      + " λ requests/s, S handling, Wq from the connection handed to the pool"
                      + (pools.stream().anyMatch(p -> loopRow(p) != null)
                          ? " (an event loop's: from its select returning)"
                          : "")
                      + (tasks ? "" : " (--tasks: their pool tasks too)"),
                  width))
          .append(nl);
    }
    if (pools.isEmpty()) {
      sb.append(
              fit(
                  "(no pool has run a task since the agent arrived; pools made before it appear at"
                      + " their next task)",
                  width))
          .append(nl);
    }
    double sumL = (double) j.get("sum_littles_l");
    int cores = (int) j.get("processors");
    double load = (double) j.get("process_cpu_load");
    String jvm =
        String.format(
            Locale.ROOT,
            "JVM: ΣL = %.2f on %d cores = %.2f per core; pool threads' CPU %s%%; process CPU %s",
            sumL,
            cores,
            cores > 0 ? sumL / cores : Double.NaN,
            f((double) j.get("pool_cpu_percent"), 0),
            load < 0 ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * load));
    sb.append(fit(jvm, width)).append(nl);
    Object refused = agent.get("RefusedPools");
    if (refused instanceof Number r && r.intValue() > 0) {
      sb.append(
              fit(
                  "pools not measured: "
                      + r
                      + " (cap reached: the agent measures at most "
                      + agent.get("MaxPools")
                      + " pools; agent option maxPools)",
                  width))
          .append(nl);
    }
    Object failures = agent.get("Failures");
    if (failures instanceof Number n && n.longValue() > 0) {
      sb.append(
              fit(
                  "agent failures (swallowed, the application went on): "
                      + n
                      + ", last: "
                      + agent.get("LastFailure"),
                  width))
          .append(nl);
    }
    return sb.toString();
  }

  /**
   * An event-loop group's loops (Netty's I/O loops): their mean split of the window, then each
   * loop's requests per second and its own split; null for other pools.
   */
  public static String loopRow(Map<String, Object> p) {
    double io = num(p.get("LoopIoShare"));
    if (Double.isNaN(io)) return null;
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                " loops: I/O %s%% tasks %s%% idle %s%%",
                f(100 * io, 0),
                f(100 * num(p.get("LoopTaskShare")), 0),
                f(100 * num(p.get("LoopIdleShare")), 0)));
    if (p.get("LoopThreads") instanceof String[] names
        && p.get("LoopRequestRates") instanceof double[] rates
        && p.get("LoopIoShares") instanceof double[] ios
        && p.get("LoopTaskShares") instanceof double[] ts
        && names.length == rates.length
        && names.length == ios.length
        && names.length == ts.length) {
      for (int i = 0; i < names.length; i++) {
        sb.append(i == 0 ? "; " : ", ")
            .append(names[i])
            .append(' ')
            .append(f(rates[i], 0))
            .append(" req/s (")
            .append(f(100 * ios[i], 0))
            .append('/')
            .append(f(100 * ts[i], 0))
            .append("%)");
      }
    }
    return sb.toString();
  }

  /** A request pool's second row: its pool tasks (mean wait in place of the median). */
  private static String taskRow(Map<String, Object> p, String fmt, boolean narrow) {
    String wq = ms(num(p.get("TaskWaitMillis"))) + "/" + ms(num(p.get("TaskWaitP99Millis")));
    double tpr = num(p.get("TasksPerRequest"));
    String name = " tasks (" + (Double.isNaN(tpr) ? "-" : f(tpr, 2)) + "/req)";
    if (narrow) {
      return String.format(
          Locale.ROOT,
          fmt,
          name,
          "",
          compact(num(p.get("TaskArrivalRate"))),
          ms(num(p.get("TaskServiceMillis"))),
          wq,
          l(num(p.get("TaskLittlesL"))),
          "",
          "",
          "");
    }
    return String.format(
        Locale.ROOT,
        fmt,
        name,
        "task",
        "",
        f(num(p.get("TaskArrivalRate")), 1),
        ms(num(p.get("TaskServiceMillis"))),
        wq,
        f(num(p.get("TaskLittlesL")), 2),
        "",
        "",
        "",
        "(Wq: mean/p99)");
  }

  private static String fit(String line, int width) {
    return width > 0 ? trunc(line, width) : line;
  }

  /** 1234 → "1234", 12345 → "12.3k", 1234567 → "1.23M". */
  static String compact(double d) {
    if (Double.isNaN(d) || d < 0) return "-";
    if (d < 10 && d != Math.rint(d)) return String.format(Locale.ROOT, "%.1f", d);
    if (d < 10_000) return String.format(Locale.ROOT, "%.0f", d);
    if (d < 1_000_000) return String.format(Locale.ROOT, "%.1fk", d / 1000);
    return String.format(Locale.ROOT, "%.2fM", d / 1e6);
  }

  private static String l(double d) {
    if (Double.isNaN(d)) return "-";
    if (d < 10) return String.format(Locale.ROOT, "%.2f", d);
    if (d < 100) return String.format(Locale.ROOT, "%.1f", d);
    return String.format(Locale.ROOT, "%.0f", d);
  }

  private static String duration(double s) {
    if (Double.isNaN(s)) return "?";
    if (s < 120) return String.format(Locale.ROOT, "%.0fs", s);
    if (s < 7200) return String.format(Locale.ROOT, "%.0fm", s / 60);
    return String.format(Locale.ROOT, "%.1fh", s / 3600);
  }

  private static String sizes(Map<String, Object> p) {
    int core = (int) num(p.get("CorePoolSize")), max = (int) num(p.get("MaximumPoolSize"));
    int active = (int) num(p.get("ActiveCount"));
    String m = max == Integer.MAX_VALUE ? "∞" : Integer.toString(max);
    return core + "/" + m + "/" + active;
  }
}

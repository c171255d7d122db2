package dev.tine.bench.experiments;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tine.bench.stats.Bootstrap;
import dev.tine.bench.stats.Ratio;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Lea's paper §4.2 (fig. 4-4): speedup depends on the heap. Lea compared generational copying with
 * mark-sweep (Fib at 4 threads: 5.1 s vs 9.1 s) and swept the semi-space size (4 MB, 64 MB, (2+2p)
 * MB). Today's equivalents: each of HotSpot's collectors (Serial, Parallel, G1, ZGC) with the young
 * generation fixed by {@code -Xmn} at 4 MB, 64 MB and (2+2p) MB (ZGC sizes its young generation
 * itself), each setting and thread count in a fresh JVM ({@link GcChild}), running fork-every fib
 * (a task per call: garbage at full speed) and Lea's fib (threshold 13: little garbage) on Tine and
 * the JDK. Speedups are over one thread in the same setting.
 */
public final class GcExperiment {
  /**
   * A collector and a young-generation size: "4", "64" (MB), "2+2p", or "auto" (the collector's
   * choice).
   */
  public record Setting(String collector, String young) {
    public List<String> flags(int p) {
      List<String> f =
          new ArrayList<>(
              List.of(
                  switch (collector) {
                    case "serial" -> "-XX:+UseSerialGC";
                    case "parallel" -> "-XX:+UseParallelGC";
                    case "g1" -> "-XX:+UseG1GC";
                    case "zgc" -> "-XX:+UseZGC";
                    default -> throw new IllegalArgumentException("unknown collector " + collector);
                  }));
      int mb = youngMb(p);
      if (mb > 0) f.add("-Xmn" + mb + "m");
      return f;
    }

    /** The young generation in MB at p threads, or -1 when the collector chooses. */
    public int youngMb(int p) {
      return switch (young) {
        case "auto" -> -1;
        case "2+2p" -> 2 + 2 * p;
        default -> Integer.parseInt(young);
      };
    }

    public String label() {
      String c =
          switch (collector) {
            case "serial" -> "Serial";
            case "parallel" -> "Parallel";
            case "g1" -> "G1";
            case "zgc" -> "ZGC";
            default -> collector;
          };
      return c
          + ", young "
          + (young.equals("auto") ? "auto" : young.equals("2+2p") ? "(2+2p) MB" : young + " MB");
    }
  }

  /** The settings for these collectors and young sizes; ZGC gets "auto" only. */
  public static List<Setting> settings(List<String> collectors, List<String> youngs) {
    List<Setting> s = new ArrayList<>();
    for (String c : collectors) {
      if (c.equals("zgc")) s.add(new Setting(c, "auto"));
      else for (String y : youngs) s.add(new Setting(c, y));
    }
    return s;
  }

  /** One (setting, threads, program, runtime) measured in a child JVM. */
  public record Result(
      Setting setting,
      int threads,
      String program,
      String runtime,
      double[] timesMs,
      double minorGcCount,
      double minorGcMs,
      double fullGcCount,
      double fullGcMs,
      boolean verified,
      String failure) {
    public double medianMs() {
      double[] a = Arrays.stream(timesMs).filter(Double::isFinite).sorted().toArray();
      if (a.length == 0) return Double.NaN;
      return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }
  }

  private final List<Setting> settings;
  private final List<Integer> threads;
  private final int everyN, leaN, warmup, repeat, heapMb;

  public GcExperiment(
      List<Setting> settings,
      List<Integer> threads,
      int everyN,
      int leaN,
      int warmup,
      int repeat,
      int heapMb) {
    this.settings = settings;
    this.threads = threads;
    this.everyN = everyN;
    this.leaN = leaN;
    this.warmup = warmup;
    this.repeat = repeat;
    this.heapMb = heapMb;
  }

  public int everyN() {
    return everyN;
  }

  public int leaN() {
    return leaN;
  }

  /** Runs every (setting, threads) in a child JVM, one after another. */
  public List<Result> run(PrintStream progress) throws IOException, InterruptedException {
    List<Result> out = new ArrayList<>();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    for (Setting s : settings) {
      for (int p : threads) {
        List<String> cmd =
            new ArrayList<>(List.of(java, "-Xms" + heapMb + "m", "-Xmx" + heapMb + "m", "-Xss8m"));
        cmd.addAll(s.flags(p));
        cmd.addAll(
            List.of(
                "-cp",
                System.getProperty("java.class.path"),
                GcChild.class.getName(),
                Integer.toString(p),
                Integer.toString(everyN),
                Integer.toString(leaN),
                Integer.toString(warmup),
                Integer.toString(repeat)));
        if (progress != null)
          progress.printf(
              Locale.ROOT, "  %s, %d %s ...%n", s.label(), p, p == 1 ? "thread" : "threads");
        out.addAll(child(cmd, s, p));
      }
    }
    return out;
  }

  private List<Result> child(List<String> cmd, Setting s, int p)
      throws IOException, InterruptedException {
    Process proc = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream()))) {
      for (String line; (line = r.readLine()) != null; ) lines.add(line);
    }
    boolean done = proc.waitFor(10, TimeUnit.MINUTES);
    List<Result> rs = new ArrayList<>();
    if (!done || proc.exitValue() != 0) {
      if (!done) proc.destroyForcibly();
      String why = !done ? "child JVM timed out" : "child JVM exited with " + proc.exitValue();
      for (String prog : List.of("fib-every", "fib")) {
        for (String rt : List.of("tine", "jdk")) {
          rs.add(new Result(s, p, prog, rt, new double[0], 0, 0, 0, 0, false, why));
        }
      }
      return rs;
    }
    ObjectMapper json = new ObjectMapper();
    for (String line : lines) {
      if (!line.startsWith("{")) continue;
      Map<String, Object> m = json.readValue(line, new TypeReference<Map<String, Object>>() {});
      double[] t =
          ((List<?>) m.get("times_ms"))
              .stream().mapToDouble(x -> ((Number) x).doubleValue()).toArray();
      rs.add(
          new Result(
              s,
              p,
              (String) m.get("program"),
              (String) m.get("runtime"),
              t,
              num(m, "minor_gc_count"),
              num(m, "minor_gc_ms"),
              num(m, "full_gc_count"),
              num(m, "full_gc_ms"),
              Boolean.TRUE.equals(m.get("verified")),
              Boolean.TRUE.equals(m.get("verified")) ? null : "wrong result"));
    }
    return rs;
  }

  private static double num(Map<String, Object> m, String k) {
    return m.get(k) instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  /** The result of the same setting, program and runtime at one thread, or null. */
  public static Result oneThread(List<Result> rs, Result r) {
    for (Result x : rs) {
      if (x.threads() == 1
          && x.setting().equals(r.setting())
          && x.program().equals(r.program())
          && x.runtime().equals(r.runtime())) {
        return x;
      }
    }
    return null;
  }

  /**
   * Time at one thread over time at r's threads (separate JVMs, so unpaired), with its interval.
   */
  public static Ratio speedup(List<Result> rs, Result r) {
    Result one = oneThread(rs, r);
    if (one == null || one.timesMs().length == 0 || r.timesMs().length == 0) return Ratio.NONE;
    return Bootstrap.unpairedRatio(one.timesMs(), r.timesMs());
  }

  public static List<Map<String, Object>> records(List<Result> rs, int everyN, int leaN) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Result r : rs) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("experiment", "gc");
      m.put("collector", r.setting().collector());
      m.put("young", r.setting().young());
      m.put("young_mb", r.setting().youngMb(r.threads()));
      m.put("program", r.program());
      m.put(
          "parameters", r.program().equals("fib") ? "n=" + leaN + ", threshold=13" : "n=" + everyN);
      m.put("runtime", r.runtime());
      m.put("threads", r.threads());
      m.put("median_ms", finite(r.medianMs()));
      m.put("times_ms", Arrays.stream(r.timesMs()).boxed().toList());
      Ratio sp = speedup(rs, r);
      m.put("speedup", finite(sp.value()));
      m.put("speedup_ci_low", finite(sp.low()));
      m.put("speedup_ci_high", finite(sp.high()));
      m.put("minor_gc_count", finite(r.minorGcCount()));
      m.put("minor_gc_ms", finite(r.minorGcMs()));
      m.put("full_gc_count", finite(r.fullGcCount()));
      m.put("full_gc_ms", finite(r.fullGcMs()));
      m.put("verified", r.verified());
      if (r.failure() != null) m.put("failure", r.failure());
      out.add(m);
    }
    return out;
  }

  static Double finite(double d) {
    return Double.isFinite(d) ? d : null;
  }
}

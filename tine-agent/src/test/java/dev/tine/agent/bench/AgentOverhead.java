package dev.tine.agent.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link AgentOverheadBench} without the agent, with it (default: timing sampled above 20,000
 * tasks/s per pool, counts exact) and with every task timed, interleaved over rounds (the box is
 * shared and drifts), and prints medians and the agent's cost per task.
 *
 * <pre>
 * java -cp tine-agent/target/test-classes:$(cat cp.txt) dev.tine.agent.bench.AgentOverhead tine-agent/target/tine-agent.jar [rounds]
 * </pre>
 */
public final class AgentOverhead {
  public static void main(String[] args) throws Exception {
    Path jar =
        Path.of(args.length > 0 ? args[0] : "tine-agent/target/tine-agent.jar").toAbsolutePath();
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    boolean jmh = args.length <= 2 || !args[2].equals("probe-only");
    Map<String, String[]> variants = new LinkedHashMap<>();
    variants.put("no agent", new String[0]);
    variants.put("agent", new String[] {"-javaagent:" + jar + "=quiet=true"});
    variants.put(
        "agent, all timed",
        new String[] {"-javaagent:" + jar + "=quiet=true,timedRate=1000000000"});
    probe(variants, Math.max(rounds, 5));
    if (!jmh) return;
    Map<String, List<Double>> scores = new LinkedHashMap<>(); // variant|micros -> ns per task
    for (int r = 0; r < rounds; r++) {
      for (var v : variants.entrySet()) {
        Options o =
            new OptionsBuilder()
                .include(AgentOverheadBench.class.getName())
                .jvmArgsAppend(v.getValue())
                .shouldDoGC(true)
                .measurementIterations(15)
                .measurementTime(org.openjdk.jmh.runner.options.TimeValue.milliseconds(300))
                .build();
        Collection<RunResult> res = new Runner(o).run();
        for (RunResult rr : res) {
          String micros = rr.getParams().getParam("taskMicros");
          // The fastest iteration: on a shared box other processes only ever add time.
          double best = Double.MAX_VALUE;
          for (var br : rr.getBenchmarkResults()) {
            for (var ir : br.getIterationResults())
              best = Math.min(best, ir.getPrimaryResult().getScore());
          }
          scores.computeIfAbsent(v.getKey() + "|" + micros, k -> new ArrayList<>()).add(best);
        }
      }
    }
    System.out.println();
    System.out.println(
        "JMH, wall time per task (fastest iteration of each run; median over rounds):");
    System.out.printf(
        Locale.ROOT,
        "%-18s %6s %14s %14s %10s %14s %10s%n",
        "variant",
        "task",
        "ns per task",
        "added ns",
        "overhead",
        "best: added",
        "overhead");
    for (String micros : List.of("1", "10")) {
      double base = median(scores.get("no agent|" + micros));
      double bestBase = min(scores.get("no agent|" + micros));
      for (String v : variants.keySet()) {
        List<Double> s = scores.get(v + "|" + micros);
        double m = median(s), b = min(s);
        System.out.printf(
            Locale.ROOT,
            "%-18s %4s µs %14.1f %14.1f %9.2f%% %14.1f %9.2f%%   rounds %s%n",
            v,
            micros,
            m,
            m - base,
            100 * (m - base) / base,
            b - bestBase,
            100 * (b - bestBase) / bestBase,
            fmt(s));
      }
    }
  }

  /**
   * CPU time per empty task, pool thread and submitter, with and without the agent, interleaved.
   */
  static void probe(Map<String, String[]> variants, int rounds) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Map<String, List<double[]>> res = new LinkedHashMap<>();
    for (int r = 0; r < rounds; r++) {
      for (var v : variants.entrySet()) {
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(List.of(v.getValue()));
        cmd.addAll(
            List.of(
                "-cp",
                System.getProperty("java.class.path"),
                CpuCostProbe.class.getName(),
                "2",
                "3"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        for (String l : out.split("\\R")) {
          if (l.startsWith("PROBE ")) {
            String[] w = l.split(" ");
            res.computeIfAbsent(v.getKey(), k -> new ArrayList<>())
                .add(new double[] {Double.parseDouble(w[2]), Double.parseDouble(w[3])});
          }
        }
      }
    }
    System.out.println();
    System.out.println(
        "CPU time per empty task (ThreadMXBean; median over " + rounds + " interleaved runs):");
    System.out.printf(
        Locale.ROOT,
        "%-18s %16s %16s %12s%n",
        "variant",
        "pool thread ns",
        "submitter ns",
        "added ns");
    double base = 0;
    for (var e : res.entrySet()) {
      List<Double> w = new ArrayList<>(), s = new ArrayList<>();
      for (double[] x : e.getValue()) {
        w.add(x[0]);
        s.add(x[1]);
      }
      double tw = median(w), ts = median(s);
      if (e.getKey().equals("no agent")) base = tw + ts;
      System.out.printf(
          Locale.ROOT,
          "%-18s %16.1f %16.1f %12.1f   pool thread %s%n",
          e.getKey(),
          tw,
          ts,
          tw + ts - base,
          fmt(w));
    }
  }

  private static double min(List<Double> xs) {
    return xs.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
  }

  private static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    s.sort(null);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  private static String fmt(List<Double> xs) {
    StringBuilder sb = new StringBuilder("[");
    for (double x : xs)
      sb.append(sb.length() > 1 ? ", " : "").append(String.format(Locale.ROOT, "%.0f", x));
    return sb.append("]").toString();
  }
}

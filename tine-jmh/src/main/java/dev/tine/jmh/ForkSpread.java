package dev.tine.jmh;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The JIT-history guard: runs JMH benchmarks in many forks (10 unless {@code -f} says otherwise)
 * and reports, besides JMH's mean, each benchmark's spread across forks: the slowest fork's score
 * over the fastest's. A join whose cost depends on how C2 happened to compile the recursion shows
 * up here as a spread, which a mean over forks hides. With {@code -Dspread.max=1.15} it exits 1
 * when a benchmark's spread exceeds that bound.
 *
 * <pre>
 * java -cp tine-jmh/target/benchmarks.jar dev.tine.jmh.ForkSpread \
 *     'ScopeBench.scope$|JoinBench.(primitiveJoinLatent|taskForkJoinLatent)$' -wi 3 -i 3 -w 1s -r 1s
 * </pre>
 *
 * Arguments are JMH's own command line. On a shared machine a fork that the scheduler starved reads
 * as slow too: compare the spread with the sequential benchmark's ({@code JoinBench.seq}) in the
 * same run before blaming the JIT.
 */
public final class ForkSpread {
  private ForkSpread() {}

  public static void main(String[] args) throws Exception {
    CommandLineOptions cmd = new CommandLineOptions(args);
    OptionsBuilder b = new OptionsBuilder();
    b.parent(cmd);
    if (!cmd.getForkCount().hasValue()) {
      b.forks(10);
    }
    Options options = b.build();
    Collection<RunResult> results = new Runner(options).run();
    double bound = Double.parseDouble(System.getProperty("spread.max", "0"));
    List<String> over = new ArrayList<>();
    System.out.println();
    System.out.printf(
        "%-60s %6s %10s %10s %10s %8s%n",
        "benchmark", "forks", "mean", "fastest", "slowest", "spread");
    for (RunResult r : results) {
      double min = Double.MAX_VALUE, max = 0, sum = 0;
      int n = 0;
      for (BenchmarkResult fork : r.getBenchmarkResults()) {
        double s = fork.getPrimaryResult().getScore();
        min = Math.min(min, s);
        max = Math.max(max, s);
        sum += s;
        n++;
      }
      String name = r.getParams().getBenchmark().replace("dev.tine.jmh.", "");
      for (String p : r.getParams().getParamsKeys()) {
        name += " " + p + "=" + r.getParams().getParam(p);
      }
      double spread = max / min;
      System.out.printf(
          "%-60s %6d %10.3f %10.3f %10.3f %8.2f%n", name, n, sum / n, min, max, spread);
      if (bound > 0 && spread > bound) {
        over.add(name);
      }
    }
    if (!over.isEmpty()) {
      System.out.println("spread above " + bound + ": " + over);
      System.exit(1);
    }
  }
}

package dev.tine.bench.experiments;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tine.WorkStealingPool;
import dev.tine.bench.programs.Fib;
import dev.tine.bench.run.GcSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;

/**
 * One JVM of the gc experiment ({@link GcExperiment} starts it with the collector and young
 * generation flags): fork-every fib and Lea's fib on Tine and the JDK at one thread count, warm-up
 * rounds, then timed rounds interleaving the four, each result verified. Prints one JSON record per
 * (program, runtime) on stdout.
 *
 * <p>Arguments: threads, fork-every n, Lea's fib n, warm-up rounds, timed rounds.
 */
public final class GcChild {
  private GcChild() {}

  record Job(String program, String runtime, Supplier<Long> run, long expect) {}

  public static void main(String[] args) throws Exception {
    int p = Integer.parseInt(args[0]),
        everyN = Integer.parseInt(args[1]),
        leaN = Integer.parseInt(args[2]);
    int warmup = Integer.parseInt(args[3]), repeat = Integer.parseInt(args[4]);
    ForkJoinPool jdk = new ForkJoinPool(p);
    try (WorkStealingPool tine =
        WorkStealingPool.builder().parallelism(p).name("gc-tine").build()) {
      long every = Fib.expected(everyN), lea = Fib.expected(leaN);
      List<Job> jobs =
          List.of(
              new Job("fib-every", "tine", () -> tine.invoke(new Fib.TineEvery(everyN)), every),
              new Job("fib-every", "jdk", () -> jdk.invoke(new Fib.JdkEvery(everyN)), every),
              new Job("fib", "tine", () -> tine.invoke(Fib.tineLea(leaN, 13)), lea),
              new Job("fib", "jdk", () -> jdk.invoke(Fib.jdkLea(leaN, 13)), lea));
      int k = jobs.size();
      double[][] ms = new double[k][repeat];
      GcSnapshot[] gc = new GcSnapshot[k];
      boolean[] ok = new boolean[k];
      java.util.Arrays.fill(ok, true);
      java.util.Arrays.fill(gc, new GcSnapshot(0, 0, 0, 0));
      for (int round = 0; round < warmup + repeat; round++) {
        for (int j = 0; j < k; j++) {
          Job job = jobs.get((j + round) % k);
          int ji = jobs.indexOf(job);
          GcSnapshot g0 = GcSnapshot.now();
          long t0 = System.nanoTime();
          long r = job.run().get();
          long dt = System.nanoTime() - t0;
          GcSnapshot dg = GcSnapshot.now().minus(g0);
          if (r != job.expect()) ok[ji] = false;
          if (round >= warmup) {
            ms[ji][round - warmup] = dt / 1e6;
            gc[ji] = gc[ji].plus(dg);
          }
        }
      }
      ObjectMapper json = new ObjectMapper();
      for (int j = 0; j < k; j++) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("program", jobs.get(j).program());
        m.put("runtime", jobs.get(j).runtime());
        m.put("threads", p);
        List<Double> times = new ArrayList<>();
        for (double t : ms[j]) times.add(t);
        m.put("times_ms", times);
        m.put("minor_gc_count", gc[j].minorCount() / (double) repeat);
        m.put("minor_gc_ms", gc[j].minorMillis() / (double) repeat);
        m.put("full_gc_count", gc[j].fullCount() / (double) repeat);
        m.put("full_gc_ms", gc[j].fullMillis() / (double) repeat);
        m.put("verified", ok[j]);
        System.out.println(json.writeValueAsString(m));
      }
    } finally {
      jdk.shutdownNow();
    }
  }
}

package dev.tine.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tine.bench.experiments.PoolSizing;
import dev.tine.bench.experiments.PoolVsThreads;
import dev.tine.executor.PoolSizeAdvisor;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code tine advise} and {@code tine experiment ...}: the measured-executor side of the CLI. */
final class ExperimentCommands {
  private ExperimentCommands() {}

  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Command(name = "advise", mixinStandardHelpOptions = true,
      description = {
        "Recommends a thread-pool size and shows the reasoning: Little's law, M/M/c (Erlang C) wait",
        "percentiles, Goetz's N = Ncpu*U*(1+W/C), and a CPU-capacity check.",
        "Give the figures (--arrival-rate and --service-ms at least), or a MeasuredExecutor snapshot",
        "saved as JSON (--snapshot, e.g. from 'tine experiment pool-sizing --snapshots DIR')."
      })
  static final class Advise implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--arrival-rate", paramLabel = "PER_SEC", description = "Arrivals per second (lambda).")
    Double arrivalRate;

    @Option(names = "--service-ms", paramLabel = "MS", description = "Mean service time per task (S).")
    Double serviceMs;

    @Option(names = "--cpu-ms", paramLabel = "MS", description = "Mean CPU time per task (C), if known; enables Goetz and the CPU check.")
    Double cpuMs;

    @Option(names = "--cores", paramLabel = "N", description = "Processors for the pool (default: this machine's).")
    int cores = java.lang.Runtime.getRuntime().availableProcessors();

    @Option(names = "--target-utilization", paramLabel = "U", description = "Per-thread (and CPU) utilization to aim for (default 0.8).")
    double targetUtilization = 0.8;

    @Option(names = "--percentile", paramLabel = "P", description = "Bound this percentile of the queueing wait (with --max-wait-ms).")
    Double percentile;

    @Option(names = "--max-wait-ms", paramLabel = "MS", description = "The bound on that percentile.")
    Double maxWaitMs;

    @Option(names = "--max-pool-size", paramLabel = "N", description = "Largest size to consider (default 10000).")
    int maxPoolSize = 10_000;

    @Option(names = "--snapshot", paramLabel = "FILE", description = "Read lambda, S, C and cores from a saved snapshot (JSON).")
    File snapshot;

    @Option(names = "--json", description = "Print the recommendation as JSON.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      CommandLine cl = spec.commandLine();
      PoolSizeAdvisor.Inputs in;
      try {
        double p = percentile == null ? Double.NaN : percentile;
        double w = maxWaitMs == null ? Double.NaN : maxWaitMs;
        if (snapshot != null) {
          @SuppressWarnings("unchecked")
          Map<String, Object> m = JSON.readValue(snapshot, Map.class);
          double completed = num(m, "completed"), secs = num(m, "seconds"), util = num(m, "cpu_utilization");
          int procs = (int) num(m, "processors");
          double svc = num(m, "avg_service_ms");
          double c = util < 0 || completed == 0 ? Double.NaN : Math.min(svc, util * secs * procs * 1000 / completed);
          in = new PoolSizeAdvisor.Inputs(arrivalRate != null ? arrivalRate : num(m, "arrival_rate"),
              serviceMs != null ? serviceMs : svc, cpuMs != null ? cpuMs : c, procs, targetUtilization, p, w, maxPoolSize);
        } else {
          if (arrivalRate == null || serviceMs == null) {
            throw new ParameterException(cl, "give --arrival-rate and --service-ms, or --snapshot FILE");
          }
          in = new PoolSizeAdvisor.Inputs(arrivalRate, serviceMs, cpuMs == null ? Double.NaN : cpuMs, cores,
              targetUtilization, p, w, maxPoolSize);
        }
        PoolSizeAdvisor.Recommendation r = PoolSizeAdvisor.advise(in);
        if (json) {
          Map<String, Object> m = new java.util.LinkedHashMap<>(r.figures());
          m.put("reasoning", r.reasoning());
          System.out.println(JSON.writeValueAsString(m));
        } else {
          System.out.println(r);
        }
        return 0;
      } catch (IllegalArgumentException e) {
        System.err.println("tine advise: " + e.getMessage());
        return 2;
      } catch (java.io.IOException e) {
        System.err.println("tine advise: cannot read snapshot " + snapshot + ": " + e.getMessage());
        return 2;
      }
    }

    private static double num(Map<String, Object> m, String key) {
      Object v = m.get(key);
      if (!(v instanceof Number n)) throw new IllegalArgumentException("snapshot has no number '" + key + "'");
      return n.doubleValue();
    }
  }

  @Command(name = "experiment", mixinStandardHelpOptions = true,
      description = "Runs one of the seeds' thread-pool experiments on this machine (loopback TCP only).",
      subcommands = {PoolVsThreadsCommand.class, PoolSizingCommand.class, ThreadingModelsCommand.class,
          ForkJoinTuningCommand.class,
          CommandLine.HelpCommand.class})
  static final class Experiment implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(spec.commandLine().getOut());
    }
  }

  @Command(name = "pool-vs-threads", mixinStandardHelpOptions = true,
      description = {
        "Seed 003: a loopback server sends N random ints 1..10; each becomes a sleep of that many ms,",
        "run sequentially, by a thread per task, by the seed's ThreadPoolExecutor, fixed and cached",
        "pools, virtual threads and Tine's MeasuredExecutor. Prints the time to submit all tasks",
        "(what the seed measured) and the time until all are done."
      })
  static final class PoolVsThreadsCommand implements Callable<Integer> {
    @Option(names = "--tasks", paramLabel = "N", description = "Tasks (default 1000, as in the seed).")
    int tasks = 1000;

    @picocli.CommandLine.Mixin JsonTarget jsonTarget = new JsonTarget();

    @Override
    public Integer call() throws Exception {
      if (tasks <= 0 || tasks > 1_000_000) {
        System.err.println("tine experiment pool-vs-threads: --tasks must be in 1..1000000, was " + tasks);
        return 2;
      }
      boolean jsonOnly = jsonTarget.toStdout();
      java.io.PrintStream out = jsonOnly ? System.err : System.out;
      out.println("seed 003: " + tasks + " tasks, each sleeping 1..10 ms (mean 5.5 ms), ints from a loopback server");
      PoolVsThreads exp = new PoolVsThreads(tasks);
      List<PoolVsThreads.Result> rs = exp.run(out);
      out.println();
      PoolVsThreads.print(rs, out);
      out.println();
      out.println("submit ms: the client's loop only — read an int, hand over the task — which is all the seed timed.");
      out.println("  A pool returns as soon as the task is queued, so its figure says nothing about when the work is done.");
      out.println("elapsed ms: until every sleep has finished. The sum of the sleeps is the sequential time; a strategy");
      out.println("  with T threads needs at least that / T, and at least the time to read the ints.");
      for (PoolVsThreads.Result r : rs) {
        if (r.strategy().startsWith("seed-tpe")) out.println(r.strategy() + ": " + r.note());
      }
      out.println("MeasuredExecutor's own figures: " + exp.measuredSummary());
      jsonTarget.write(rs.stream().map(PoolVsThreads.Result::toMap).toList());
      return 0;
    }
  }

  @Command(name = "pool-sizing", mixinStandardHelpOptions = true,
      description = {
        "Seed 004: a loopback server whose requests compute (sqrt(2) to many digits) or sleep (an",
        "external call), on a MeasuredExecutor; 1 and 10 closed-loop clients x pool sizes 1, 4, 8",
        "and self-sizing. Prints throughput, Little's L, dead-time ratio, CPU, p90 wait and the",
        "advisor's recommendation for each."
      })
  static final class PoolSizingCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "Short runs (1 s warm-up + 1 s measured, instead of 2 s + 5 s).")
    boolean quick;

    @Option(names = "--seconds", paramLabel = "S", description = "Measured seconds per run, after the warm-up (overrides --quick).")
    Double seconds;

    @Option(names = "--clients", split = ",", paramLabel = "N[,N]", description = "Client counts (default 1,10).")
    List<Integer> clients = List.of(1, 10);

    @Option(names = "--pools", split = ",", paramLabel = "SIZE[,...]", description = "Pool sizes, numbers or 'adaptive' (default 1,4,8,adaptive).")
    List<String> pools = List.of("1", "4", "8", "adaptive");

    @Option(names = "--cpu-digits", paramLabel = "D", description = "Digits of sqrt(2) per CPU request (default 10000, about 1 ms).")
    int cpuDigits = 10_000;

    @Option(names = "--sleep-ms", paramLabel = "MS", description = "Sleep per I/O request (default 5).")
    int sleepMs = 5;

    @Option(names = "--cpu-share", paramLabel = "F", description = "Fraction of requests that compute (default 0.5).")
    double cpuShare = 0.5;

    @picocli.CommandLine.Mixin JsonTarget jsonTarget = new JsonTarget();

    @Option(names = "--snapshots", paramLabel = "DIR", description = "Save each run's executor snapshot as JSON (for 'tine advise --snapshot').")
    File snapshots;

    @Override
    public Integer call() throws Exception {
      double secs = seconds != null ? seconds : quick ? 1.0 : 5.0;
      String err = null;
      if (!(secs > 0 && secs <= 3600)) err = "--seconds must be in (0, 3600]";
      String badClients = outOfRange("pool-sizing", "--clients", clients, 1, 1000);
      if (badClients != null) err = badClients.substring(badClients.indexOf(": ") + 2);
      for (String p : pools) {
        if (!p.equals("adaptive")) {
          try {
            if (Integer.parseInt(p) <= 0) err = "--pools sizes must be positive";
          } catch (NumberFormatException e) {
            err = "--pools takes numbers or 'adaptive', not '" + p + "'";
          }
        }
      }
      if (cpuDigits <= 0 || cpuDigits > 100_000 || sleepMs < 0 || !(cpuShare >= 0 && cpuShare <= 1)) {
        err = "--cpu-digits in 1..100000, --sleep-ms >= 0, --cpu-share in [0, 1]";
      }
      if (err != null) {
        System.err.println("tine experiment pool-sizing: " + err);
        return 2;
      }
      boolean jsonOnly = jsonTarget.toStdout();
      java.io.PrintStream out = jsonOnly ? System.err : System.out;
      out.printf("seed 004: requests %.0f%% compute (sqrt(2) to %d digits), %.0f%% sleep %d ms; each run %.1f s warm-up"
              + " then %.1f s measured; %d cores%n", 100 * cpuShare, cpuDigits, 100 * (1 - cpuShare), sleepMs,
          quick ? 1.0 : 2.0, secs, java.lang.Runtime.getRuntime().availableProcessors());
      Duration warm = Duration.ofMillis(quick ? 1000 : 2000);
      PoolSizing exp = new PoolSizing(warm, Duration.ofMillis((long) (secs * 1000)), cpuDigits, sleepMs, cpuShare);
      List<PoolSizing.Result> rs = exp.run(clients.stream().mapToInt(Integer::intValue).toArray(), pools, out);
      out.println();
      PoolSizing.print(rs, out);
      out.println();
      out.println("settled: seconds until the pool size stayed within 1 of its final value (self-sizing starts at 1).");
      out.println("Little L: completions/s x mean response time = requests in the server on average (queued + running).");
      out.println("dead time: share of response time spent queued (seed 004's ratio). advisor: the size PoolSizeAdvisor");
      out.println("recommends from this run's measurements for a p90 wait no longer than the mean service time.");
      for (int c : clients) {
        double bestFixed = 0, adaptive = -1;
        String best = "";
        for (PoolSizing.Result r : rs) {
          if (r.clients() != c) continue;
          if (r.poolSize().equals("adaptive")) adaptive = r.throughputRps();
          else if (r.throughputRps() > bestFixed) {
            bestFixed = r.throughputRps();
            best = r.poolSize();
          }
        }
        if (adaptive >= 0 && bestFixed > 0) {
          out.printf(java.util.Locale.ROOT, "%d client(s): self-sizing reached %.0f%% of the best fixed size's throughput (pool %s)%n",
              c, 100 * adaptive / bestFixed, best);
        }
      }
      if (snapshots != null) {
        Files.createDirectories(snapshots.toPath());
        for (PoolSizing.Result r : rs) {
          Path f = snapshots.toPath().resolve("clients-" + r.clients() + "-pool-" + r.poolSize() + ".json");
          JSON.writeValue(f.toFile(), r.snapshot().toMap());
        }
        out.println("snapshots written to " + snapshots);
      }
      List<Map<String, Object>> recs = new ArrayList<>();
      for (PoolSizing.Result r : rs) recs.add(r.toMap());
      jsonTarget.write(recs);
      return 0;
    }
  }

  @Command(name = "threading-models", mixinStandardHelpOptions = true,
      description = {
        "Seed 001 on today's JVM: platform threads (1:1) vs virtual threads (M:N), 400 and 2000 "
            + "threads each repeating equal units of CPU work, then of blocking work (1 ms sleeps): "
            + "throughput and the fairness spread (most vs least work done, read mid-run); and what "
            + "parked threads cost in memory (the default stack size)."
      })
  static final class ThreadingModelsCommand implements Callable<Integer> {
    @Option(names = "--threads", split = ",", paramLabel = "N[,N]", description = "Thread counts (default 400,2000).")
    List<Integer> threads = List.of(400, 2000);

    @Option(names = "--seconds", paramLabel = "S", description = "Seconds per run (default 2).")
    double seconds = 2;

    @picocli.CommandLine.Mixin JsonTarget jsonTarget = new JsonTarget();

    @Override
    public Integer call() throws Exception {
      String bad = outOfRange("threading-models", "--threads", threads, 1, 20_000);
      if (bad != null) {
        System.err.println(bad);
        return 2;
      }
      if (!(seconds > 0 && seconds <= 600)) {
        System.err.println("tine experiment threading-models: --seconds must be in (0, 600]");
        return 2;
      }
      java.io.PrintStream out = jsonTarget.toStdout() ? System.err : System.out;
      var exp = new dev.tine.bench.experiments.ThreadingModels();
      List<dev.tine.bench.experiments.ThreadingModels.Result> rs = new ArrayList<>();
      out.println("  warming up the JIT (2 threads of each kind) ...");
      exp.warmUp();
      for (boolean blocking : new boolean[] {false, true}) {
        for (int n : threads) {
          for (boolean virtual : new boolean[] {false, true}) {
            out.printf("  %s, %d %s threads ...%n", blocking ? "blocking" : "cpu", n, virtual ? "virtual" : "platform");
            rs.add(exp.run(virtual, blocking, n, seconds));
          }
        }
      }
      out.println();
      dev.tine.bench.experiments.ThreadingModels.print(rs, out);
      out.println();
      out.printf("%d cores. fairness spread: (most - least) / most units one thread did in the middle half of the run.%n",
          java.lang.Runtime.getRuntime().availableProcessors());
      out.println("Virtual threads are not time-sliced: with CPU work a few run to the end of the window while the");
      out.println("others wait (spread near 100%) — the starvation seed 001 saw under M:N, in its extreme form.");
      out.println("With blocking work they yield their carrier at every sleep and share it evenly.");
      out.println("Platform threads are time-sliced: the kernel runs each for a slice of a few ms in turn, so a round");
      out.println("takes about threads x slice / cores (2000 threads: ~3 s on a 2-core box). Over a middle window shorter");
      out.println("than a round some threads get no slice (spread 100%, yet every thread works over the run): widen it");
      out.println("with --seconds (the middle window is half the run).");
      int n = threads.get(threads.size() - 1);
      // Virtual first: platform threads unmap their stacks a little after join returns, which made a
      // measurement right after them read negative.
      long[] v = exp.parkedCostKb(true, n), p = exp.parkedCostKb(false, n);
      out.printf("memory for %d parked threads (process VmSize / VmRSS deltas, so approximate): platform +%d MB of"
              + " address space (%.1f MB reserved per thread: its stack, guard pages and native bookkeeping; only touched"
              + " pages become resident) and %+d MB resident; virtual %+d MB address space, %+d MB resident (their stacks"
              + " are heap objects, as big as the frames in use)%n", n, p[0] / 1024, p[0] / 1024.0 / n, p[1] / 1024,
          v[0] / 1024, v[1] / 1024);
      List<Map<String, Object>> recs = new ArrayList<>();
      for (var r : rs) recs.add(r.toMap());
      jsonTarget.write(recs);
      return 0;
    }
  }

  @Command(name = "fork-join-tuning", mixinStandardHelpOptions = true,
      description = {
        "Seed 000: fib(40) and quicksort of 2M ints, programs 1 (sequential), 2 (fork at every step)",
        "and 3 (forks throttled by an atomic counter) at multiplicity 1, 2, 4 and 8 on the JDK's",
        "ForkJoinPool, with Tine's rows beside them, in the layout of the seed's tables 2-1..2-3",
        "and 3-1..3-4 (times, GC, fork/join/steal counts, worker CPU and BLOCKED/WAITING)."
      })
  static final class ForkJoinTuningCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "fib(32) and 200,000 elements instead of fib(40) and 2,000,000.")
    boolean quick;

    @Option(names = "--threads", split = ",", paramLabel = "N[,N]", description = "Multiplicities (default 1,2,4,8).")
    List<Integer> threads = List.of(1, 2, 4, 8);

    @picocli.CommandLine.Mixin JsonTarget jsonTarget = new JsonTarget();

    @Override
    public Integer call() throws Exception {
      String bad = outOfRange("fork-join-tuning", "--threads", threads, 1, 256);
      if (bad != null) {
        System.err.println(bad);
        return 2;
      }
      java.io.PrintStream out = jsonTarget.toStdout() ? System.err : System.out;
      int fibN = quick ? 32 : 40, sortN = quick ? 200_000 : 2_000_000;
      out.printf("seed 000: fib(%d) and quicksort of %,d ints; one run per cell, as in the seed%n", fibN, sortN);
      var exp = new dev.tine.bench.experiments.ForkJoinTuning(fibN, sortN);
      int[] ms = threads.stream().mapToInt(Integer::intValue).toArray();
      var runs = exp.run(ms, out);
      dev.tine.bench.experiments.ForkJoinTuning.print(runs, ms, out);
      List<Map<String, Object>> recs = new ArrayList<>();
      for (var r : runs) recs.add(r.toMap());
      jsonTarget.write(recs);
      return runs.stream().allMatch(dev.tine.bench.experiments.ForkJoinTuning.Run::verified) ? 0 : 1;
    }
  }

  /** The experiments' {@code --json [FILE]} option. */
  static final class JsonTarget {
    @Option(names = "--json", paramLabel = "FILE", arity = "0..1", fallbackValue = "-",
        description = "Also write the records as JSON (to FILE, or stdout with no FILE).")
    String json;

    /** With {@code --json} and no file, JSON goes to stdout and the tables to stderr. */
    boolean toStdout() {
      return "-".equals(json);
    }

    void write(Object value) throws java.io.IOException {
      writeJson(json, value);
    }
  }

  /** Null if every value is in [lo, hi], else the message for exit code 2. */
  static String outOfRange(String command, String option, List<Integer> values, int lo, int hi) {
    for (int v : values) {
      if (v < lo || v > hi) {
        return "tine experiment " + command + ": " + option + " must be in " + lo + ".." + hi + ", was " + v;
      }
    }
    return null;
  }

  static void writeJson(String target, Object value) throws java.io.IOException {
    if (target == null) return;
    if (target.equals("-")) {
      System.out.println(JSON.writeValueAsString(value));
    } else {
      JSON.writeValue(new File(target), value);
    }
  }
}

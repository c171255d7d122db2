package dev.tine.bench.cli;

import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.programs.Programs;
import dev.tine.bench.report.BenchTables;
import dev.tine.bench.report.HtmlReport;
import dev.tine.bench.report.Records;
import dev.tine.bench.run.BenchResult;
import dev.tine.bench.run.BenchRunner;
import dev.tine.bench.run.CommonPool;
import dev.tine.bench.run.Threads;
import dev.tine.bench.run.Engine;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tine bench}: the benchmark suite, its tables, JSON records and HTML report. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Runs benchmark programs on sequential code, Tine and the JDK's ForkJoinPool in one JVM,",
      "with warm-up, interleaved rounds and medians, beside the box's two-thread ceiling.",
      "With no PROGRAM it runs the whole suite at the quick size.",
      "",
      "Programs: ${COMPLETION-CANDIDATES}"
    })
final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "0..*", paramLabel = "PROGRAM", completionCandidates = ProgramNames.class,
      description = "Programs to run (default: all).")
  List<String> programs = new ArrayList<>();

  @Option(names = "--runtime", split = ",", paramLabel = "seq,tine,jdk,...",
      description = {"Runtimes to compare (default: seq,tine,jdk,jdk-builtin); also tine-eager, tine-nostats.",
          "jdk-builtin: the JDK's ready-made parallel form (Arrays.parallelSort, parallel IntStream) for the",
          "programs that have one, run inside a ForkJoinPool of p workers."})
  List<String> runtimes = List.of("seq", "tine", "jdk", "jdk-builtin");

  @Option(names = "--threads", split = ",", paramLabel = "N[,N...]",
      description = "Worker counts (default: 1,2 on up to 2 cores; else 1,2,4,... up to the core count).")
  List<Integer> threads = Threads.defaults(Runtime.getRuntime().availableProcessors());

  @Option(names = "--size", paramLabel = "quick|paper",
      description = "quick: each program about a second or less sequentially; paper: the seeds' sizes (default: quick).")
  String size = "quick";

  @Option(names = "--repeat", paramLabel = "N", description = "Timed rounds (default: 5); medians are over these.")
  int repeat = 5;

  @Option(names = "--warmup", paramLabel = "N", description = "Untimed warm-up rounds first (default: 2).")
  int warmup = 2;

  @Option(names = "--set", paramLabel = "PROGRAM.KEY=VALUE",
      description = "Override a program parameter, e.g. --set fib.n=42 --set fib-every.n=40.")
  List<String> sets = new ArrayList<>();

  @Option(names = "--json", paramLabel = "FILE",
      description = "Also write one flat JSON record per (program, runtime, threads, size) to FILE (schema in the README).")
  File json;

  @Option(names = "--report", paramLabel = "FILE",
      description = "Also write a self-contained HTML report with charts (inline SVG) to FILE.")
  File report;

  @Option(names = "--tine-stats", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Record Tine's per-worker counters (default: on; --no-tine-stats measures their cost).")
  boolean tineStats = true;

  /** The checked arguments. */
  private record Plan(List<Program> programs, List<Engine> engines, Size size,
      Map<String, Map<String, String>> overrides) {}

  private Plan plan() {
    List<Program> ps = new ArrayList<>();
    if (programs.isEmpty()) {
      ps.addAll(Programs.all().values());
    } else {
      for (String name : new LinkedHashSet<>(programs)) {
        Program p = Programs.all().get(name);
        if (p == null) {
          throw Check.bad(spec, "unknown program '" + name + "' (known: " + String.join(", ", Programs.all().keySet()) + ")");
        }
        ps.add(p);
      }
    }
    List<Engine> es = new ArrayList<>();
    for (String r : runtimes) {
      try {
        es.add(Engine.parse(r));
      } catch (IllegalArgumentException e) {
        throw Check.bad(spec, e.getMessage());
      }
    }
    for (int t : threads) {
      if (t <= 0) throw Check.bad(spec, "--threads must be positive, was " + t);
    }
    if (repeat <= 0) throw Check.bad(spec, "--repeat must be positive, was " + repeat);
    if (warmup < 0) throw Check.bad(spec, "--warmup must not be negative, was " + warmup);
    Size z;
    try {
      z = Size.parse(size);
    } catch (IllegalArgumentException e) {
      throw Check.bad(spec, e.getMessage());
    }
    Map<String, Map<String, String>> overrides = new HashMap<>();
    for (String s : sets) {
      int dot = s.indexOf('.'), eq = s.indexOf('=');
      if (dot <= 0 || eq <= dot + 1) throw Check.bad(spec, "--set expects PROGRAM.KEY=VALUE, was '" + s + "'");
      String prog = s.substring(0, dot);
      if (!Programs.all().containsKey(prog)) throw Check.bad(spec, "--set names unknown program '" + prog + "'");
      overrides.computeIfAbsent(prog, k -> new HashMap<>()).put(s.substring(dot + 1, eq), s.substring(eq + 1));
    }
    for (Program p : ps) { // validate overrides before any long run starts
      try {
        p.workload(z, overrides.getOrDefault(p.name(), Map.of()));
      } catch (IllegalArgumentException e) {
        throw Check.bad(spec, p.name() + ": " + e.getMessage());
      }
    }
    return new Plan(ps, es, z, overrides);
  }

  @Override
  public Integer call() throws Exception {
    Plan plan = plan();
    BenchRunner runner = new BenchRunner(new BenchRunner.Options(plan.programs(), plan.engines(), threads,
        plan.size(), plan.overrides(), warmup, repeat, !tineStats, System.err));
    System.out.printf("tine bench: %d program(s), runtimes %s, threads %s, size %s, %d warm-up + %d timed rounds, %s%n%n",
        plan.programs().size(), runtimes, threads, plan.size().id(), warmup, repeat, Runtime.version());
    if (plan.engines().contains(Engine.JDK_BUILTIN)) {
      int want = Math.max(2, threads.stream().mapToInt(Integer::intValue).max().orElse(2));
      int common = CommonPool.request(want);
      System.out.printf("jdk-builtin: the JDK's parallel forms run inside a ForkJoinPool of p workers; they split work by"
          + " the common pool's parallelism, here %d%s%n%n", common, common < 2
          ? " — Arrays.parallelSort sorts sequentially at 1 (set -D" + CommonPool.PROPERTY + "=" + want + ")" : "");
    }
    BenchResult result = runner.run();
    BenchTables.print(result, System.out);
    if (json != null) {
      JsonOutput.JSON.writeValue(json, Records.of(result));
      System.out.println("JSON records written to " + json);
    }
    if (report != null) {
      Files.writeString(report.toPath(), HtmlReport.html(Records.of(result),
          "Tine bench, " + plan.size().id() + " size, " + Runtime.version()));
      System.out.println("HTML report written to " + report);
    }
    if (!result.allVerified()) {
      System.out.println("SOME RESULTS WERE WRONG (see FAILED above)");
      return 1;
    }
    return 0;
  }

  static final class ProgramNames extends ArrayList<String> {
    ProgramNames() {
      super(Programs.all().keySet());
    }
  }
}

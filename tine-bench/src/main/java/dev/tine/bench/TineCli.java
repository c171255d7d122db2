package dev.tine.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code tine} command line. */
@Command(
    name = "tine",
    mixinStandardHelpOptions = true,
    version = "tine 0.1.0",
    description = "Tine: a work-stealing fork/join runtime, its benchmarks and experiments.",
    subcommands = {TineCli.Bench.class, ExperimentCommands.Advise.class, ExperimentCommands.Experiment.class,
        CommandLine.HelpCommand.class})
public final class TineCli implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new TineCli());
    cl.setParameterExceptionHandler((ex, a) -> {
      CommandLine c = ex.getCommandLine();
      PrintWriter err = c.getErr();
      err.println("tine: " + ex.getMessage());
      err.println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for the options.");
      return 2;
    });
    return cl;
  }

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
  static final class Bench implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "PROGRAM", completionCandidates = ProgramNames.class,
        description = "Programs to run (default: all).")
    List<String> programs = new ArrayList<>();

    @Option(names = "--runtime", split = ",", paramLabel = "seq,tine,jdk",
        description = "Runtimes to compare (default: seq,tine,jdk).")
    List<String> runtimes = List.of("seq", "tine", "jdk");

    @Option(names = "--threads", split = ",", paramLabel = "N[,N...]",
        description = "Worker counts for tine and jdk (default: 1,2).")
    List<Integer> threads = List.of(1, 2);

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
    java.io.File json;

    @Option(names = "--report", paramLabel = "FILE",
        description = "Also write a self-contained HTML report with charts (inline SVG) to FILE.")
    java.io.File report;

    @Option(names = "--tine-stats", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Record Tine's per-worker counters (default: on; --no-tine-stats measures their cost).")
    boolean tineStats = true;

    @Override
    public Integer call() throws Exception {
      CommandLine cl = spec.commandLine();
      List<Program> ps = new ArrayList<>();
      if (programs.isEmpty()) {
        ps.addAll(Programs.all().values());
      } else {
        for (String name : new LinkedHashSet<>(programs)) {
          Program p = Programs.all().get(name);
          if (p == null) {
            throw new ParameterException(cl, "unknown program '" + name + "' (known: "
                + String.join(", ", Programs.all().keySet()) + ")");
          }
          ps.add(p);
        }
      }
      List<Runtime> rs = new ArrayList<>();
      for (String r : runtimes) {
        try {
          rs.add(Runtime.parse(r));
        } catch (IllegalArgumentException e) {
          throw new ParameterException(cl, e.getMessage());
        }
      }
      for (int t : threads) {
        if (t <= 0) throw new ParameterException(cl, "--threads must be positive, was " + t);
      }
      if (repeat <= 0) throw new ParameterException(cl, "--repeat must be positive, was " + repeat);
      if (warmup < 0) throw new ParameterException(cl, "--warmup must not be negative, was " + warmup);
      Size z;
      try {
        z = Size.parse(size);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(cl, e.getMessage());
      }
      Map<String, Map<String, String>> overrides = new HashMap<>();
      for (String s : sets) {
        int dot = s.indexOf('.'), eq = s.indexOf('=');
        if (dot <= 0 || eq <= dot + 1) {
          throw new ParameterException(cl, "--set expects PROGRAM.KEY=VALUE, was '" + s + "'");
        }
        String prog = s.substring(0, dot);
        if (!Programs.all().containsKey(prog)) {
          throw new ParameterException(cl, "--set names unknown program '" + prog + "'");
        }
        overrides.computeIfAbsent(prog, k -> new HashMap<>()).put(s.substring(dot + 1, eq), s.substring(eq + 1));
      }
      // Validate overrides before any long run starts.
      for (Program p : ps) {
        try {
          p.workload(z, overrides.getOrDefault(p.name(), Map.of()));
        } catch (IllegalArgumentException e) {
          throw new ParameterException(cl, p.name() + ": " + e.getMessage());
        }
      }
      BenchRunner runner = new BenchRunner(new BenchRunner.Options(ps, rs, threads, z, overrides, warmup,
          repeat, !tineStats, System.out, System.err));
      System.out.printf("tine bench: %d program(s), runtimes %s, threads %s, size %s, %d warm-up + %d timed rounds, %s%n%n",
          ps.size(), runtimes, threads, z.id(), warmup, repeat, java.lang.Runtime.version());
      runner.run();
      runner.printTables();
      if (json != null) {
        ExperimentCommands.JSON.writeValue(json, runner.records());
        System.out.println("JSON records written to " + json);
      }
      if (report != null) {
        java.nio.file.Files.writeString(report.toPath(), Report.html(runner.records(),
            "Tine bench, " + z.id() + " size, " + java.lang.Runtime.version()));
        System.out.println("HTML report written to " + report);
      }
      if (!runner.allVerified()) {
        System.out.println("SOME RESULTS WERE WRONG (see FAILED above)");
        return 1;
      }
      return 0;
    }
  }

  static final class ProgramNames extends ArrayList<String> {
    ProgramNames() {
      super(Programs.all().keySet());
    }
  }
}

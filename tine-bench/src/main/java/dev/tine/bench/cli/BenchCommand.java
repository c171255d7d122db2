package dev.tine.bench.cli;

import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.programs.Programs;
import dev.tine.bench.report.BenchTables;
import dev.tine.bench.report.Compare;
import dev.tine.bench.report.HtmlReport;
import dev.tine.bench.report.Records;
import dev.tine.bench.report.Steadiness;
import dev.tine.bench.run.BenchResult;
import dev.tine.bench.run.BenchRunner;
import dev.tine.bench.run.CommonPool;
import dev.tine.bench.run.Engine;
import dev.tine.bench.run.RunConditions;
import dev.tine.bench.run.Threads;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tine bench}: the benchmark suite, its tables, JSON records and HTML report. */
@Command(
    name = "bench",
    header =
        "Runs the benchmark suite, or named programs: sequential, Tine and the JDK side by side.",
    mixinStandardHelpOptions = true,
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.DONE, ExitCodes.WRONG_RESULT, ExitCodes.BAD_INPUT},
    description = {
      "Runs benchmark programs on sequential code, Tine, the JDK's ForkJoinPool and the JDK's ready-made parallel "
          + "forms in one JVM, with warm-up, interleaved rounds, medians and a 95%% interval on every ratio, beside the "
          + "box's measured n-thread ceiling. With no PROGRAM it runs the whole suite at the quick size (about a "
          + "minute on a quiet 2-core machine). Every run is saved as results/<time>.json and .html (named at the end). "
          + "A busy machine is flagged at the top of the results. Tighter intervals: more --repeat."
    })
final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(
      arity = "0..*",
      paramLabel = "PROGRAM",
      completionCandidates = ProgramNames.class,
      description =
          "Programs to run (default: the suite, every program but quicksort-scope and integrate-scope; "
              + "'all' runs every one): ${COMPLETION-CANDIDATES}.")
  List<String> programs = new ArrayList<>();

  @Option(
      names = "--runtime",
      split = ",",
      hideParamSyntax = true,
      paramLabel = "seq,tine,jdk,...",
      description =
          "Runtimes to compare (default: seq,tine,jdk,jdk-builtin); also tine-eager, tine-nostats. "
              + "jdk-builtin: the JDK's ready-made parallel form (Arrays.parallelSort, a parallel IntStream) for the "
              + "programs that have one, run inside a ForkJoinPool of p workers.")
  List<String> runtimes = List.of("seq", "tine", "jdk", "jdk-builtin");

  @Option(
      names = "--threads",
      split = ",",
      hideParamSyntax = true,
      paramLabel = "N[,N...]",
      description =
          "Worker counts (default: 1,2 on up to 2 cores; else 1,2,4,... up to the core count).")
  List<Integer> threads = Threads.defaults(Runtime.getRuntime().availableProcessors());

  @Option(
      names = "--size",
      paramLabel = "quick|paper",
      description =
          "quick: each program about a second or less sequentially; paper: the source documents' sizes (default: quick).")
  String size = "quick";

  @Option(
      names = "--repeat",
      paramLabel = "N",
      description =
          "Timed rounds (default: 10, so that the quick suite "
              + "takes about a minute). Medians and the 95%% intervals of every ratio are over these: for tighter intervals "
              + "run more rounds (the width shrinks about as 1/sqrt(N): --repeat 40 halves it), or fewer programs, e.g. "
              + "'tine bench sort --repeat 40'.")
  int repeat = 10;

  @Option(
      names = "--warmup",
      paramLabel = "N",
      description = "Untimed warm-up rounds first (default: 2).")
  int warmup = 2;

  @Option(
      names = "--set",
      paramLabel = "PROGRAM.KEY=VALUE",
      description = "Override a program parameter, e.g. --set fib.n=42 --set fib-every.n=40.")
  List<String> sets = new ArrayList<>();

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description =
          "Write one flat JSON record per (program, runtime, threads, size) to FILE (schema in the README)"
              + " instead of results/<time>.json.")
  File json;

  @Option(
      names = "--report",
      paramLabel = "FILE",
      description =
          "Write the self-contained HTML report (inline SVG) to FILE instead of results/<time>.html.")
  File report;

  @Option(
      names = "--results",
      paramLabel = "DIR",
      description =
          "Where every run is saved unless --json/--report name files (default: results; created if"
              + " missing): <time>.json and <time>.html, the start time in UTC.")
  File results = new File("results");

  @Option(
      names = "--save",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Save the run's JSON and HTML (default: on; --no-save keeps only the console output).")
  boolean save = true;

  @Option(
      names = "--include",
      paramLabel = "EXPERIMENT.json",
      split = ",",
      hideParamSyntax = true,
      description =
          "With --report: add the sections of saved experiment runs (tine experiment gc|data-width --json FILE).")
  List<File> include = List.of();

  @Option(
      names = "--compare",
      paramLabel = "BASE.json",
      description =
          "After the run, compare each cell with a saved run (--json FILE of an earlier run): change and interval.")
  File compare;

  @Option(
      names = "--min-change",
      paramLabel = "PERCENT",
      description = "With --compare: smallest change to flag, in percent (default: 5).")
  double minChangePct = 5;

  @Option(
      names = "--tine-stats",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Record Tine's per-worker counters (default: on; --no-tine-stats measures their cost).")
  boolean tineStats = true;

  /** The checked arguments. */
  private record Plan(
      List<Program> programs,
      List<Engine> engines,
      Size size,
      Map<String, Map<String, String>> overrides) {}

  private Plan plan() {
    List<Program> ps = new ArrayList<>();
    if (programs.isEmpty()) {
      ps.addAll(Programs.suite());
    } else if (programs.equals(List.of("all"))) {
      ps.addAll(Programs.all().values());
    } else {
      for (String name : new LinkedHashSet<>(programs)) {
        Program p = Programs.all().get(name);
        if (p == null) {
          throw Check.bad(
              spec,
              "unknown program '"
                  + name
                  + "' (known: "
                  + String.join(", ", Programs.all().keySet())
                  + ")");
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
      if (dot <= 0 || eq <= dot + 1)
        throw Check.bad(spec, "--set expects PROGRAM.KEY=VALUE, was '" + s + "'");
      String prog = s.substring(0, dot);
      if (!Programs.all().containsKey(prog))
        throw Check.bad(spec, "--set names unknown program '" + prog + "'");
      overrides
          .computeIfAbsent(prog, k -> new HashMap<>())
          .put(s.substring(dot + 1, eq), s.substring(eq + 1));
    }
    // Check every --set before any long run starts: the value (by building the workload once) and
    // the key (a key the program never asks for would be silently ignored).
    for (Map.Entry<String, Map<String, String>> e : overrides.entrySet()) {
      Program p = Programs.all().get(e.getKey());
      AskedKeys asked = new AskedKeys(e.getValue());
      try {
        p.workload(z, asked);
      } catch (IllegalArgumentException ex) {
        throw Check.bad(spec, p.name() + ": " + ex.getMessage());
      }
      for (String key : e.getValue().keySet()) {
        if (!asked.asked.contains(key)) {
          throw Check.bad(
              spec,
              "--set "
                  + p.name()
                  + "."
                  + key
                  + ": "
                  + p.name()
                  + " has no parameter '"
                  + key
                  + "' ("
                  + (asked.asked.isEmpty()
                      ? "it takes none"
                      : "its parameters: " + String.join(", ", asked.asked))
                  + ")");
        }
      }
    }
    return new Plan(ps, es, z, overrides);
  }

  @Override
  public Integer call() throws Exception {
    double minChange = CompareCommand.minChange(spec, minChangePct);
    List<Map<String, Object>> base = compare == null ? null : CompareCommand.read(spec, compare);
    List<String> sections = ExperimentSections.read(spec, include);
    Plan plan = plan();
    RunConditions conditions = RunConditions.start(commandLine());
    File jsonOut = json, reportOut = report;
    if (save && (json == null || report == null)) {
      OutputPaths.directory(spec, "--results", results);
      String stamp = conditions.fileStamp();
      if (jsonOut == null) jsonOut = new File(results, stamp + ".json");
      if (reportOut == null) reportOut = new File(results, stamp + ".html");
    }
    OutputPaths.file(spec, "--json", jsonOut);
    OutputPaths.file(spec, "--report", reportOut);
    BenchRunner runner =
        new BenchRunner(
            new BenchRunner.Options(
                plan.programs(),
                plan.engines(),
                threads,
                plan.size(),
                plan.overrides(),
                warmup,
                repeat,
                !tineStats,
                System.err));
    int n = plan.programs().size();
    System.out.printf(
        Locale.ROOT,
        "tine bench: %d %s, runtimes %s, threads %s, size %s, %d warm-up + %d timed rounds, %s%n",
        n,
        n == 1 ? "program" : "programs",
        String.join(",", runtimes),
        threads.stream().map(String::valueOf).collect(Collectors.joining(",")),
        plan.size().id(),
        warmup,
        repeat,
        Runtime.version());
    if (conditions.loadBefore() > Steadiness.BUSY_LOAD_PER_CORE * conditions.cores()) {
      System.out.printf(
          Locale.ROOT,
          "note: the load average is %.1f on %d cores: other processes are using the CPUs, so p>1"
              + " figures will wander (the results will say how much)%n",
          conditions.loadBefore(),
          conditions.cores());
    }
    System.out.println();
    if (plan.engines().contains(Engine.JDK_BUILTIN)) {
      int want = Math.max(2, threads.stream().mapToInt(Integer::intValue).max().orElse(2));
      int common = CommonPool.request(want);
      System.out.printf(
          "jdk-builtin: the JDK's parallel forms run inside a ForkJoinPool of p workers; they split work by"
              + " the common pool's parallelism, here %d%s%n%n",
          common,
          common < 2
              ? " — Arrays.parallelSort sorts sequentially at 1 (set -D"
                  + CommonPool.PROPERTY
                  + "="
                  + want
                  + ")"
              : "");
    }
    BenchResult result = runner.run();
    List<Map<String, Object>> records = Records.of(result, conditions.finish());
    Steadiness steadiness = Steadiness.of(records);
    BenchTables.print(result, steadiness, System.out);
    if (jsonOut != null) {
      JsonOutput.JSON.writeValue(jsonOut, records);
    }
    if (reportOut != null) {
      Files.writeString(
          reportOut.toPath(),
          HtmlReport.html(
              records,
              "Tine bench, " + plan.size().id() + " size, " + Runtime.version(),
              result.machine(),
              sections));
    }
    if (jsonOut != null) System.out.println("JSON records: " + jsonOut);
    if (reportOut != null) System.out.println("HTML report:  " + reportOut);
    if (jsonOut != null && base == null)
      System.out.println("compare a later run with it: ./tine bench --compare " + jsonOut);
    if (base != null) {
      System.out.println();
      Compare.print(
          Compare.compare(base, records, minChange), compare.getName(), minChange, System.out);
    }
    if (steadiness.busy()) {
      System.out.println();
      System.out.println(
          "(busy machine: see the warning at the top of the results for what still holds)");
    }
    if (!result.allVerified()) {
      System.out.println("SOME RESULTS WERE WRONG (see FAILED above)");
      return 1;
    }
    return 0;
  }

  /** "tine bench fib --repeat 20": the command as typed, for the saved run. */
  private String commandLine() {
    List<String> words = new ArrayList<>(List.of("tine"));
    if (spec.commandLine().getParseResult() != null)
      words.addAll(spec.commandLine().getParseResult().originalArgs());
    else words.add("bench");
    return String.join(" ", words);
  }

  /** The overrides, remembering which keys a program's workload asked for: its parameters. */
  private static final class AskedKeys extends java.util.AbstractMap<String, String> {
    final Map<String, String> values;
    final java.util.Set<String> asked = new java.util.TreeSet<>();

    AskedKeys(Map<String, String> values) {
      this.values = values;
    }

    @Override
    public String get(Object key) {
      asked.add(String.valueOf(key));
      return values.get(key);
    }

    @Override
    public String getOrDefault(Object key, String dflt) {
      asked.add(String.valueOf(key));
      return values.getOrDefault(key, dflt);
    }

    @Override
    public boolean containsKey(Object key) {
      asked.add(String.valueOf(key));
      return values.containsKey(key);
    }

    @Override
    public java.util.Set<Entry<String, String>> entrySet() {
      return values.entrySet();
    }
  }

  static final class ProgramNames extends ArrayList<String> {
    ProgramNames() {
      super(Programs.all().keySet());
    }
  }
}

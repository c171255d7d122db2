package dev.tine.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import dev.tine.bench.programs.Programs;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The runner at toy sizes: jdk-builtin rows where the JDK has a form, verified like every other
 * row.
 */
@Timeout(120)
class BenchRunnerTest {
  /** Every program at a toy size. */
  public static final Map<String, Map<String, String>> TOY =
      Map.ofEntries(
          Map.entry("fib", Map.of("n", "20")),
          Map.entry("fib-every", Map.of("n", "16")),
          Map.entry("fib-join", Map.of("n", "16")),
          Map.entry("quicksort", Map.of("n", "50000")),
          Map.entry("integrate", Map.of("tolerance", "10")),
          Map.entry("mm", Map.of("n", "128")),
          Map.entry("jacobi", Map.of("n", "64", "steps", "4")),
          Map.entry("jacobi-sync10", Map.of("n", "64", "steps", "4")),
          Map.entry("sort", Map.of("n", "100000")),
          Map.entry("lu", Map.of("n", "64")),
          Map.entry("micro", Map.of("plies", "2")),
          Map.entry("fib-scope", Map.of("n", "16")),
          Map.entry("quicksort-scope", Map.of("n", "50000")),
          Map.entry("integrate-scope", Map.of("tolerance", "10")),
          Map.entry("uts-geo", Map.of("depth", "5")),
          Map.entry("uts-bin", Map.of("b0", "50")));

  static BenchResult run(List<Program> ps, List<Engine> es, List<Integer> threads, int repeat)
      throws Exception {
    return new BenchRunner(
            new BenchRunner.Options(ps, es, threads, Size.QUICK, TOY, 1, repeat, false, null))
        .run();
  }

  @Test
  void jdkBuiltinRowsExistWhereTheJdkHasAFormAndAreVerified() throws Exception {
    CommonPool.request(2);
    BenchResult r =
        run(
            List.copyOf(Programs.all().values()),
            List.of(Engine.SEQ, Engine.TINE, Engine.JDK, Engine.JDK_BUILTIN),
            List.of(1, 2),
            2);
    Set<String> withBuiltin =
        r.cells().stream()
            .filter(c -> c.engine == Engine.JDK_BUILTIN)
            .map(c -> c.program.name())
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(Set.of("quicksort", "sort", "mm", "jacobi", "micro"), withBuiltin);
    for (Cell c : r.cells()) {
      assertTrue(c.verified(), c.label() + " " + c.program.name() + ": " + c.failure());
      assertEquals(2, c.runs(), c.label());
    }
    for (Cell c : r.cells()) {
      if (c.engine != Engine.TINE || r.builtinTwin(c) == null) continue;
      assertTrue(r.vsBuiltin(c).known(), "tine vs jdk-builtin for " + c.program.name());
      assertTrue(r.vsJdk(r.builtinTwin(c)).known(), "jdk-builtin vs jdk for " + c.program.name());
    }
  }

  /**
   * The headline compares like with like: fib-join and fib-scope divide by the JDK's fib-every
   * program, so they get their own lines and stay out of the geometric mean (which counted the one
   * JDK program three times) and the verdict; the verdict judges every thread count.
   */
  @Test
  void theHeadlineCountsOnlyProgramsWrittenTheSameWay() throws Exception {
    List<Program> ps =
        List.of("fib", "fib-every", "fib-join", "fib-scope").stream()
            .map(n -> Programs.all().get(n))
            .toList();
    BenchResult r = run(ps, List.of(Engine.SEQ, Engine.TINE, Engine.JDK), List.of(1, 2), 3);
    assertTrue(r.allVerified());
    for (int p : List.of(1, 2))
      assertEquals(2, r.geometricMeansVsJdk().get("tine p=" + p).programs(), "fib and fib-every");
    java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
    dev.tine.bench.report.BenchTables.print(r, new java.io.PrintStream(o, true));
    String out = o.toString();
    assertTrue(
        out.contains("tine p=1 vs jdk, geometric mean over 2 programs written the same way"), out);
    assertTrue(
        out.contains("tine p=2 vs jdk, geometric mean over 2 programs written the same way"), out);
    for (String form : List.of("fib-join", "fib-scope"))
      for (int p : List.of(1, 2))
        assertTrue(
            out.contains("  " + form + " p=" + p + ": x seq ")
                && out.lines()
                    .anyMatch(l ->
                        l.startsWith("  " + form + " p=" + p + ": x seq ")
                            && l.contains("vs the JDK's fib-every program (a rewrite")),
            form + " p=" + p + " on its own line: " + out);
    List<String> verdict =
        out.lines()
            .dropWhile(l -> !l.startsWith("verdict at every thread count"))
            .skip(1)
            .takeWhile(l -> l.startsWith("  p="))
            .toList();
    assertEquals(2, verdict.size(), "a verdict at p=1 and at p=2: " + out);
    assertTrue(verdict.get(0).startsWith("  p=1: ") && verdict.get(1).startsWith("  p=2: "), out);
    for (String l : verdict)
      assertFalse(l.contains("fib-join") || l.contains("fib-scope"), "no rewrite judged: " + l);
    // the counters count what the forms do: the Task form forks at every call of the same call
    // tree; the primitive joins record (fork) only their outermost levels, fewer, and at p=1 every
    // recorded one is taken back by its join
    for (int p : List.of(1, 2)) {
      TineCounters every = r.find(Programs.all().get("fib-every"), Engine.TINE, p).counters();
      assertTrue(every.forks() > 0, every.toString());
      for (String form : List.of("fib-join", "fib-scope")) {
        Cell c = r.find(Programs.all().get(form), Engine.TINE, p);
        String what = form + " p=" + p + ": " + c.counters() + " against fib-every's " + every;
        assertTrue(c.counters().forks() > 0 && c.counters().forks() <= every.forks(), what);
        assertTrue(c.counters().joins() > 0, what);
        if (p == 1) {
          assertTrue(c.counters().forks() < every.forks(), "deep joins are not recorded: " + what);
          assertEquals(
              c.counters().forks(), c.counters().joins(), "all taken back at p=1: " + what);
        }
      }
    }
    var records = dev.tine.bench.report.Records.of(r);
    for (var m : records)
      assertEquals(
          Set.of("fib-join", "fib-scope").contains(m.get("program")) ? "fib-every" : null,
          m.get("rewrite_of"),
          m.toString());
  }

  @Test
  void cilksortWithJdkLeavesIsVerifiedToo() throws Exception {
    var sort = Programs.all().get("sort");
    BenchResult r =
        new BenchRunner(
                new BenchRunner.Options(
                    List.of(sort),
                    List.of(Engine.SEQ, Engine.TINE, Engine.JDK),
                    List.of(2),
                    Size.QUICK,
                    Map.of("sort", Map.of("n", "100000", "leaf", "jdk")),
                    0,
                    1,
                    false,
                    null))
            .run();
    assertTrue(r.allVerified());
    assertTrue(r.cells().get(0).workload.parameters().contains("by Arrays.sort"));
  }

  /**
   * A program whose built-in form records where its parallel stream ran, and can return a wrong
   * answer.
   */
  static final class Probe implements Program {
    final Set<String> pools = ConcurrentHashMap.newKeySet();
    volatile boolean lie;

    @Override
    public String name() {
      return "probe";
    }

    @Override
    public String description() {
      return "test probe";
    }

    @Override
    public Workload workload(Size size, Map<String, String> overrides) {
      return new Workload() {
        @Override
        public String parameters() {
          return "";
        }

        @Override
        public Object sequential() {
          return 4950L;
        }

        @Override
        public Object tine(WorkStealingPool pool) {
          return 4950L;
        }

        @Override
        public Object jdk(ForkJoinPool pool) {
          return 4950L;
        }

        @Override
        public String jdkBuiltinForm() {
          return "LongStream.sum";
        }

        @Override
        public Object jdkBuiltin() {
          long s =
              IntStream.range(0, 100)
                  .parallel()
                  .mapToLong(i -> {
                    Thread t = Thread.currentThread();
                    pools.add(
                        t instanceof ForkJoinWorkerThread w
                                && w.getPool() != ForkJoinPool.commonPool()
                            ? "pool of " + w.getPool().getParallelism()
                            : "elsewhere: " + t.getName());
                    return i;
                  })
                  .sum();
          return lie ? s + 1 : s;
        }

        @Override
        public boolean verify(Object result) {
          return Long.valueOf(4950L).equals(result);
        }
      };
    }
  }

  @Test
  void builtinRunsInsideThePoolOfPWorkers() throws Exception {
    Probe p = new Probe();
    BenchResult r = run(List.of(p), List.of(Engine.JDK_BUILTIN), List.of(2), 3);
    assertTrue(r.allVerified());
    assertEquals(
        Set.of("pool of 2"), p.pools, "every piece of the stream ran on the bench's 2-worker pool");
  }

  @Test
  void aWrongBuiltinResultIsCaught() throws Exception {
    Probe p = new Probe();
    p.lie = true;
    BenchResult r = run(List.of(p), List.of(Engine.SEQ, Engine.JDK_BUILTIN), List.of(1), 1);
    Cell b = r.find(p, Engine.JDK_BUILTIN, 1);
    assertNotNull(b);
    assertFalse(b.verified());
    assertTrue(b.failure().contains("wrong result: 4951"), b.failure());
    assertTrue(r.seqTwin(b).verified());
  }
}

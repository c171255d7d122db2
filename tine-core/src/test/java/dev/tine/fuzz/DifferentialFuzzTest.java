package dev.tine.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tine.fuzz.Comparison.Difference;
import dev.tine.fuzz.Fuzzer.Verdict;
import dev.tine.fuzz.Program.Catch;
import dev.tine.fuzz.Program.Const;
import dev.tine.fuzz.Program.Consumer;
import dev.tine.fuzz.Program.Fail;
import dev.tine.fuzz.Program.FailKind;
import dev.tine.fuzz.Program.ForkJoin;
import dev.tine.fuzz.Program.ForkThenWait;
import dev.tine.fuzz.Program.InterruptedGet;
import dev.tine.fuzz.Program.JoinForm;
import dev.tine.fuzz.Program.JoinTop;
import dev.tine.fuzz.Program.Nested;
import dev.tine.fuzz.Program.ObserveLocal;
import dev.tine.fuzz.Program.Range;
import dev.tine.fuzz.Program.RangeForm;
import dev.tine.fuzz.Program.Rendezvous;
import dev.tine.fuzz.Program.SelfInterrupt;
import dev.tine.fuzz.Program.Seq;
import dev.tine.fuzz.Program.Spawn;
import dev.tine.fuzz.Program.WaitForm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The differential fuzzer against ForkJoinPool: random programs ({@link Generator}) run on both
 * runtimes at p = 1, 2, 4 ({@link Fuzzer}); every difference the README's porting table does not
 * document fails, with the shrunk program printed as Java and its seed.
 *
 * <p>Quick mode (here, in {@code ./mvnw verify}) runs a fixed number of programs from a fixed seed,
 * {@code -Dtine.fuzz.programs=N -Dtine.fuzz.seed=S} to change them. Long mode runs with {@code
 * ./mvnw -pl tine-core verify -Pfuzz-long [-Dtine.fuzz.programs=N]} and reports programs per p and
 * the differences found. The regression programs below reproduce the failures found by hand and by
 * the fuzzer; each stays as a test.
 */
class DifferentialFuzzTest {
  /** Far above any good run (milliseconds); a run past it is wedged. */
  private static final Duration DEADLINE = Duration.ofSeconds(10);

  private static final int QUICK_PROGRAMS = Integer.getInteger("tine.fuzz.programs", 80);
  private static final long QUICK_SEED = Long.getLong("tine.fuzz.seed", 20261126L);

  private static Fuzzer fuzzer() {
    return new Fuzzer(DocumentedDifferences.fromReadme(), DEADLINE);
  }

  /** Known failures, as programs: each must run as on the JDK. */
  static Stream<Arguments> regressions() {
    return Stream.of(
        // Fork, then wait where the pool cannot see it (CompletableFuture, a queue), every worker.
        named(
            "fork-then-wait on every worker",
            new Program(
                1L,
                List.of(
                    new Spawn(0, new ForkThenWait(WaitForm.CF_JOIN, new Spawn(1, new Const(1)))),
                    new Spawn(2, new ForkThenWait(WaitForm.CF_GET, new Spawn(3, new Const(2)))),
                    new Spawn(
                        4, new ForkThenWait(WaitForm.QUEUE_TAKE, new Spawn(5, new Const(3))))))),
        // T joins X, Y joins T, submitted T, Y, X: the JDK gives T=2, Y=102.
        named(
            "join of a submission, unrelated submission queued",
            new Program(
                2L,
                List.of(
                    new Spawn(0, new Seq(List.of(new JoinTop(2, false), new Const(1)))),
                    new Spawn(1, new Seq(List.of(new JoinTop(0, false), new Const(100)))),
                    new Spawn(2, new Const(1))))),
        // Future.get on a worker, interrupted while waiting: InterruptedException.
        named(
            "get interrupted while waiting",
            new Program(
                4L,
                List.of(
                    new Spawn(0, new InterruptedGet(1, false)),
                    new Spawn(2, new InterruptedGet(3, true))))),
        // Ranges that end at the int bounds.
        named(
            "ranges at the int bounds",
            new Program(
                5L,
                List.of(
                    new Spawn(
                        0,
                        new Seq(
                            List.of(
                                range(1, RangeForm.FOR_RANGE, Integer.MAX_VALUE - 100),
                                range(2, RangeForm.REDUCE_LONG, Integer.MAX_VALUE - 100),
                                range(3, RangeForm.REDUCE_DOUBLE, Integer.MAX_VALUE - 100),
                                new Range(
                                    4,
                                    RangeForm.FOR_RANGE,
                                    Integer.MIN_VALUE,
                                    Integer.MIN_VALUE + 100,
                                    false,
                                    0))))))),
        // A sneaky checked exception from a join's second half: one rule, inline or stolen.
        named(
            "sneaky checked exception from a join half",
            new Program(
                7L,
                List.of(
                    new Spawn(
                        0,
                        new Seq(
                            List.of(
                                new Catch(1, half(JoinForm.SCOPE_JOIN, 2)),
                                new Catch(5, half(JoinForm.TINE_JOIN, 6)),
                                new Catch(9, half(JoinForm.FORK_JOIN, 10)),
                                new Catch(13, half(JoinForm.INVOKE_ALL, 14)))))))),
        // 300 tasks in managedBlock at once: the JDK adds a thread for each.
        named(
            "300 managed blockers", new Program(8L, List.of(new Spawn(0, new Rendezvous(300)))), 1),
        // Found by the fuzzer (seed 20261179) once the stall watch existed: fork and wait in
        // cf.join (a spare runs the child), then fork and wait in a queue: at p=1 the second child
        // sometimes never ran.
        named(
            "fork-then-wait twice in a row",
            new Program(
                20261179L,
                List.of(
                    new Spawn(
                        0,
                        new Seq(
                            List.of(
                                new ForkThenWait(WaitForm.CF_JOIN, new Spawn(3, new Const(29))),
                                new ForkThenWait(
                                    WaitForm.QUEUE_TAKE, new Spawn(7, new Const(9)))))))),
            15),
        // Found by the fuzzer (seed 777113, shrunk): a checked exception thrown sneakily by a task
        // given to pool.invoke. The JDK's ForkJoinPool.invoke wraps it in a RuntimeException.
        named(
            "sneaky checked exception through pool.invoke",
            new Program(
                777113L,
                List.of(
                    new Spawn(0, new Nested(1, new Spawn(1, new JoinTop(1, true)))),
                    new Spawn(12, new Fail(26, FailKind.CHECKED))))),
        // Interrupt consumed by blocking calls of each kind, then the next call must not see it.
        named(
            "self-interrupt consumed",
            new Program(
                9L,
                List.of(
                    new Spawn(
                        0,
                        new Seq(
                            List.of(
                                new SelfInterrupt(1, Consumer.TASK_GET),
                                new SelfInterrupt(2, Consumer.TASK_GET_TIMED),
                                new SelfInterrupt(3, Consumer.MANAGED_BLOCK),
                                new SelfInterrupt(4, Consumer.CF_GET))))))));
  }

  private static Arguments named(String name, Program p) {
    return named(name, p, 3);
  }

  /** A regression program, run up to {@code repeats} times: some failures need the right timing. */
  private static Arguments named(String name, Program p, int repeats) {
    return Arguments.of(name, p, repeats);
  }

  private static Range range(int id, RangeForm form, int from) {
    return new Range(id, form, from, Integer.MAX_VALUE, false, 0);
  }

  /** A join whose right half (slow enough to be stolen at p >= 2) throws a checked exception. */
  private static ForkJoin half(JoinForm form, int id) {
    return new ForkJoin(
        form,
        new Spawn(id, new Range(id + 1, RangeForm.REDUCE_LONG, 0, 50_000, false, 0)),
        new Spawn(id + 2, new Fail(id + 3, FailKind.CHECKED)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("regressions")
  void regressionRunsAsOnTheJdk(String name, Program program, int repeats) {
    Fuzzer fuzzer = fuzzer();
    for (int i = 0; i < repeats; i++) {
      Verdict v = fuzzer.check(program);
      assertTrue(!v.invalid(), () -> name + ": the JDK must complete it: " + v.jdk());
      if (v.fails()) {
        fail(name + " (run " + (i + 1) + " of " + repeats + ")\n" + Fuzzer.report(v));
      }
    }
  }

  /**
   * T joins the submission X while the unrelated submission Y is queued; T then reads the
   * thread-local every task sets. The JDK's join takes from a submission queue only the task it
   * waits for (its helpJoin's steal chain never passes through an external queue), so no task of
   * this program can run inside another's frame or see its thread-local; on Tine, neither may.
   */
  @Test
  void aJoinOfASubmissionRunsNoUnrelatedSubmission() {
    Program program =
        new Program(
            3L,
            List.of(
                new Spawn(0, new Seq(List.of(new JoinTop(2, false), new ObserveLocal(10)))),
                new Spawn(1, new Seq(List.of(new ObserveLocal(11), new Const(100)))),
                new Spawn(2, new Seq(List.of(new Const(1), new ObserveLocal(12))))));
    Verdict v = fuzzer().check(program);
    assertTrue(!v.invalid(), () -> "the JDK must complete it: " + v.jdk());
    List<String> unrelated = new ArrayList<>();
    for (Map<Integer, Outcome> runs : List.of(v.jdk(), v.tine())) {
      for (Outcome o : runs.values()) {
        if (o.unrelatedFrames.get() + o.unrelatedLocals.get() > 0 || o.wedged) {
          unrelated.add(o.toString());
        }
      }
    }
    assertEquals(List.of(), unrelated);
    if (v.fails()) {
      fail(Fuzzer.report(v));
    }
  }

  @Test
  @DisabledIfSystemProperty(named = "tine.fuzz.long", matches = "true")
  void quickModeFindsNoUnexplainedDifference() {
    Summary s = fuzz(QUICK_SEED, QUICK_PROGRAMS, 5, 1, 40);
    System.out.println(s);
    if (!s.failures.isEmpty()) {
      fail(s.failureReport());
    }
  }

  @Test
  @EnabledIfSystemProperty(named = "tine.fuzz.long", matches = "true")
  void longMode() {
    long seed = Long.getLong("tine.fuzz.seed", System.nanoTime());
    int programs = Integer.getInteger("tine.fuzz.programs", 3000);
    Summary s = fuzz(seed, programs, 50, 3, 60);
    System.out.println(s);
    if (!s.failures.isEmpty()) {
      fail(s.failureReport());
    }
  }

  /**
   * The fuzzer against itself: ForkJoinPool compared with ForkJoinPool must show no difference
   * except the JDK's own choice of copying an exception or not. Anything else would be noise in the
   * grammar (an observation that depends on scheduling), which would make Tine's results
   * meaningless.
   */
  @Test
  @DisabledIfSystemProperty(named = "tine.fuzz.long", matches = "true")
  void theJdkAgainstItselfShowsNoDifference() {
    Fuzzer self = new Fuzzer(DocumentedDifferences.fromReadme(), DEADLINE, JdkInterpreter::new);
    List<String> noise = new ArrayList<>();
    int programs = Integer.getInteger("tine.fuzz.selfPrograms", 50);
    for (int i = 0; i < programs; i++) {
      Verdict v = self.check(Generator.generate(QUICK_SEED + 1_000_000 + i));
      for (Difference d : v.result().differences()) {
        if (d.kind() != Comparison.Kind.IDENTITY) {
          noise.add("seed " + v.program().seed() + ": " + d);
        }
      }
    }
    assertEquals(List.of(), noise);
  }

  /**
   * The floor: a run where most programs wedge the JDK (an invalid grammar), or where no program
   * had the concurrency bounds checked, fails instead of passing with nothing tested.
   */
  @Test
  void aGrammarTheJdkRejectsFailsTheFloor() {
    Concurrency checked = new Concurrency();
    checked.threadsBounded = 10;
    assertEquals(null, belowFloor(100, 10, checked));
    assertTrue(belowFloor(100, 100, checked).contains("only 0 of 100 programs ran on the JDK"));
    assertTrue(belowFloor(100, 51, checked).contains("only 49 of 100"));
    Concurrency unchecked = new Concurrency();
    assertTrue(belowFloor(100, 0, unchecked).contains("concurrency bounds checked"));
  }

  /** The README's table and the classifier agree: no stale row, no unlisted key. */
  @Test
  void everyDocumentedDifferenceHasAKeyTheClassifierKnows() {
    DocumentedDifferences docs = DocumentedDifferences.fromReadme();
    TreeSet<String> known = new TreeSet<>(Comparison.EMITTED);
    known.addAll(Comparison.NOT_GENERATED.keySet());
    assertEquals(known, new TreeSet<>(docs.rows().keySet()));
  }

  @AfterAll
  static void noThreadLeftBehind() throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    List<String> live;
    do {
      live = new ArrayList<>();
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.getName().startsWith("fuzz-") && t.isAlive()) {
          live.add(t.getName() + " " + t.getState());
        }
      }
      if (!live.isEmpty()) {
        Thread.sleep(50);
      }
    } while (!live.isEmpty() && System.nanoTime() < end);
    assertEquals(List.of(), live, "threads of fuzzed runs left behind");
  }

  /** Programs run and differences found, per parallelism and per documented key. */
  private record Summary(
      long seed,
      int programs,
      int invalid,
      Map<String, Integer> documented,
      List<String> failures,
      long[] unrelated,
      Concurrency concurrency,
      String stopped,
      Duration took) {
    String failureReport() {
      return failures.size()
          + " failing program(s), first seed "
          + seed
          + ":\n"
          + String.join("\n", failures);
    }

    @Override
    public String toString() {
      return "differential fuzz: seed "
          + seed
          + ", "
          + programs
          + " programs at each of p=1,2,4 ("
          + (programs - invalid)
          + " valid, "
          + invalid
          + " wedge the JDK too), "
          + failures.size()
          + " failing, documented differences seen "
          + documented
          + ", "
          + concurrency
          + ", tasks run in an unrelated frame or seeing its thread-local: ForkJoinPool "
          + unrelated[0]
          + ", WorkStealingPool "
          + unrelated[1]
          + ", "
          + took.toSeconds()
          + " s"
          + (stopped == null ? "" : "; " + stopped);
    }
  }

  /**
   * What the concurrency comparison saw over the valid programs, per runtime: runs (program and p)
   * with more top-level tasks at once than p, and with more threads than p; the largest of each;
   * and how many programs a bound applied to (tops: Tine promises p without managedBlock; threads:
   * both runtimes promise p for flat programs without managedBlock).
   */
  static final class Concurrency {
    final int[] topsOverP = new int[2];
    final int[] threadsOverP = new int[2];
    final int[] mostTops = new int[2];
    final int[] mostThreads = new int[2];
    int topsBounded;
    int threadsBounded;

    void add(Verdict v) {
      boolean tops = false, threads = false;
      for (int p : v.tine().keySet()) {
        Outcome[] os = {v.jdk().get(p), v.tine().get(p)};
        for (int r = 0; r < 2; r++) {
          Outcome o = os[r];
          if (o.maxTopsRunning > p) topsOverP[r]++;
          if (o.threadsRan > p) threadsOverP[r]++;
          mostTops[r] = Math.max(mostTops[r], o.maxTopsRunning - p);
          mostThreads[r] = Math.max(mostThreads[r], o.threadsRan - p);
        }
        tops |= os[1].topsBound != Integer.MAX_VALUE;
        threads |= os[1].threadsBound != Integer.MAX_VALUE;
      }
      if (tops) topsBounded++;
      if (threads) threadsBounded++;
    }

    @Override
    public String toString() {
      return "concurrency: tops-at-once bound applied to "
          + topsBounded
          + " programs, threads bound to "
          + threadsBounded
          + "; runs with more tops at once than p: ForkJoinPool "
          + topsOverP[0]
          + " (at most p+"
          + mostTops[0]
          + "), WorkStealingPool "
          + topsOverP[1]
          + " (at most p+"
          + mostTops[1]
          + "); runs with more threads than p: ForkJoinPool "
          + threadsOverP[0]
          + " (at most p+"
          + mostThreads[0]
          + "), WorkStealingPool "
          + threadsOverP[1]
          + " (at most p+"
          + mostThreads[1]
          + ")";
    }
  }

  /**
   * The floor on programs that actually ran: a grammar the JDK rejects (wedges) most of the time,
   * or one that never produces a program the concurrency bounds apply to, tests nothing and must
   * fail the build rather than pass it.
   */
  static String belowFloor(int ran, int invalid, Concurrency c) {
    List<String> why = new ArrayList<>();
    if (ran - invalid < Math.max(1, ran / 2)) {
      why.add("only " + (ran - invalid) + " of " + ran + " programs ran on the JDK");
    }
    if (c.threadsBounded < Math.max(1, ran / 40)) {
      why.add(
          "only "
              + c.threadsBounded
              + " of "
              + ran
              + " programs had the concurrency bounds checked (floor "
              + Math.max(1, ran / 40)
              + ")");
    }
    return why.isEmpty() ? null : "below the floor: " + String.join("; ", why);
  }

  /**
   * Runs {@code programs} programs from {@code seed}; stops early after {@code maxFailures} failing
   * programs, or once runs have left threads that would not stop (a spinning worker takes a core
   * for good, and every later run would measure that). The first failure of each distinct kind is
   * shrunk, up to {@code maxShrunk} of them.
   */
  private static Summary fuzz(
      long seed, int programs, int maxFailures, int maxShrunk, int shrinkBudget) {
    Fuzzer fuzzer = fuzzer();
    long start = System.nanoTime();
    int invalid = 0;
    int ran = 0;
    Map<String, Integer> documented = new TreeMap<>();
    List<String> failures = new ArrayList<>();
    TreeSet<String> signatures = new TreeSet<>();
    String stopped = null;
    long[] unrelated = new long[2]; // ForkJoinPool, WorkStealingPool
    Concurrency concurrency = new Concurrency();
    for (int i = 0; i < programs; i++) {
      if (failures.size() >= maxFailures) {
        stopped = "stopped after " + maxFailures + " failing programs";
        break;
      }
      if (fuzzer.leakedThreads() > 0) {
        stopped = "stopped: runs left " + fuzzer.leakedThreads() + " threads that would not stop";
        break;
      }
      Program program = Generator.generate(seed + i);
      Verdict v = fuzzer.check(program);
      ran++;
      if (v.invalid()) {
        invalid++;
        continue;
      }
      concurrency.add(v);
      for (Outcome o : v.jdk().values()) {
        unrelated[0] += o.unrelatedFrames.get() + o.unrelatedLocals.get();
      }
      for (Outcome o : v.tine().values()) {
        unrelated[1] += o.unrelatedFrames.get() + o.unrelatedLocals.get();
      }
      for (Difference d : v.result().differences()) {
        if (d.key() != null) {
          documented.merge(d.key() + " (p=" + d.p() + ")", 1, Integer::sum);
        }
      }
      if (v.fails()) {
        String signature = v.kinds().toString();
        if (signatures.add(signature) && signatures.size() <= maxShrunk) {
          failures.add(Fuzzer.report(fuzzer.shrink(v, shrinkBudget)));
        } else {
          failures.add("seed " + program.seed() + ": " + v.result().unexplained());
        }
      }
    }
    String floor = stopped == null ? belowFloor(ran, invalid, concurrency) : null;
    if (floor != null) {
      failures.add(floor);
    }
    return new Summary(
        seed,
        ran,
        invalid,
        documented,
        failures,
        unrelated,
        concurrency,
        stopped,
        Duration.ofNanos(System.nanoTime() - start));
  }
}

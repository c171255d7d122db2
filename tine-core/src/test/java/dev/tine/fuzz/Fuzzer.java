package dev.tine.fuzz;

import dev.tine.fuzz.Comparison.Difference;
import dev.tine.fuzz.Comparison.Kind;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * Runs programs on both runtimes at p = 1, 2 and 4 and compares them; shrinks and prints failures.
 *
 * <p>Deadlines are generous and budget nothing: a good run of these programs takes milliseconds, so
 * a run that is not done after {@link #deadline} is wedged, on any machine. A wedge costs its
 * deadline once; shrinking uses a shorter one and the shrunk program is checked again with the full
 * deadline before it is printed.
 */
final class Fuzzer {
  static final int[] PARALLELISMS = {1, 2, 4};

  /** Runs that left threads which would not stop (a spinning worker): shrinking stops early. */
  private static final int LEAK_LIMIT = 8;

  private static final int SHRINK_ATTEMPTS = 4;

  private final Comparison comparison;
  private final Duration deadline;
  private final BiFunction<Program, Integer, Interpreter> subject;
  private final AtomicInteger leaked = new AtomicInteger();

  /** Compares WorkStealingPool against ForkJoinPool. */
  Fuzzer(DocumentedDifferences docs, Duration deadline) {
    this(docs, deadline, TineInterpreter::new);
  }

  /** Compares {@code subject} against ForkJoinPool; the JDK itself, to check the fuzzer's noise. */
  Fuzzer(
      DocumentedDifferences docs,
      Duration deadline,
      BiFunction<Program, Integer, Interpreter> subject) {
    this.comparison = new Comparison(docs);
    this.deadline = deadline;
    this.subject = subject;
  }

  /** A program's outcomes and their comparison. */
  record Verdict(
      Program program,
      Comparison.Result result,
      Map<Integer, Outcome> jdk,
      Map<Integer, Outcome> tine) {
    boolean invalid() {
      return result.invalid() != null;
    }

    boolean fails() {
      return !invalid() && !result.unexplained().isEmpty();
    }

    Set<Kind> kinds() {
      Set<Kind> kinds = EnumSet.noneOf(Kind.class);
      for (Difference d : result.unexplained()) {
        kinds.add(d.kind());
      }
      return kinds;
    }
  }

  /** Threads that runs so far left behind. */
  int leakedThreads() {
    return leaked.get();
  }

  Verdict check(Program program) {
    return check(program, PARALLELISMS, deadline);
  }

  Verdict check(Program program, int[] parallelisms, Duration limit) {
    Map<Integer, Outcome> jdk = new LinkedHashMap<>();
    Map<Integer, Outcome> tine = new LinkedHashMap<>();
    for (int p : parallelisms) {
      Outcome j = new JdkInterpreter(program, p).run(limit);
      jdk.put(p, j);
      if (j.wedged) {
        break; // an invalid program: no need to run the rest
      }
      Outcome t = subject.apply(program, p).run(limit);
      leaked.addAndGet(t.leftThreads);
      tine.put(p, t);
    }
    if (jdk.size() != tine.size()) {
      return new Verdict(
          program,
          new Comparison.Result("the JDK wedged", java.util.List.of(), java.util.List.of()),
          jdk,
          tine);
    }
    return new Verdict(program, comparison.compare(jdk, tine), jdk, tine);
  }

  /** The smallest program found that still fails with one of the same kinds of difference. */
  Verdict shrink(Verdict failing, int budget) {
    Set<Kind> kinds = failing.kinds();
    int[] ps = kinds.contains(Kind.INCONSISTENT) ? PARALLELISMS : failingParallelisms(failing);
    Duration shorter = deadline.dividedBy(4);
    Map<Program, Verdict> failed = new HashMap<>();
    Program small =
        Shrinker.shrink(
            failing.program(),
            c -> {
              if (leaked.get() > LEAK_LIMIT) {
                return false; // every further wedge would leave another spinning thread
              }
              // A few tries: some failures need the right timing (a wedge one run in ten), and a
              // candidate that passes usually passes in milliseconds.
              for (int attempt = 0; attempt < SHRINK_ATTEMPTS; attempt++) {
                Verdict v = check(c, ps, shorter);
                if (v.fails() && v.kinds().stream().anyMatch(kinds::contains)) {
                  failed.put(c, v);
                  return true;
                }
              }
              return false;
            },
            budget);
    // The verdict that made the shrinker keep it: rerunning a timing-dependent failure may miss.
    return failed.getOrDefault(small, failing);
  }

  private static int[] failingParallelisms(Verdict v) {
    Set<Integer> ps = new TreeSet<>();
    for (Difference d : v.result().unexplained()) {
      ps.add(d.p().equals("all") ? 1 : Integer.parseInt(d.p()));
    }
    return ps.stream().mapToInt(Integer::intValue).toArray();
  }

  /** A failure as a reader needs it: the differences, the program as Java, both outcomes. */
  static String report(Verdict v) {
    StringBuilder s = new StringBuilder();
    s.append("seed ").append(v.program().seed()).append(": ");
    s.append(v.result().unexplained().size()).append(" unexplained difference(s)\n");
    for (Difference d : v.result().unexplained()) {
      s.append("  ").append(d).append('\n');
    }
    int p = failingParallelisms(v).length > 0 ? failingParallelisms(v)[0] : 1;
    s.append("program (paste into DifferentialFuzzTest.REGRESSIONS):\n");
    s.append(JavaPrinter.literal(v.program())).append('\n');
    s.append("as Tine code:\n").append(JavaPrinter.source(v.program(), p));
    for (int q : v.tine().keySet()) {
      s.append("  ").append(v.jdk().get(q)).append('\n');
      s.append("  ").append(v.tine().get(q)).append('\n');
    }
    return s.toString();
  }
}

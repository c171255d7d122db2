package dev.tine.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tine.fuzz.Comparison.Difference;
import dev.tine.fuzz.Comparison.Kind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The classifier on hand-made outcomes: what it explains, by which row, and what it does not. */
class ComparisonTest {
  private static final String TABLE =
      """
      **Porting from `ForkJoinPool`.** Text.

      | key | `WorkStealingPool` | `ForkJoinPool` | why |
      |---|---|---|---|
      | `same-exception-object` | same | copy | identity |
      | `cancel-unpromoted-fork` | false | true | latent |

      After the table.
      """;

  private final Comparison comparison = new Comparison(DocumentedDifferences.parse(TABLE));

  private static Map<Integer, Outcome> runs(String runtime, String... topPerP) {
    Map<Integer, Outcome> m = new LinkedHashMap<>();
    int[] ps = Fuzzer.PARALLELISMS;
    for (int i = 0; i < ps.length; i++) {
      Outcome o = new Outcome(runtime, ps[i]);
      o.tops.add(topPerP[i]);
      m.put(ps[i], o);
    }
    return m;
  }

  private List<Difference> unexplained(String[] jdk, String[] tine) {
    return comparison.compare(runs("jdk", jdk), runs("tine", tine)).unexplained();
  }

  /**
   * More tops at once, or more threads, than the runtime promises is a defect even when every value
   * agrees; within the bound (or where no bound applies) it is not.
   */
  @Test
  void moreTasksAtOnceThanPromisedIsADefect() {
    String[] same = {"value 1", "value 1", "value 1"};
    Map<Integer, Outcome> jdk = runs("jdk", same);
    Map<Integer, Outcome> tine = runs("tine", same);
    for (int p : Fuzzer.PARALLELISMS) {
      for (Outcome o : List.of(jdk.get(p), tine.get(p))) {
        o.topsBound = p;
        o.threadsBound = p;
        o.maxTopsRunning = p;
        o.threadsRan = p;
      }
    }
    assertEquals(List.of(), comparison.compare(jdk, tine).unexplained());
    tine.get(2).maxTopsRunning = 4; // the old stall watch: 4 sleeping submissions at once at p=2
    tine.get(4).threadsRan = 5;
    List<Difference> u = comparison.compare(jdk, tine).unexplained();
    assertEquals(2, u.size(), u.toString());
    assertEquals(Kind.CONCURRENCY, u.get(0).kind());
    assertEquals("4", u.get(0).tine());
    assertEquals("2", u.get(0).jdk());
    tine.get(2).topsBound = Integer.MAX_VALUE; // a program with managedBlock: no bound
    tine.get(4).threadsBound = Integer.MAX_VALUE;
    assertEquals(List.of(), comparison.compare(jdk, tine).unexplained());
  }

  @Test
  void aWrappedCheckedExceptionIsADefect() {
    List<Difference> u =
        unexplained(
            new String[] {
              "threw FuzzChecked#3", "threw FuzzChecked#3 (copy)", "threw FuzzChecked#3"
            },
            new String[] {
              "threw CompletionException<FuzzChecked#3",
              "threw CompletionException<FuzzChecked#3",
              "threw CompletionException<FuzzChecked#3"
            });
    assertEquals(3, u.size());
    assertEquals(Kind.MISMATCH, u.get(0).kind());
  }

  @Test
  void aRuleThatHoldsOnlyOnOnePathIsADefect() {
    List<Difference> u =
        unexplained(
            new String[] {"threw FuzzChecked#3", "threw FuzzChecked#3", "threw FuzzChecked#3"},
            new String[] {
              "threw FuzzChecked#3",
              "threw CompletionException<FuzzChecked#3",
              "threw CompletionException<FuzzChecked#3"
            });
    assertEquals(
        List.of(Kind.MISMATCH, Kind.MISMATCH, Kind.INCONSISTENT),
        u.stream().map(Difference::kind).toList());
  }

  @Test
  void aCopyWhereTheJdkKeepsTheObjectIsADefect() {
    List<Difference> u =
        unexplained(
            new String[] {
              "threw FuzzUnchecked#3", "threw FuzzUnchecked#3", "threw FuzzUnchecked#3"
            },
            new String[] {
              "threw FuzzUnchecked#3", "threw FuzzUnchecked#3 (copy)", "threw FuzzUnchecked#3"
            });
    assertEquals(Kind.IDENTITY, u.get(0).kind());
  }

  @Test
  void theSameObjectWhereTheJdkCopiesIsDocumented() {
    Comparison.Result r =
        comparison.compare(
            runs(
                "jdk", "threw FuzzError#1", "threw FuzzError#1 (copy)", "threw FuzzError#1 (copy)"),
            runs("tine", "threw FuzzError#1", "threw FuzzError#1", "threw FuzzError#1"));
    assertEquals(List.of(), r.unexplained());
    assertEquals("same-exception-object", r.differences().get(0).key());
  }

  @Test
  void aJdkCopyUnwrappedByCompletableFutureIsTheSameObjectRow() {
    Comparison.Result r =
        comparison.compare(
            runs(
                "jdk",
                "threw ExecutionException<CompletionException<FuzzChecked#5 (copy)",
                "threw ExecutionException<CompletionException<FuzzChecked#5 (copy)",
                "threw ExecutionException<FuzzChecked#5"),
            runs(
                "tine",
                "threw ExecutionException<FuzzChecked#5",
                "threw ExecutionException<FuzzChecked#5",
                "threw ExecutionException<FuzzChecked#5"));
    assertEquals(List.of(), r.unexplained());
    assertEquals("same-exception-object", r.differences().get(0).key());
  }

  @Test
  void aDifferenceWhoseRowIsMissingFromTheReadmeIsUnexplained() {
    Comparison strict =
        new Comparison(
            DocumentedDifferences.parse(TABLE.replace("| `same-exception-object`", "| `other`")));
    Comparison.Result r =
        strict.compare(
            runs(
                "jdk", "threw FuzzError#1", "threw FuzzError#1 (copy)", "threw FuzzError#1 (copy)"),
            runs("tine", "threw FuzzError#1", "threw FuzzError#1", "threw FuzzError#1"));
    assertEquals(2, r.unexplained().size());
    assertNull(r.unexplained().get(0).key());
  }

  @Test
  void aWedgeOfTineIsADefectAndAWedgeOfTheJdkMakesTheProgramInvalid() {
    Map<Integer, Outcome> jdk = runs("jdk", "value 1", "value 1", "value 1");
    Map<Integer, Outcome> tine = runs("tine", "value 1", "not finished", "value 1");
    tine.get(2).wedged = true;
    assertEquals(Kind.WEDGE, comparison.compare(jdk, tine).unexplained().get(0).kind());
    jdk.get(4).wedged = true;
    assertNotNull(comparison.compare(jdk, tine).invalid());
  }

  @Test
  void theTableMustExist() {
    assertThrows(IllegalStateException.class, () -> DocumentedDifferences.parse("# README\n"));
  }
}

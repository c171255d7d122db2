package dev.tine.fuzz;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Compares a program's outcomes on ForkJoinPool and WorkStealingPool at each parallelism, and
 * classifies each difference: documented on purpose (a row of {@link DocumentedDifferences}, by
 * key) or not. Three rules:
 *
 * <ul>
 *   <li>per parallelism, Tine must show what the JDK shows: the same values, throwable classes and
 *       origins, the same observations, completion where the JDK completes, no thread left;
 *   <li>where the JDK keeps a throwable's identity (no cross-thread copy), Tine must too;
 *   <li>where the JDK's outcome is the same at every parallelism, Tine's must be too: an outcome
 *       that depends on scheduling (say, on whether a half ran inline or was stolen) is a defect
 *       even if each form of it alone would be tolerated.
 * </ul>
 *
 * A program that wedges the JDK is not a valid test of Tine; it is reported as invalid, not as a
 * difference.
 */
final class Comparison {
  /** Tine rethrows the thrown object where the JDK rethrows a copy. */
  static final String SAME_OBJECT = "same-exception-object";

  /** The keys this classifier can emit: each must have a row in the README's table. */
  static final Set<String> EMITTED = Set.of(SAME_OBJECT);

  /** Documented differences the grammar cannot produce, and why; their rows are still required. */
  static final Map<String, String> NOT_GENERATED =
      Map.of(
          "cancel-unpromoted-fork",
          "whether a cancel beats the task is scheduling on the JDK too; the grammar records only"
              + " whether cancel's answer agrees with the task's outcome",
          "overflow-leftover-forks",
          "the grammar joins every fork before it rethrows a failure (Interpreter.forkJoin's"
              + " quietly), or marks a half it may abandon as maybe, so no fork is left behind by"
              + " a computation that overflowed",
          "unseen-blocking",
          "the grammar's fork-then-wait blocks only where the JDK compensates (its monitor and"
              + " semaphore blocks wait for nothing the program computes); a fork then a monitor"
              + " or native I/O wait for it would wedge the JDK as well");

  enum Kind {
    WEDGE,
    THREADS_LEFT,
    MISMATCH,
    IDENTITY,
    INCONSISTENT,
    /** More tops at once, or more threads, than the runtime promises (the JDK's bound is p). */
    CONCURRENCY
  }

  /** One difference; {@code key} names its documented row, null if none explains it. */
  record Difference(Kind kind, String where, String p, String jdk, String tine, String key) {
    @Override
    public String toString() {
      return kind
          + " at "
          + where
          + " (p="
          + p
          + "): ForkJoinPool "
          + jdk
          + " | WorkStealingPool "
          + tine
          + (key == null ? "" : " [documented: " + key + "]");
    }
  }

  record Result(String invalid, List<Difference> differences, List<Difference> unexplained) {}

  private final DocumentedDifferences docs;

  Comparison(DocumentedDifferences docs) {
    this.docs = docs;
  }

  Result compare(Map<Integer, Outcome> jdk, Map<Integer, Outcome> tine) {
    for (Outcome j : jdk.values()) {
      if (j.wedged) {
        return new Result("the JDK wedged at p=" + j.parallelism, List.of(), List.of());
      }
    }
    List<Difference> all = new ArrayList<>();
    Set<String> locations = new TreeSet<>();
    Set<Integer> maybe = new HashSet<>();
    for (Outcome o : jdk.values()) {
      maybe.addAll(o.maybe);
    }
    for (Outcome o : tine.values()) {
      maybe.addAll(o.maybe);
    }
    for (int p : jdk.keySet()) {
      Outcome j = jdk.get(p);
      Outcome t = tine.get(p);
      String ps = String.valueOf(p);
      if (t.leftThreads > 0) {
        all.add(new Difference(Kind.THREADS_LEFT, "end", ps, "none", t.leftThreads + "", null));
      }
      if (t.wedged) {
        all.add(new Difference(Kind.WEDGE, "run", ps, "completed", "wedged", null));
        continue;
      }
      if (t.maxTopsRunning > t.topsBound) {
        all.add(
            new Difference(
                Kind.CONCURRENCY,
                "top-level tasks running at once (at most " + t.topsBound + ")",
                ps,
                j.maxTopsRunning + "",
                t.maxTopsRunning + "",
                null));
      }
      if (t.threadsRan > t.threadsBound) {
        all.add(
            new Difference(
                Kind.CONCURRENCY,
                "threads that ran tasks (at most " + t.threadsBound + ")",
                ps,
                j.threadsRan + "",
                t.threadsRan + "",
                null));
      }
      for (int i = 0; i < j.tops.size(); i++) {
        locations.add("top " + i);
        classify(all, "top " + i, ps, j.tops.get(i), t.tops.get(i));
      }
      Set<Integer> ids = new TreeSet<>(j.observations.keySet());
      ids.addAll(t.observations.keySet());
      for (int id : ids) {
        if (!maybe.contains(id)) {
          locations.add("node " + id);
          classify(all, "node " + id, ps, j.observations.get(id), t.observations.get(id));
        }
      }
    }
    consistency(all, locations, jdk, tine);
    List<Difference> unexplained = new ArrayList<>();
    for (Difference d : all) {
      if (d.key() == null) {
        unexplained.add(d);
      }
    }
    return new Result(null, all, unexplained);
  }

  private void classify(List<Difference> out, String where, String p, String j, String t) {
    j = j == null ? "not run" : j;
    t = t == null ? "not run" : t;
    if (j.equals(t)) {
      return;
    }
    int jc = count(j, Outcome.COPY);
    int tc = count(t, Outcome.COPY);
    String js = j.replace(Outcome.COPY, "");
    String ts = t.replace(Outcome.COPY, "");
    if (tc > jc) {
      out.add(new Difference(Kind.IDENTITY, where, p, j, t, null));
    } else if (jc > tc && js.equals(ts)) {
      out.add(new Difference(Kind.IDENTITY, where, p, j, t, documented(SAME_OBJECT)));
    }
    if (js.equals(ts)) {
      return;
    }
    // A JDK copy of a CompletionException has the original as its cause; CompletableFuture's get
    // unwraps one level, so the JDK's chain keeps a CompletionException that Tine's has not.
    boolean unwrappedCopy =
        jc > 0
            && js.contains(COMPLETION)
            && js.replace(COMPLETION, "").equals(ts.replace(COMPLETION, ""));
    out.add(
        new Difference(
            Kind.MISMATCH, where, p, j, t, unwrappedCopy ? documented(SAME_OBJECT) : null));
  }

  private static final String COMPLETION = "CompletionException<";

  /** The key if the README documents it, else null: an undocumented key explains nothing. */
  private String documented(String key) {
    return docs.has(key) ? key : null;
  }

  private static void consistency(
      List<Difference> out,
      Set<String> locations,
      Map<Integer, Outcome> jdk,
      Map<Integer, Outcome> tine) {
    for (String where : locations) {
      Set<String> jv = new TreeSet<>();
      Set<String> tv = new TreeSet<>();
      StringBuilder tineByP = new StringBuilder();
      for (int p : jdk.keySet()) {
        jv.add(normalized(valueAt(jdk.get(p), where)));
        Outcome t = tine.get(p);
        if (!t.wedged) {
          String v = valueAt(t, where);
          tv.add(normalized(v));
          tineByP.append(tineByP.isEmpty() ? "" : "; ").append("p=").append(p).append(": ");
          tineByP.append(v);
        }
      }
      if (jv.size() == 1 && tv.size() > 1) {
        out.add(
            new Difference(
                Kind.INCONSISTENT, where, "all", jv.iterator().next(), tineByP.toString(), null));
      }
    }
  }

  private static String valueAt(Outcome o, String where) {
    String v =
        where.startsWith("top ")
            ? o.tops.get(Integer.parseInt(where.substring(4)))
            : o.observations.get(Integer.parseInt(where.substring(5)));
    return v == null ? "not run" : v;
  }

  private static String normalized(String v) {
    return v.replace(Outcome.COPY, "");
  }

  private static int count(String s, String part) {
    int n = 0;
    for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }
}

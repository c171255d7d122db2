package dev.tine.fuzz;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one run of a program on one runtime at one parallelism showed: each top-level task's value
 * or throwable, what each observed node saw, whether the run wedged, and which nodes may or may not
 * have run (the right half of a join whose left half threw, a cancelled task): those are not
 * compared.
 *
 * <p>A throwable is described by its cause chain of simple class names, ending at the object a
 * program node threw ({@code #id}), e.g. {@code CompletionException<FuzzChecked#7}. A JDK
 * cross-thread copy (same class, the original as cause) is folded into its original and marked
 * {@code (copy)}: identity is compared separately from class.
 */
final class Outcome {
  static final String COPY = " (copy)";

  final String runtime;
  final int parallelism;
  final List<String> tops = Collections.synchronizedList(new ArrayList<>());
  final Map<Integer, String> observations = new ConcurrentHashMap<>();
  final Set<Integer> maybe = ConcurrentHashMap.newKeySet();
  final List<String> notes = Collections.synchronizedList(new ArrayList<>());

  /** Tasks that ran inside the frame of a task that cannot reach them ({@link Reachability}). */
  final AtomicInteger unrelatedFrames = new AtomicInteger();

  /** Thread-local reads that saw an unrelated task's value. */
  final AtomicInteger unrelatedLocals = new AtomicInteger();

  volatile boolean wedged;
  volatile int leftThreads;

  /** The most top-level tasks the main pool's threads ran at once. */
  volatile int maxTopsRunning;

  /** The main pool's threads that ran some task of the program. */
  volatile int threadsRan;

  /** What the runtime promises for this program: at most so many tops at once, so many threads. */
  volatile int topsBound = Integer.MAX_VALUE;

  volatile int threadsBound = Integer.MAX_VALUE;

  /** The throwables program nodes created, by identity, to their node ids. */
  private final Map<Throwable, Integer> origins =
      Collections.synchronizedMap(new IdentityHashMap<>());

  Outcome(String runtime, int parallelism) {
    this.runtime = runtime;
    this.parallelism = parallelism;
  }

  <T extends Throwable> T origin(T t, int id) {
    origins.put(t, id);
    return t;
  }

  /** Records what node {@code id} saw; a second record for the same node means it ran twice. */
  void observe(int id, String what) {
    String before = observations.putIfAbsent(id, what);
    if (before != null) {
      observations.put(id, before + " | ran again: " + what);
    }
  }

  String describe(Throwable t) {
    // Long chains are real: each cross-thread join on the JDK copies what it got, copy of a copy.
    List<Throwable> chain = new ArrayList<>();
    for (Throwable c = t; c != null && chain.size() < 64 && !chain.contains(c); c = c.getCause()) {
      chain.add(c);
    }
    StringBuilder out = new StringBuilder();
    boolean copied = false;
    for (int i = 0; i < chain.size(); i++) {
      Throwable e = chain.get(i);
      Integer id = origins.get(e);
      if (id != null) {
        append(out, e.getClass().getSimpleName() + "#" + id);
        break;
      }
      if (i + 1 < chain.size() && chain.get(i + 1).getClass() == e.getClass()) {
        copied = true; // the JDK's copy of the next one
        continue;
      }
      append(out, e.getClass().getSimpleName());
    }
    return copied ? out + COPY : out.toString();
  }

  private static void append(StringBuilder out, String s) {
    if (!out.isEmpty()) {
      out.append('<');
    }
    out.append(s);
  }

  static boolean isCopy(String s) {
    return s.endsWith(COPY);
  }

  static String withoutCopy(String s) {
    return isCopy(s) ? s.substring(0, s.length() - COPY.length()) : s;
  }

  @Override
  public String toString() {
    return runtime
        + " p="
        + parallelism
        + (wedged ? " WEDGED" : "")
        + " tops at once "
        + maxTopsRunning
        + ", threads "
        + threadsRan
        + " tops="
        + tops
        + " observations="
        + new java.util.TreeMap<>(observations)
        + (unrelatedFrames.get() + unrelatedLocals.get() == 0
            ? ""
            : " unrelated frames/thread-locals=" + unrelatedFrames + "/" + unrelatedLocals)
        + (notes.isEmpty() ? "" : " notes=" + notes);
  }
}

package dev.tine.bench.run;

import java.util.Arrays;
import java.util.stream.Collectors;

/** What runs a program: sequential code, Tine's pool, or the JDK's ForkJoinPool. */
public enum Engine {
  SEQ("seq"),
  TINE("tine"),
  /** Tine with its per-worker counters off: to measure what recording them costs. */
  TINE_NOSTATS("tine-nostats"),
  /** Tine with eager forks (every fork pushed on the deque, as the JDK does): for comparison. */
  TINE_EAGER("tine-eager"),
  JDK("jdk"),
  /**
   * The JDK's ready-made parallel form of the program, as a user would write it
   * (Arrays.parallelSort, a parallel IntStream...), run inside a ForkJoinPool of p workers; only
   * for programs that have one.
   */
  JDK_BUILTIN("jdk-builtin");

  public final String id;

  Engine(String id) {
    this.id = id;
  }

  public boolean isTine() {
    return this == TINE || this == TINE_NOSTATS || this == TINE_EAGER;
  }

  /** Tine engines whose pools record per-worker counters. */
  public boolean countsTasks() {
    return this == TINE || this == TINE_EAGER;
  }

  public static String ids() {
    return Arrays.stream(values()).map(e -> e.id).collect(Collectors.joining(", "));
  }

  public static Engine parse(String s) {
    for (Engine e : values()) {
      if (e.id.equalsIgnoreCase(s.trim())) {
        return e;
      }
    }
    throw new IllegalArgumentException("unknown runtime '" + s + "' (expected " + ids() + ")");
  }
}

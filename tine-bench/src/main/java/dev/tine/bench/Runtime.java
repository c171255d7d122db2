package dev.tine.bench;

/** What runs a program: sequential code, Tine's pool, or the JDK's ForkJoinPool. */
public enum Runtime {
  SEQ("seq"),
  TINE("tine"),
  /** Tine with its per-worker counters off: to measure what recording them costs. */
  TINE_NOSTATS("tine-nostats"),
  /** Tine with eager forks (every fork pushed on the deque, as the JDK does): for comparison. */
  TINE_EAGER("tine-eager"),
  JDK("jdk");

  public final String id;

  Runtime(String id) {
    this.id = id;
  }

  public boolean isTine() {
    return this == TINE || this == TINE_NOSTATS || this == TINE_EAGER;
  }

  public static Runtime parse(String s) {
    for (Runtime r : values()) {
      if (r.id.equalsIgnoreCase(s.trim())) {
        return r;
      }
    }
    throw new IllegalArgumentException("unknown runtime '" + s + "' (expected seq, tine, tine-eager, tine-nostats or jdk)");
  }
}

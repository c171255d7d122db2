package dev.tine.bench;

/** What runs a program: sequential code, Tine's pool, or the JDK's ForkJoinPool. */
public enum Runtime {
  SEQ("seq"),
  TINE("tine"),
  JDK("jdk");

  public final String id;

  Runtime(String id) {
    this.id = id;
  }

  public static Runtime parse(String s) {
    for (Runtime r : values()) {
      if (r.id.equalsIgnoreCase(s.trim())) {
        return r;
      }
    }
    throw new IllegalArgumentException("unknown runtime '" + s + "' (expected seq, tine or jdk)");
  }
}

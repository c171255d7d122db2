package dev.tine.executor.jfr;

import java.util.Locale;

/**
 * JFR's duration syntax for settings: {@code 10 ms}, {@code 0 ns}, {@code 1 s}, {@code 20 us}...
 */
final class Durations {
  private Durations() {}

  /** Nanoseconds of {@code "<n> <unit>"} (unit ns, us, ms, s, m, h, d; the space optional). */
  static long parse(String s) {
    String t = s.trim().toLowerCase(Locale.ROOT);
    int i = 0;
    while (i < t.length() && Character.isDigit(t.charAt(i))) i++;
    if (i == 0) throw new IllegalArgumentException("not a duration: " + s);
    long n = Long.parseLong(t.substring(0, i));
    long unit =
        switch (t.substring(i).trim()) {
          case "ns" -> 1L;
          case "us" -> 1_000L;
          case "ms" -> 1_000_000L;
          case "s" -> 1_000_000_000L;
          case "m" -> 60_000_000_000L;
          case "h" -> 3_600_000_000_000L;
          case "d" -> 86_400_000_000_000L;
          default -> throw new IllegalArgumentException("not a duration: " + s);
        };
    return n > Long.MAX_VALUE / unit ? Long.MAX_VALUE : n * unit;
  }

  static long parseOr(String s, long otherwise) {
    try {
      return parse(s);
    } catch (RuntimeException e) {
      return otherwise;
    }
  }
}

package dev.tine.bench;

/**
 * Problem sizes: quick (about a second sequential or less) and the source documents' paper sizes.
 */
public enum Size {
  QUICK,
  PAPER;

  public String id() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  public static Size parse(String s) {
    for (Size z : values()) {
      if (z.id().equalsIgnoreCase(s.trim())) {
        return z;
      }
    }
    throw new IllegalArgumentException("unknown size '" + s + "' (expected quick or paper)");
  }
}

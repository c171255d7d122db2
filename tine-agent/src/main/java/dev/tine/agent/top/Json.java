package dev.tine.agent.top;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;

/**
 * A small JSON writer (the agent jar carries no JSON library): maps, collections, strings, numbers.
 */
public final class Json {
  private Json() {}

  public static String write(Object v) {
    StringBuilder sb = new StringBuilder();
    write(sb, v);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object v) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (var e : m.entrySet()) {
        if (!first) sb.append(',');
        first = false;
        string(sb, String.valueOf(e.getKey()));
        sb.append(':');
        write(sb, e.getValue());
      }
      sb.append('}');
    } else if (v instanceof Collection<?> c) {
      sb.append('[');
      boolean first = true;
      for (Object o : c) {
        if (!first) sb.append(',');
        first = false;
        write(sb, o);
      }
      sb.append(']');
    } else if (v instanceof Object[] a) {
      write(sb, java.util.Arrays.asList(a));
    } else if (v instanceof double[] a) {
      write(sb, java.util.Arrays.stream(a).boxed().toList());
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) sb.append("null");
      else if (d == Math.rint(d) && Math.abs(d) < 1e15) sb.append((long) d);
      else
        sb.append(
            String.format(Locale.ROOT, "%.6g", d)
                .replaceAll("(\\.\\d*?)0+(e|$)", "$1$2")
                .replace(".e", "e")
                .replaceAll("\\.$", ""));
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else {
      string(sb, v.toString());
    }
  }

  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          else sb.append(c);
        }
      }
    }
    sb.append('"');
  }
}

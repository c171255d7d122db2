package dev.tine.agent.state;

import java.lang.StackWalker.StackFrame;
import java.util.List;
import java.util.Set;

/**
 * Readable pool names: the common prefix of the threads' names, else the class and where it was
 * built.
 */
public final class PoolNames {
  private PoolNames() {}

  private static final StackWalker WALKER =
      StackWalker.getInstance(Set.of(StackWalker.Option.RETAIN_CLASS_REFERENCE));

  /**
   * The common prefix of {@code names}, without the trailing counter and separators: {@code
   * pool-3-thread-1, pool-3-thread-2} give {@code pool-3-thread}; {@code http-nio-8080-exec-7}
   * alone gives {@code http-nio-8080-exec}. Null if there is no usable prefix (fewer than 2
   * characters).
   */
  static String commonPrefix(List<String> names) {
    if (names.isEmpty()) return null;
    String p = names.get(0);
    for (String n : names) {
      int i = 0, max = Math.min(p.length(), n.length());
      while (i < max && p.charAt(i) == n.charAt(i)) i++;
      p = p.substring(0, i);
    }
    int end = p.length();
    // A single thread's name ends in its own counter; several threads' prefix may end mid-counter
    // ("pool-1-thread-1" and "pool-1-thread-12" share "pool-1-thread-1"): drop trailing digits.
    while (end > 0 && Character.isDigit(p.charAt(end - 1))) end--;
    while (end > 0 && "-_ .#(:[/".indexOf(p.charAt(end - 1)) >= 0) end--;
    String r = p.substring(0, end);
    return r.length() >= 2 ? r : null;
  }

  /**
   * Whether a pool is the JMX/RMI machinery that a remote JMX connection (such as {@code tine
   * top}'s own) brings: shown by {@code top --all} only, and never scraped, since it serves no
   * request of the application's.
   */
  public static boolean jmxMachinery(String name, String createdAt) {
    String site = createdAt == null ? "" : createdAt;
    return name.startsWith("RMI ")
        || name.startsWith("JMX ")
        || site.startsWith("TCPTransport")
        || site.startsWith("RuntimeUtil");
  }

  /**
   * Where the pool being constructed was created: the first frame outside the agent, the pool's own
   * class hierarchy's constructors and {@code java.util.concurrent.Executors}, as {@code
   * Class.method(File:line)}; null if none.
   */
  public static String creationSite(Class<?> poolClass) {
    return WALKER.walk(
        s -> s.filter(f -> !skip(f, poolClass)).findFirst().map(PoolNames::format).orElse(null));
  }

  private static boolean skip(StackFrame f, Class<?> poolClass) {
    String cn = f.getClassName();
    if (cn.startsWith("dev.tine.agent.")) return true;
    if (cn.startsWith("java.util.concurrent.Executors")) return true;
    Class<?> c = f.getDeclaringClass();
    return f.getMethodName().equals("<init>") && c.isAssignableFrom(poolClass);
  }

  private static String format(StackFrame f) {
    String cn = f.getClassName();
    String simple = cn.substring(cn.lastIndexOf('.') + 1);
    return simple
        + "."
        + f.getMethodName()
        + "("
        + (f.getFileName() != null ? f.getFileName() : "?")
        + ":"
        + f.getLineNumber()
        + ")";
  }

  static String simpleName(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }
}

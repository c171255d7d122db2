package dev.tine.agent.core;

import dev.tine.agent.resize.ResizeResult;
import dev.tine.agent.state.PoolFigures;
import dev.tine.agent.state.PoolSizing;
import dev.tine.agent.state.PoolState;
import dev.tine.agent.state.SizeControl;
import dev.tine.agent.state.SizeRecord;
import dev.tine.agent.state.Sizing;
import java.lang.reflect.InvocationTargetException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Sets pools' sizes for the MXBean ({@code tine top --resize/--restore}, {@code tine tune}), puts
 * the originals back, and watches at every tick for someone else changing them. Each change is made
 * under the pool's {@link SizeRecord} monitor, which only this class takes (never a pool thread),
 * so the ticker's watch cannot mistake the agent's own change for another tool's. The pool's
 * setters take the pool's own lock for as long as the JDK's do (a few microseconds). Nothing here
 * throws: a failure is reported in the result, and a setter that throws halfway has the sizes read
 * before put back.
 */
final class Resizer {
  private final AgentRuntime rt;
  private final long pid = ProcessHandle.current().pid();

  Resizer(AgentRuntime rt) {
    this.rt = rt;
  }

  // ---------------------------------------------------------------------------------------------
  // Finding the pool

  /** The pool {@code q} names: its exact name, {@code #id}, or a unique prefix of a name. */
  private Object find(String q) {
    List<PoolState> all = new ArrayList<>();
    for (PoolState st : rt.registry.all()) if (st.figures != null && !st.frozen) all.add(st);
    if (q == null || q.isBlank())
      return ResizeResult.refused("", -1, ResizeResult.NO_SUCH_POOL, "no pool named" + names(all));
    if (q.matches("#\\d+")) {
      int id = Integer.parseInt(q.substring(1));
      for (PoolState st : all) if (st.id == id) return st;
    }
    List<PoolState> exact = new ArrayList<>(), prefix = new ArrayList<>();
    for (PoolState st : all) {
      String n = st.figures.name;
      if (n.equals(q)) exact.add(st);
      else if (n.startsWith(q)) prefix.add(st);
    }
    List<PoolState> hits = !exact.isEmpty() ? exact : prefix;
    if (hits.size() == 1) return hits.get(0);
    if (hits.isEmpty())
      return ResizeResult.refused(
          q, -1, ResizeResult.NO_SUCH_POOL, "no pool named '" + q + "'" + names(all));
    StringBuilder sb = new StringBuilder();
    for (PoolState st : hits)
      sb.append(sb.isEmpty() ? "" : ", ").append(st.figures.name).append(" (#").append(st.id);
    return ResizeResult.refused(
        q,
        -1,
        ResizeResult.NO_SUCH_POOL,
        "'"
            + q
            + "' names "
            + hits.size()
            + " pools: "
            + sb.toString().replace(", ", "), ")
            + "): name one, or give #id");
  }

  private static String names(List<PoolState> all) {
    if (all.isEmpty()) return " (the agent measures no pool yet)";
    StringBuilder sb = new StringBuilder(" (pools: ");
    for (int i = 0; i < all.size(); i++)
      sb.append(i == 0 ? "" : ", ").append(all.get(i).figures.name);
    return sb.append(')').toString();
  }

  /** A live, resizable pool: its name, how it is sized, and the setter {@code --resize} uses. */
  private record Target(String name, Sizing sizing, SizeControl control) {}

  /** The pool's {@link Target}, or the refusal when it is gone or cannot be resized at all. */
  private static Object target(PoolState st) {
    PoolFigures f = st.figures;
    String name = f != null ? f.name : "#" + st.id;
    Object pool = st.ref.get();
    if (pool == null)
      return ResizeResult.refused(name, -1, ResizeResult.NO_SUCH_POOL, name + ": the pool is gone");
    Sizing s = PoolSizing.of(st, pool);
    SizeControl c = s.control();
    if (c == null)
      return ResizeResult.refused(
          name, -1, ResizeResult.NOT_RESIZABLE, name + ": not resizable: " + s.refusal());
    return new Target(name, s, c);
  }

  private record Sizes(int core, int max, int size) {}

  /** The pool's sizes now, or the refusal when a getter throws (a pool half torn down). */
  private static Object readSizes(String name, SizeControl c) {
    try {
      return new Sizes(c.core(), c.max(), c.size());
    } catch (Throwable t) {
      return ResizeResult.refused(
          name, -1, ResizeResult.FAILED, name + ": could not read its sizes: " + unwrap(t));
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Resize

  ResizeResult resize(String q, int size, String by, String why, boolean force) {
    try {
      return resizeOrThrow(
          q, size, orDefault(by, "unknown"), orDefault(why, "no reason given"), force);
    } catch (Throwable t) {
      rt.failed(t);
      return ResizeResult.refused(q, -1, ResizeResult.FAILED, q + ": " + unwrap(t));
    }
  }

  private ResizeResult resizeOrThrow(String q, int size, String by, String why, boolean force) {
    String bad = ResizeResult.checkSize(size);
    if (bad != null)
      return ResizeResult.refused(
          q, -1, ResizeResult.BAD_INPUT, q + ": " + bad + "; nothing changed");
    Object found = find(q);
    if (found instanceof ResizeResult r) return r;
    PoolState st = (PoolState) found;
    Object target = target(st);
    if (target instanceof ResizeResult refused) return refused;
    Target t0 = (Target) target;
    String name = t0.name();
    Sizing s = t0.sizing();
    SizeControl c = t0.control();
    SizeRecord r = st.sizes;
    int from, to, original;
    synchronized (r) {
      int core, max;
      Object read = readSizes(name, c);
      if (read instanceof ResizeResult unreadable) return unreadable;
      core = ((Sizes) read).core();
      max = ((Sizes) read).max();
      from = ((Sizes) read).size();
      if (s.unlessForced() && !force)
        return ResizeResult.refused(
            name,
            from,
            ResizeResult.NOT_RESIZABLE,
            name + ": not resized: " + s.refusal() + " (--force resizes it anyway)");
      noteExternal(r, c, core, max);
      if (r.externalAtMillis != 0 && !force)
        return ResizeResult.refused(
            name,
            from,
            ResizeResult.RESIZED_BY_ANOTHER,
            name + ": " + r.external + "; not changed (--force resizes it anyway)");
      if (from == size)
        return new ResizeResult(
            name,
            from,
            from,
            false,
            ResizeResult.OK,
            name + ": " + c.setting() + " is " + size + " already; nothing changed");
      try {
        c.set(size);
      } catch (Throwable t) {
        return failed(name, c, size, from, core, max, t);
      }
      int newCore, newMax;
      try {
        newCore = c.core();
        newMax = c.max();
        to = c.size();
      } catch (Throwable t) {
        return failed(name, c, size, from, core, max, t);
      }
      if (newCore == core && newMax == max)
        return new ResizeResult(
            name,
            from,
            to,
            false,
            ResizeResult.FAILED,
            name + ": " + c.setting() + " stays " + to + ": the pool did not take " + size);
      if (!r.changed()) {
        r.originalCore = core;
        r.originalMax = max;
        r.originalSize = from;
      }
      original = r.originalSize;
      changedBy(r, c, newCore, newMax, to, by, why);
    }
    announce(undoName(st), name, c.setting(), from, to, original, by, why, false);
    return new ResizeResult(
        name,
        from,
        to,
        true,
        to == size ? ResizeResult.OK : ResizeResult.FAILED,
        name
            + ": "
            + c.setting()
            + " "
            + from
            + " → "
            + to
            + (to == size ? "" : " (the pool took " + to + ", not " + size + ")")
            + " (original "
            + original
            + "; undo: tine top "
            + pid
            + " --restore "
            + undoName(st)
            + ")");
  }

  /** A setter threw: put the sizes read before back, read them again and say so. */
  private ResizeResult failed(
      String name, SizeControl c, int size, int from, int core, int max, Throwable t) {
    Throwable cause = unwrap(t);
    String back;
    try {
      c.setPair(core, max);
      back = "left at " + c.size() + " (read back)";
    } catch (Throwable t2) {
      back = "and putting back " + from + " failed too: " + unwrap(t2);
    }
    int now;
    try {
      now = c.size();
    } catch (Throwable t3) {
      now = -1;
    }
    return new ResizeResult(
        name,
        from,
        now,
        now != from,
        ResizeResult.FAILED,
        name + ": could not set " + c.setting() + " to " + size + ": " + cause + "; " + back);
  }

  private void changedBy(
      SizeRecord r, SizeControl c, int core, int max, int size, String by, String why) {
    r.seenCore = core;
    r.seenMax = max;
    r.currentSize = size;
    r.resizeCount++;
    r.lastResizedBy = by + ": " + why;
    r.lastResizedAtMillis = System.currentTimeMillis();
    r.externalAtMillis = 0;
    r.external = "";
  }

  // ---------------------------------------------------------------------------------------------
  // Restore

  List<ResizeResult> restore(String q, boolean force, String by, String why) {
    by = orDefault(by, "unknown");
    why = orDefault(why, "restore");
    List<ResizeResult> out = new ArrayList<>();
    try {
      if (q != null && (q.equals("*") || q.equalsIgnoreCase("all"))) {
        for (PoolState st : rt.registry.all()) {
          boolean changed;
          synchronized (st.sizes) {
            changed = st.sizes.changed();
          }
          if (changed) out.add(restoreOne(st, force, by, why));
        }
        if (out.isEmpty())
          out.add(
              new ResizeResult(
                  "*",
                  -1,
                  -1,
                  false,
                  ResizeResult.OK,
                  "no pool was resized by the agent: nothing to restore"));
        return out;
      }
      Object found = find(q);
      if (found instanceof ResizeResult r) out.add(r);
      else out.add(restoreOne((PoolState) found, force, by, why));
    } catch (Throwable t) {
      rt.failed(t);
      out.add(ResizeResult.refused(q, -1, ResizeResult.FAILED, q + ": " + unwrap(t)));
    }
    return out;
  }

  private ResizeResult restoreOne(PoolState st, boolean force, String by, String why) {
    Object target = target(st);
    if (target instanceof ResizeResult refused) return refused;
    String name = ((Target) target).name();
    SizeControl c = ((Target) target).control();
    SizeRecord r = st.sizes;
    int from, to, original;
    synchronized (r) {
      int core, max;
      Object read = readSizes(name, c);
      if (read instanceof ResizeResult unreadable) return unreadable;
      core = ((Sizes) read).core();
      max = ((Sizes) read).max();
      from = ((Sizes) read).size();
      if (!r.changed())
        return new ResizeResult(
            name,
            from,
            from,
            false,
            ResizeResult.OK,
            name
                + ": not resized by the agent ("
                + c.setting()
                + " "
                + from
                + "); nothing to restore");
      noteExternal(r, c, core, max);
      original = r.originalSize;
      if (r.externalAtMillis != 0 && !force)
        return ResizeResult.refused(
            name,
            from,
            ResizeResult.RESIZED_BY_ANOTHER,
            name
                + ": "
                + r.external
                + "; not restored (--force puts back the original "
                + original
                + ")");
      try {
        c.setPair(r.originalCore, r.originalMax);
        to = c.size();
        int newCore = c.core(), newMax = c.max();
        r.originalCore = r.originalMax = r.originalSize = -1;
        changedBy(r, c, newCore, newMax, to, by, why);
      } catch (Throwable t) {
        return failed(name, c, original, from, core, max, t);
      }
    }
    if (from != to) announce(undoName(st), name, c.setting(), from, to, original, by, why, true);
    return new ResizeResult(
        name,
        from,
        to,
        from != to,
        to == original ? ResizeResult.OK : ResizeResult.FAILED,
        name
            + ": "
            + c.setting()
            + " "
            + from
            + " → "
            + to
            + " (restored: the size before the agent first changed it)");
  }

  /** Before the agent stops: every pool it changed gets its original sizes back. */
  void restoreAll() {
    for (ResizeResult r : restore("*", false, "tine-agent", "the agent stops")) {
      if (!r.ok()) log("tine-agent: " + r.message());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Watch (ticker)

  /** At a tick: the pool's sizes now, and whether someone else changed them since the last look. */
  void watch(PoolState st) {
    if (st.frozen) return;
    Object pool = st.ref.get();
    if (pool == null) return;
    SizeRecord r = st.sizes;
    Sizing s;
    try {
      s = PoolSizing.of(st, pool);
    } catch (RuntimeException e) {
      rt.failed(e);
      return;
    }
    SizeControl c = s.control();
    int size = -1;
    synchronized (r) {
      r.resizable = c != null && !s.unlessForced();
      r.notResizableWhy =
          s.refusal() == null
              ? ""
              : s.refusal() + (s.unlessForced() ? " (--force resizes it)" : "");
      r.setting = c == null ? "" : c.setting();
      if (c != null) {
        try {
          int core = c.core(), max = c.max();
          size = c.size();
          noteExternal(r, c, core, max);
          r.seenCore = core;
          r.seenMax = max;
        } catch (Throwable t) {
          rt.failed(t);
          size = -1;
        }
      }
      r.currentSize = size;
    }
    PoolFigures f = st.figures;
    if (f != null) {
      f.currentSize = size;
      f.originalSize = size < 0 ? -1 : r.originalOrCurrent();
    }
  }

  /** Under r's monitor: the sizes read now differ from the ones last seen or set: not the agent. */
  private static void noteExternal(SizeRecord r, SizeControl c, int core, int max) {
    if (r.seenCore < 0 || (core == r.seenCore && max == r.seenMax)) return;
    boolean onCore = c.effective() == SizeControl.Effective.CORE;
    int a = onCore ? r.seenCore : r.seenMax, b = onCore ? core : max;
    r.externalAtMillis = System.currentTimeMillis();
    r.external =
        "resized by another tool at "
            + Instant.ofEpochMilli(r.externalAtMillis).truncatedTo(ChronoUnit.SECONDS)
            + " ("
            + (a != b
                ? "from " + a + " to " + b
                : "core/maximum " + r.seenCore + "/" + r.seenMax + " to " + core + "/" + max)
            + ")";
    r.seenCore = core;
    r.seenMax = max;
  }

  // ---------------------------------------------------------------------------------------------
  // Visible in the target

  /** The log line and the JFR event of one change. */
  private void announce(
      String undo,
      String pool,
      String setting,
      int from,
      int to,
      int original,
      String by,
      String why,
      boolean restore) {
    log(
        "tine-agent: pool "
            + pool
            + ": "
            + setting
            + " "
            + from
            + " -> "
            + to
            + (restore ? " (restored to the original)" : " (original " + original + ")")
            + ", requested by "
            + by
            + ": "
            + why
            + (restore ? "" : "; undo: tine top " + pid + " --restore " + undo));
    if (AgentRuntime.jfr()) {
      try {
        PoolResizedEvent.emit(pool, setting, from, to, original, why, by);
      } catch (Throwable t) {
        rt.failed(t);
      }
    }
  }

  /**
   * One line on the application's log: {@code System.getLogger}, which a server's logging picks up
   * (Tomcat's JULI, Spring Boot's bridge to logback); without configuration, the JDK's console
   * handler writes it to standard error. Looked up at the first change, never at the agent's start
   * (that would set up the application's logging before the application does).
   */
  private void log(String line) {
    try {
      System.getLogger("dev.tine.agent").log(System.Logger.Level.INFO, line);
    } catch (Throwable t) {
      rt.failed(t);
    }
  }

  /**
   * The pool as {@code --restore} names it, quoted for a shell: by {@code #id} where its name is
   * one that {@code --restore} reads as every pool ({@code all}, {@code *}).
   */
  static String undoName(PoolState st) {
    String n = st.figures != null ? st.figures.name : null;
    return n == null || n.equals("*") || n.equalsIgnoreCase("all")
        ? "'#" + st.id + "'"
        : shellWord(n);
  }

  private static String shellWord(String s) {
    return s.matches("[A-Za-z0-9_.,:/@%+=-][A-Za-z0-9_.,:/@#%+=-]*")
        ? s
        : "'" + s.replace("'", "'\\''") + "'";
  }

  private static String orDefault(String s, String d) {
    return s == null || s.isBlank() ? d : s.strip();
  }

  private static Throwable unwrap(Throwable t) {
    while (t instanceof InvocationTargetException && t.getCause() != null) t = t.getCause();
    return t;
  }
}

package dev.tine.agent.tune;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line of {@code tine tune}'s output: what it did (or, in dry-run, would do) to one pool, from
 * what size to what, and why, with the figures.
 *
 * @param atMillis when (epoch ms)
 * @param pool the pool's name
 * @param action what was done
 * @param from the size before (-1: none)
 * @param to the size after (-1: none)
 * @param why the figures behind it, in words
 */
public record Decision(long atMillis, String pool, Action action, int from, int to, String why) {
  /** What {@code tine tune} did to a pool. */
  public enum Action {
    /** Dry-run: the size it would set. */
    WOULD_RESIZE("would resize"),
    /** Resized. */
    RESIZED("resized"),
    /** A change passed its check in the two settled windows after it. */
    KEPT("kept"),
    /** A change did not help: the size before it is back, and the pool is left there. */
    STEPPED_BACK("stepped back"),
    /** The check failed (throughput down or p99 wait up): the original size is back. */
    RESTORED("restored"),
    /** Someone else resized the pool: tune leaves it. */
    BACKED_OFF("backs off"),
    /** The pool's size cannot be set, or the target refused the change. */
    REFUSED("leaves"),
    /** A settled window, and why nothing changed ({@code --verbose}). */
    HOLD("holds"),
    /** The pool sizes itself ({@code MeasuredExecutor}'s self-sizing): tune uses that. */
    SELF_SIZING("self-sizing");

    public final String word;

    Action(String word) {
      this.word = word;
    }
  }

  /** The line for people: {@code 01:02:03 would resize http-nio-8080-exec 2 → 7: why}. */
  public String line() {
    String t = Instant.ofEpochMilli(atMillis).toString().substring(11, 19);
    String sizes = from >= 0 && to >= 0 ? " " + from + " → " + to : from >= 0 ? " at " + from : "";
    return t + " " + action.word + " " + pool + sizes + ": " + why;
  }

  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("time", Instant.ofEpochMilli(atMillis).toString());
    m.put("pool", pool);
    m.put("action", action.name().toLowerCase(java.util.Locale.ROOT));
    m.put("from", from);
    m.put("to", to);
    m.put("why", why);
    return m;
  }
}

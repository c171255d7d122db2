package dev.tine.agent.resize;

/**
 * What a resize or a restore did to one pool: its effective size {@code from} and {@code to} (equal
 * when nothing changed), whether it changed, the exit code {@code tine top} returns for it and a
 * one-line message for the user. The agent's MXBean answers {@link #encode() one line of text} (an
 * MXBean can return no record); {@link #parse} reads it back on the client's side.
 *
 * @param pool the pool's name as {@code tine top} shows it (or what was asked for, if no pool
 *     matched)
 * @param from the effective size before (-1 if unknown)
 * @param to the effective size after, read back from the pool (-1 if unknown)
 * @param changed whether the pool's sizes changed
 * @param exitCode {@link #OK} or one of the refusals' codes
 * @param message one line for the user: what changed and how to undo it, or why nothing did
 */
public record ResizeResult(
    String pool, int from, int to, boolean changed, int exitCode, String message) {
  /** Done (also: the pool had that size already). */
  public static final int OK = 0;

  /** The change failed in the target; the pool was put back as it was (the message says). */
  public static final int FAILED = 1;

  /** Bad input: a size ≤ 0, not a number, or above {@link #MAX_SIZE}. */
  public static final int BAD_INPUT = 2;

  /** The pool's size cannot be changed at run time (the message says why). */
  public static final int NOT_RESIZABLE = 7;

  /** No pool of the agent's has that name (or the prefix names several). */
  public static final int NO_SUCH_POOL = 8;

  /**
   * Another tool changed the pool's size since the agent last saw it: not changed without force.
   */
  public static final int RESIZED_BY_ANOTHER = 9;

  /** No agent runs in the target; nothing was loaded and nothing changed. */
  public static final int NO_AGENT = 10;

  /**
   * The largest size accepted: beyond it a typo (an extra zero) would start thousands of threads,
   * each with its stack, in a production JVM.
   */
  public static final int MAX_SIZE = 10_000;

  public ResizeResult {
    message = message == null ? "" : message.replace('\t', ' ').replace('\n', ' ');
    pool = pool == null ? "" : pool.replace('\t', ' ').replace('\n', ' ');
  }

  /** A refusal: nothing changed. */
  public static ResizeResult refused(String pool, int size, int exitCode, String message) {
    return new ResizeResult(pool, size, size, false, exitCode, message);
  }

  /** Whether the request succeeded (changed or already at that size). */
  public boolean ok() {
    return exitCode == OK;
  }

  /** One line: code, pool, from, to, changed, message, tab-separated. */
  public String encode() {
    return exitCode + "\t" + pool + "\t" + from + "\t" + to + "\t" + changed + "\t" + message;
  }

  /** Reads {@link #encode()}'s line back. */
  public static ResizeResult parse(String line) {
    String[] p = line.split("\t", 6);
    if (p.length != 6) throw new IllegalArgumentException("not a resize result: " + line);
    return new ResizeResult(
        p[1],
        Integer.parseInt(p[2]),
        Integer.parseInt(p[3]),
        Boolean.parseBoolean(p[4]),
        Integer.parseInt(p[0]),
        p[5]);
  }

  /**
   * Checks a requested size: null if it is one, else why not ({@link #BAD_INPUT}).
   *
   * @param size the size asked for
   * @return null, or the reason in a few words
   */
  public static String checkSize(long size) {
    if (size <= 0) return "a pool size must be at least 1, was " + size;
    if (size > MAX_SIZE)
      return "a pool size above " + MAX_SIZE + " is refused (a typo?), was " + size;
    return null;
  }
}

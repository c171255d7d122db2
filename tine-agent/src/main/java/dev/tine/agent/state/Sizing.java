package dev.tine.agent.state;

/**
 * Whether a pool's size can be set at run time: a {@link SizeControl}, or the reason it cannot (one
 * line, for the user).
 *
 * @param control how to set it, or null
 * @param refusal why not, or null
 * @param unlessForced whether the refusal is a judgement that {@code --force} overrides (a
 *     single-thread pool), with {@code control} set
 */
public record Sizing(SizeControl control, String refusal, boolean unlessForced) {
  public static Sizing of(SizeControl c) {
    return new Sizing(c, null, false);
  }

  public static Sizing refuse(String why) {
    return new Sizing(null, why, false);
  }

  /** Refused unless forced: {@code control} would do it. */
  public static Sizing refuseUnlessForced(SizeControl c, String why) {
    return new Sizing(c, why, true);
  }
}

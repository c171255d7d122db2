package dev.tine.agent.tune;

/**
 * What {@code tine tune} needs of the target to act on a pool: its size set, its original size put
 * back, and whether someone else changed it. {@link AgentActuator} does it over the agent's MXBean;
 * tests use their own.
 */
public interface Actuator {
  /** What the target answered: done (with the size before), or refused, with why in one line. */
  record Outcome(boolean done, int from, int to, String message, boolean resizedByOther) {
    public static Outcome done(int from, int to, String message) {
      return new Outcome(true, from, to, message, false);
    }

    public static Outcome refused(String why) {
      return new Outcome(false, -1, -1, why, false);
    }

    /** Refused because someone else resized the pool since the agent last looked. */
    public static Outcome resizedByOther(String why) {
      return new Outcome(false, -1, -1, why, true);
    }
  }

  /** Sets the pool's effective size; {@code why} goes with the change into the target's record. */
  Outcome resize(PoolWindow pool, int size, String why);

  /** Puts the pool's original size back. */
  Outcome restore(PoolWindow pool, String why);

  /**
   * Why the pool's size cannot be set at run time (a fork/join pool's parallelism, ...), or null if
   * it can.
   */
  String notResizable(PoolWindow pool);

  /**
   * Who else resized the pool since {@code tine tune} last set it or first saw it ({@code
   * sizeTuneKnows}), in words, or null if nobody did.
   */
  String resizedByOther(PoolWindow pool, int sizeTuneKnows);
}

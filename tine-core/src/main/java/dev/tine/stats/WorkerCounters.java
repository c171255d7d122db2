package dev.tine.stats;

import java.lang.invoke.VarHandle;

/**
 * One worker's event counters. Written only by the worker that owns them, with plain increments (no
 * atomics, no shared words on the hot path). Any thread may read them after an acquire fence: a
 * snapshot is a slightly stale reading of monotonic counters (64-bit HotSpot never tears a long).
 *
 * <p>The padding before and after keeps the counters of neighbouring workers, which are allocated
 * together, on different cache lines: without it the owners' increments would false-share.
 *
 * <p>Public only so that the runtime's packages can share it; the module does not export it.
 */
public final class WorkerCounters {
  /** Indices for {@link #read}, in table order. */
  public static final int EXECUTED = 0,
      FORKS = 1,
      LOCAL_POPS = 2,
      STEALS = 3,
      FAILED_STEALS = 4,
      JOINS = 5,
      JOINS_HELPED = 6,
      JOINS_BLOCKED = 7,
      PARKS = 8,
      IDLE_NANOS = 9,
      LATENT_FORKS = 10,
      PROMOTIONS = 11,
      PROMOTED_STOLEN = 12,
      INLINE_JOINS = 13,
      CLAIMS = 14,
      COUNT = 15;

  @SuppressWarnings("unused")
  private long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;

  public long executed;

  /** Eager forks (pushed at once); {@link #read} adds the latent ones to report all forks. */
  public long forks;

  public long localPops;
  public long steals;
  public long failedSteals;
  public long joins;
  public long joinsHelped;
  public long joinsBlocked;
  public long parks;
  public long idleNanos;

  /**
   * {@code Task} forks recorded latent (primitive and scope joins' latent halves are counted in
   * their worker's latent stack, and reported among all forks).
   */
  public long latentForks;

  /** Latent entries moved to the deque. */
  public long promotions;

  /** Promoted tasks that a thief took. */
  public long promotedStolen;

  /**
   * Joins of a never-promoted fork: a direct call. To keep that path to one increment, these are
   * not also counted in {@link #executed} and {@link #joins}; {@link #read} adds them in.
   */
  public long inlineJoins;

  /** Latent forks taken from a worker that was blocked outside Tine (see LatentStack). */
  public long claims;

  /**
   * Primitive and scope joins of the workers that have left this slot: second halves recorded
   * latent, and those taken back by their own join. A live worker keeps its own in its latent
   * stack, where the join's fast path counts them; the pool's stats table adds those in.
   */
  public long retiredFunctionForks, retiredFunctionJoins;

  @SuppressWarnings("unused")
  private long p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;

  /** Copies the counters into {@code out} (length {@link #COUNT}); any thread. */
  public void read(long[] out) {
    VarHandle.acquireFence();
    out[EXECUTED] = executed + inlineJoins;
    out[FORKS] = forks + latentForks + retiredFunctionForks;
    out[LOCAL_POPS] = localPops;
    out[STEALS] = steals;
    out[FAILED_STEALS] = failedSteals;
    out[JOINS] = joins + inlineJoins + retiredFunctionJoins;
    out[JOINS_HELPED] = joinsHelped;
    out[JOINS_BLOCKED] = joinsBlocked;
    out[PARKS] = parks;
    out[IDLE_NANOS] = idleNanos;
    out[LATENT_FORKS] = latentForks;
    out[PROMOTIONS] = promotions;
    out[PROMOTED_STOLEN] = promotedStolen;
    out[INLINE_JOINS] = inlineJoins;
    out[CLAIMS] = claims;
  }
}

package dev.tine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.locks.LockSupport;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The claim protocol of {@link LatentStack}, second half: an owner that wakes up while a claim is
 * in progress must wait for it, so that each entry is taken exactly once.
 *
 * <p>The owner records its thread, pushes A then B, parks briefly (TIMED_WAITING: claimable), then
 * pops twice (B, then A unless it was claimed). The claimer waits until it sees the owner parked
 * (or done), then calls {@code claimOldest(owner, promoter)}, which takes A. Its promoter, called
 * between the claimer's thread-state check and its commit stores, stalls until the owner has woken
 * up and a few microseconds more (as a promoter's allocation can stall in a GC), so the owner's
 * pops run while the claim is in progress; {@code popTask}'s read of the claim word must make them
 * wait for it.
 *
 * <p>r1: bitmask of what the owner's pops took (A = 1, B = 2); r2: bitmask of what the claimer
 * took. Forbidden: an entry taken twice, or lost.
 *
 * <p>Planted bug it catches: {@code popTask} without its {@code claim != OPEN} check at the start.
 * Verified with {@code java --enable-native-access=ALL-UNNAMED -jar
 * tine-jcstress/target/jcstress.jar -t LatentClaimBlockedOwner -m quick -time 50 -iters 1 -fsm 0}:
 * (3, 1) FORBIDDEN in 2 runs of 2, 5,750 of 11,430 and 13,780 of 36,703 samples. A claim that skips
 * the thread-state check is not caught here (the claimer waits for the owner to park anyway);
 * {@link LatentClaimRunningOwner} catches it.
 */
@JCStressTest
@Description("LatentStack claim vs an owner waking up: each entry taken exactly once")
@Outcome(id = "3, 0", expect = ACCEPTABLE, desc = "no claim: the owner popped both")
@Outcome(
    id = "2, 1",
    expect = ACCEPTABLE,
    desc = "A claimed while the owner was parked; the owner popped B")
@Outcome(
    id = "3, 1",
    expect = FORBIDDEN,
    desc = "A taken twice: the owner popped it during the claim")
@Outcome(expect = FORBIDDEN, desc = "an entry lost or taken twice")
@State
public class LatentClaimBlockedOwner {
  static final Task<?> A = Task.of(() -> null), B = Task.of(() -> null);
  static final long PARK_NANOS = 10_000L;
  static final long STALL_LIMIT_NANOS = 1_000_000L;
  static final long STALL_AFTER_WAKE_NANOS = 5_000L;

  private final LatentStack stack = new LatentStack();
  private volatile Thread owner;
  private volatile boolean ownerDone;

  private final LatentStack.Promoter stallingPromoter =
      (item, arg, kind) -> {
        Thread o = owner;
        long start = System.nanoTime();
        while (blocked(o) && System.nanoTime() - start < STALL_LIMIT_NANOS) {
          Thread.onSpinWait();
        }
        long woke = System.nanoTime();
        while (System.nanoTime() - woke < STALL_AFTER_WAKE_NANOS) {
          Thread.onSpinWait();
        }
        return item;
      };

  static boolean blocked(Thread t) {
    Thread.State s = t.getState();
    return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
  }

  static int mask(Object x) {
    return x == A ? 1 : x == B ? 2 : x == null ? 0 : 4;
  }

  @Actor
  public void owner(II_Result r) {
    owner = Thread.currentThread();
    stack.pushTask(A);
    stack.pushTask(B);
    LockSupport.parkNanos(PARK_NANOS);
    int m = mask(stack.popTask());
    m |= mask(stack.popTask());
    r.r1 = m;
    ownerDone = true;
  }

  @Actor
  public void claimer(II_Result r) {
    Thread o;
    while ((o = owner) == null) {
      Thread.onSpinWait(); // the owner never waits for us
    }
    while (!ownerDone && !blocked(o)) {
      Thread.onSpinWait();
    }
    r.r2 = mask(stack.claimOldest(o, stallingPromoter));
  }
}

package dev.tine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The claim protocol of {@link LatentStack}, first half: a claimer must never take an entry from an
 * owner that is running (RUNNABLE).
 *
 * <p>The owner records its thread, pushes one entry, works a little (a fork's sibling computing:
 * the entry is latent meanwhile), and pops it. The claimer, as soon as it knows the owner's thread,
 * calls {@code claimOldest(owner, promoter)}. The owner never blocks, so every claim must see it
 * RUNNABLE and back off. (If the owner's thread happens to be parked by the harness before or after
 * its actor, its stack is empty then, so nothing can be claimed either.)
 *
 * <p>r1: the owner's pop returned the entry (1) or nothing (0). r2: the claimer took it (1), found
 * nothing (0), or never saw the owner's thread in time (-1). Forbidden: r2 = 1 (a claim from a
 * running owner: it can overlap the owner's own operations, whose plain accesses are not made for
 * that), and any outcome where the entry is taken twice or lost.
 *
 * <p>Planted bug it catches: {@code claimOldest} skipping the thread-state check (claims whatever
 * the owner is doing). Verified with {@code java --enable-native-access=ALL-UNNAMED -jar
 * tine-jcstress/target/jcstress.jar -t LatentClaimRunningOwner -m quick -time 50 -iters 1 -fsm 0}:
 * (0, 1) FORBIDDEN 245,220 times and (1, 1) 5 times in about a million samples. The other half, an
 * owner waking up during a claim, is {@link LatentClaimBlockedOwner}.
 */
@JCStressTest
@Description("LatentStack claim vs a running owner: the claim must back off")
@Outcome(
    id = {"1, 0", "1, -1"},
    expect = ACCEPTABLE,
    desc = "the owner popped its entry; no claim")
@Outcome(id = "0, 1", expect = FORBIDDEN, desc = "claimed from a running owner")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "entry taken twice")
@Outcome(expect = FORBIDDEN, desc = "entry lost")
@State
public class LatentClaimRunningOwner {
  static final Task<?> A = Task.of(() -> null);
  static final LatentStack.Promoter IDENTITY = (item, arg, kind) -> item;
  static final int WORK = 32;
  static final int WAIT_FOR_OWNER = 1 << 12;

  private final LatentStack stack = new LatentStack();
  private volatile Thread owner;

  @Actor
  public void owner(II_Result r) {
    owner = Thread.currentThread();
    stack.pushTask(A);
    for (int i = 0; i < WORK; i++) {
      Thread.onSpinWait();
    }
    r.r1 = stack.popTask() == A ? 1 : 0;
  }

  @Actor
  public void claimer(II_Result r) {
    Thread o = owner;
    for (int i = 0; o == null && i < WAIT_FOR_OWNER; i++) {
      Thread.onSpinWait();
      o = owner;
    }
    if (o == null) {
      r.r2 = -1;
      return;
    }
    Object x = stack.claimOldest(o, IDENTITY);
    r.r2 = x == null ? 0 : x == A ? 1 : 2;
  }
}

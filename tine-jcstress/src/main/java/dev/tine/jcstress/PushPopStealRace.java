package dev.tine.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.tine.deque.WorkDeque;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The owner pushes a second element and pops twice while two thieves steal once each, starting from
 * one element in a capacity-2 ring (so the push grows it). Every element (1 and 2) ends up in
 * exactly one place: r1 is the owner's bitmask of elements taken, r2 and r3 the thieves'.
 *
 * <p>Three actors need three CPUs: on a 2-CPU machine jcstress prints "No scheduling is possible"
 * and skips this test (exit 0). {@link PushGrowStealRace} covers the same race with two actors.
 */
@JCStressTest
@Description("push (with growth), two pops and two steals: each element taken exactly once")
@Outcome(
    id = {"3, 0, 0", "1, 2, 0", "1, 0, 2", "2, 1, 0", "2, 0, 1", "0, 1, 2", "0, 2, 1"},
    expect = ACCEPTABLE,
    desc = "each element taken once")
@Outcome(expect = FORBIDDEN, desc = "an element lost or taken twice")
@State
public class PushPopStealRace {
  private final WorkDeque<Integer> deque = new WorkDeque<>(2);

  public PushPopStealRace() {
    deque.push(1);
  }

  @Actor
  public void owner(III_Result r) {
    deque.push(2);
    int mask = 0;
    Integer x = deque.pop();
    if (x != null) mask |= x;
    x = deque.pop();
    if (x != null) mask |= x;
    r.r1 = mask;
  }

  @Actor
  public void thief1(III_Result r) {
    Integer x = deque.steal();
    r.r2 = x == null ? 0 : x;
  }

  @Actor
  public void thief2(III_Result r) {
    Integer x = deque.steal();
    r.r3 = x == null ? 0 : x;
  }

  @Arbiter
  public void leftovers(III_Result r) {
    // Anything still in the deque was lost by the protocol: pops ran until empty.
    if (deque.size() != 0) {
      r.r1 = -1;
    }
  }
}

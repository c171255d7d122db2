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
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link PushPopStealRace} with two actors, so that it runs on a 2-CPU machine: from one element in
 * a capacity-2 ring, the owner pushes a second (growing the ring) and pops twice while one thief
 * steals twice. Every element (1 and 2) ends up in exactly one place: r1 is the owner's bitmask of
 * elements taken, r2 the thief's.
 */
@JCStressTest
@Description(
    "push (with growth), two pops, two steals by one thief: each element taken exactly once")
@Outcome(
    id = {"3, 0", "1, 2", "2, 1", "0, 3"},
    expect = ACCEPTABLE,
    desc = "each element taken once")
@Outcome(expect = FORBIDDEN, desc = "an element lost or taken twice")
@State
public class PushGrowStealRace {
  private final WorkDeque<Integer> deque = new WorkDeque<>(2);

  public PushGrowStealRace() {
    deque.push(1);
  }

  @Actor
  public void owner(II_Result r) {
    deque.push(2);
    int mask = 0;
    Integer x = deque.pop();
    if (x != null) mask |= x;
    x = deque.pop();
    if (x != null) mask |= x;
    r.r1 = mask;
  }

  @Actor
  public void thief(II_Result r) {
    int mask = 0;
    Integer x = deque.steal();
    if (x != null) mask |= x;
    x = deque.steal();
    if (x != null) mask |= x;
    r.r2 = mask;
  }

  @Arbiter
  public void leftovers(II_Result r) {
    if (deque.size() != 0) {
      r.r1 = -1; // pops ran until empty: anything left was lost by the protocol
    }
  }
}

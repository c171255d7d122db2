package dev.tine.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.tine.deque.WorkDeque;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The owner pops and a thief steals the only element: exactly one of them gets it. The state is
 * built (one push) before the actors start, which hands ownership to the popping actor.
 */
@JCStressTest
@Description("pop and steal race on the last element: exactly one wins")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the owner's pop won")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the thief's steal won")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "the element was taken twice")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "the element was lost")
@State
public class LastElementRace {
  private final WorkDeque<Integer> deque = new WorkDeque<>();

  public LastElementRace() {
    deque.push(1);
  }

  @Actor
  public void owner(II_Result r) {
    Integer x = deque.pop();
    r.r1 = x == null ? 0 : x;
  }

  @Actor
  public void thief(II_Result r) {
    Integer x = deque.steal();
    r.r2 = x == null ? 0 : x;
  }
}

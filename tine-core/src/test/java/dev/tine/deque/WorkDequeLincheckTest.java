package dev.tine.deque;

import java.util.ArrayDeque;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking of {@link WorkDeque} against a sequential deque: push and pop run only in
 * the owner's thread (one non-parallel group), steal in any thread. Capacity 2 makes pushes grow
 * the ring, so growth interleaves with steals too.
 */
public class WorkDequeLincheckTest {
  private final WorkDeque<Integer> deque = new WorkDeque<>(2);

  @Operation(nonParallelGroup = "owner")
  public void push(int x) {
    deque.push(x);
  }

  @Operation(nonParallelGroup = "owner")
  public Integer pop() {
    return deque.pop();
  }

  @Operation
  public Integer steal() {
    return deque.steal();
  }

  @Test
  void modelChecking() {
    new ModelCheckingOptions()
        .iterations(40)
        .invocationsPerIteration(1000)
        .threads(3)
        .actorsPerThread(3)
        .minimizeFailedScenario(false)
        .sequentialSpecification(Spec.class)
        .check(this.getClass());
  }

  /** The sequential specification: a plain deque; owner at the tail, thieves at the head. */
  public static class Spec {
    private final ArrayDeque<Integer> d = new ArrayDeque<>();

    public void push(int x) {
      d.addLast(x);
    }

    public Integer pop() {
      return d.pollLast();
    }

    public Integer steal() {
      return d.pollFirst();
    }
  }
}

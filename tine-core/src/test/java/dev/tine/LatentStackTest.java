package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** The owner-side bookkeeping of latent forks: slots, promotion holes, growth and shrinking. */
class LatentStackTest {

  /** A promoter that leaves a task as itself (what promotion does with a task entry). */
  private static final LatentClaims.Promoter ITSELF = (item, arg, kind) -> item;

  private static Task<?> task() {
    return Task.of(() -> null);
  }

  /**
   * A worker that promotes its oldest fork at the stack's low point and then joins everything (the
   * fork-every pattern at parallelism 2). The live range must not creep up by one slot per
   * promotion, or a long-lived pool's arrays grow until G1 allocates them as humongous (old).
   */
  @Test
  void promotionsDoNotMakeTheStackCreepOrGrow() {
    LatentStack s = new LatentStack();
    Task<?> a0 = task();
    for (int round = 0; round < 1_000_000; round++) {
      Task<?> a = task(), b = task(), c = task();
      s.pushTask(a);
      assertSame(a, s.takeOldest(ITSELF)); // promote a: its slot becomes a dead hole
      s.pushTask(b);
      s.pushTask(c);
      assertSame(c, s.popTask());
      assertSame(b, s.popTask());
      assertNull(s.popTask(), "a was promoted: not ours to pop");
    }
    s.pushTask(a0);
    assertEquals(1, s.top(), "indices fall back over the promoted hole (at the next push)");
    assertEquals(LatentStack.INITIAL_CAPACITY, s.capacity());
  }

  /**
   * Below {@link LatentStack#RECORD_DEPTH} latent entries a scope push records nothing and says so;
   * a hungry thief (the restock word set) makes it record again.
   */
  @Test
  void aScopePushBelowTheOutermostForksRecordsNothingUnlessAThiefIsHungry() {
    LatentStack s = new LatentStack();
    Scope.IntToLong fn = (t, i) -> i;
    int kind = JoinKinds.SCOPE_INT_TO_LONG;
    for (int i = 0; i <= LatentStack.RECORD_DEPTH; i++) s.pushFunction(fn, i, kind);
    assertTrue(s.tryPopFunction(LatentStack.RECORD_DEPTH)); // leaves fn in its slot, as a join does
    long forks = s.functionForks;
    assertEquals(LatentStack.NOT_RECORDED, s.tryPushFunction(fn, 99));
    assertEquals(LatentStack.RECORD_DEPTH, s.size(), "nothing recorded");
    assertEquals(forks, s.functionForks, "and not counted: it forks nothing");
    s.dequeEmptied = 1;
    assertEquals(LatentStack.RECORD_DEPTH, s.tryPushFunction(fn, 99), "hungry: recorded");
    assertEquals(LatentStack.RECORD_DEPTH + 1, s.size());
    assertEquals(99, s.arg(LatentStack.RECORD_DEPTH));
  }

  @Test
  void aDeepStackGrowsAndShrinksBackAtRotation() {
    LatentStack s = new LatentStack();
    Task<?> x = task();
    for (int i = 0; i < 100_000; i++) s.pushTask(x);
    assertTrue(s.capacity() >= 100_000);
    for (int i = 0; i < 100_000; i++) assertSame(x, s.popTask());
    for (int i = 0; i < 2 * LatentStack.ROTATE_EVERY; i++) {
      s.pushTask(x);
      s.popTask();
    }
    assertEquals(
        LatentStack.INITIAL_CAPACITY,
        s.capacity(),
        "mostly unused arrays are halved at each rotation");
  }

  /** A promoted primitive join's placeholder stays at its slot until its joiner takes it. */
  @Test
  void aPromotedPlaceholderKeepsItsSlot() {
    LatentStack s = new LatentStack();
    Object fn = new Object(), job = new Object();
    Task<?> t = task();
    int slot = s.pushFunction(fn, 7L, LatentStack.KIND_FIRST_FUNCTION);
    assertSame(job, s.takeOldest((item, arg, kind) -> job));
    s.pushTask(t);
    assertSame(t, s.takeOldest(ITSELF)); // t promoted as well, above the placeholder
    assertEquals(0, s.size());
    s.pushTask(t);
    assertSame(t, s.popTask()); // the range empties: fall back over t's hole, not the placeholder
    assertEquals(slot + 1, s.top());
    assertSame(job, s.item(slot));
    s.truncate(slot);
    assertEquals(0, s.top());
  }

  /**
   * A task push stores no kind byte: a task entry is one whose item is a task. A task pushed where
   * a scope pop left a function (and that function's kind byte) must still be read, promoted and
   * claimed as a task; read by the stale byte, a promoter would wrap it in a job for a function.
   */
  @Test
  void aTaskPushedOverAFunctionsKindIsStillATask() throws Exception {
    LatentStack s = new LatentStack();
    Object fn = new Object();
    s.pushTask(task()); // a non-empty stack, so the next pushes take the usual path
    int slot = s.pushFunction(fn, 7L, LatentStack.KIND_FIRST_FUNCTION);
    assertTrue(s.tryPopFunction(slot)); // leaves fn and its kind in the slot, above top
    Task<?> t = task();
    assertEquals(slot, s.pushTask(t));
    assertEquals(LatentStack.KIND_TASK, s.kind(slot));
    s.takeOldest(ITSELF); // the first task promoted: t is now the oldest

    Thread owner = new Thread(LockSupport::park);
    owner.setDaemon(true);
    owner.start();
    while (owner.getState() != Thread.State.WAITING) {
      Thread.onSpinWait();
    }
    int[] seen = {-1};
    Object made =
        s.claimOldest(
            owner,
            (item, arg, kind) -> {
              seen[0] = kind;
              return item;
            });
    LockSupport.unpark(owner);
    owner.join();
    assertSame(t, made, "claimed");
    assertEquals(LatentStack.KIND_TASK, seen[0], "the claimer saw the entry as a task");
  }
}

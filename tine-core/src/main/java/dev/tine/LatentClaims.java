package dev.tine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The claim protocol of a latent stack: how an idle worker takes the oldest latent fork of an owner
 * that is blocked outside Tine (parked or waiting), so that forks made just before a {@code
 * latch.await()} still run elsewhere. {@link LatentStack} extends it with the stack itself; this
 * class holds only the word that owner and claimer meet on, and both sides of the protocol.
 *
 * <p>The owner touches the stack with plain loads and stores, except for one opaque read of {@code
 * claim} at the start of each operation that reads or removes entries (a plain load on x86 and ARM;
 * opaque so that it is really made). Another thread touches the stack only through {@link
 * #claimOldest}, and only while the owner is blocked. The protocol:
 *
 * <ol>
 *   <li>The claimer CASes {@code claim} from OPEN or CLAIMED to CLAIMING (a full fence), then reads
 *       the owner's thread state, and proceeds only if it is WAITING or TIMED_WAITING.
 *   <li>Every owner operation that reads or removes entries, moves {@code bottom} or replaces the
 *       arrays (every one but a plain push onto a non-empty stack, see {@code LatentStack.prepare})
 *       starts by reading {@code claim}; if it is not OPEN the owner waits while it is CLAIMING,
 *       then sets it back to OPEN ({@link #reconcile}). No owner operation blocks between that read
 *       and its last access. The read is opaque: a load of a field that reads OPEN proves no claim
 *       was made since the last reconcile (a claim leaves CLAIMED until the owner resets it), and a
 *       claimer that starts later finds the owner RUNNABLE and backs off without writing, so the
 *       owner's other loads may move around it freely; reconcile's CAS is what makes the claimer's
 *       writes visible.
 *   <li>So a claim cannot overlap an owner operation: if the owner read OPEN, that read precedes
 *       the claimer's CAS, and the owner has been RUNNABLE since before it. HotSpot stores a
 *       thread's RUNNABLE state when it leaves park/wait/sleep and then executes a full fence
 *       before the thread runs Java code again (the native-call return path), so the claimer's
 *       state read, which follows its CAS, sees RUNNABLE and backs off. Conversely, if the claimer
 *       saw the owner blocked, the owner's first operation after waking sees CLAIMING or CLAIMED.
 *   <li>The owner's writes before it blocked are visible to the claimer (the JVM fences on the way
 *       into park/wait); the claimer's writes are visible to the owner through {@code claim}
 *       (release store by the claimer, volatile read by the owner).
 * </ol>
 *
 * BLOCKED (monitor entry) is not claimed: the JVM's monitor slow path does not promise that fence.
 * Neither is a thread blocked in native I/O (its state is RUNNABLE); {@code managedBlock} is the
 * API for blocking that Tine should know about. A JVM that drops the fence ({@code
 * -XX:+UseSystemMemoryBarrier}) gets no claims at all ({@link ClaimSupport}).
 *
 * <p>"Claim" means only this in the runtime: an idle worker taking a blocked owner's latent fork
 * (counted by {@code PoolStats.claims()}).
 */
abstract class LatentClaims {
  static final int OPEN = 0, CLAIMING = 1, CLAIMED = 2;

  static final VarHandle CLAIM;

  static {
    try {
      CLAIM = MethodHandles.lookup().findVarHandle(LatentClaims.class, "claim", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** OPEN, CLAIMING (a claimer is taking entries) or CLAIMED (entries were taken; owner resets). */
  private volatile int claim;

  /** What a latent entry becomes when it leaves the stack: the task itself, or a job. */
  interface Promoter {
    Object promote(Object item, long arg, int kind);
  }

  /**
   * The stack's own take of its oldest entry, with no claim check: returns what {@code promoter}
   * made of it, the entry committed out of the latent range, or null if there is none. Its commit
   * is its last act (stores only), so the caller's {@code inHand} store follows it with nothing but
   * returns in between (see {@link Worker}'s class comment).
   */
  abstract Object takeOldestUnchecked(Promoter promoter);

  /**
   * Owner: a claimer took, or is taking, entries while we were blocked. Wait for it to finish (a
   * few stores), then reopen. Spins and yields rather than parking: parking would make us look
   * blocked again.
   */
  final void reconcile() {
    for (int spins = 0; ; spins++) {
      int c = claim;
      if (c == OPEN) {
        return;
      }
      if (c == CLAIMED && CLAIM.compareAndSet(this, CLAIMED, OPEN)) {
        return;
      }
      if (spins < 64) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
  }

  /**
   * Any thread but the owner: if {@code owner} is blocked (WAITING or TIMED_WAITING), takes the
   * oldest latent entry and returns what {@code promoter} made of it; else null. The claimed entry
   * is no longer latent for the owner, who finds it gone (a task) or finds the job in its slot (a
   * primitive join). The take is the owner's promotion's take ({@link #takeOldestUnchecked}).
   */
  final Object claimOldest(Thread owner, Promoter promoter) {
    int c = claim;
    if (c == CLAIMING || !CLAIM.compareAndSet(this, c, CLAIMING)) {
      return null;
    }
    int after = c; // restored below whatever happens: the owner waits while CLAIMING
    Object taken = null;
    try {
      Thread.State st = owner.getState();
      if (st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING) {
        taken = takeOldestUnchecked(promoter);
        if (taken != null) {
          after = CLAIMED;
        }
      }
    } finally {
      claim = after; // a release store: publishes the commit to the owner's next operation
    }
    return taken;
  }
}

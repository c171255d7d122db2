package dev.tine;

import java.lang.invoke.VarHandle;

/**
 * A worker's latent forks: forks recorded with plain stores, invisible to thieves, that the owner
 * either runs itself (an inline join: a direct call) or promotes, oldest first, into its public
 * deque when some worker is hungry.
 *
 * <p>Entries {@code [bottom, top)} are latent; {@code bottom} rises as entries are promoted. An
 * entry is either a task (its item is the {@link Task}; no kind byte is stored for it) or a
 * primitive join's second half: a function object (or a {@code JoinKinds.Ambiguous} wrapper around
 * one) in {@code items}, its argument in {@code args} and its kind (which functional interface) in
 * {@code kinds}. A function item is never a {@code Task}: {@code LatentJoins.itemFor} wraps any
 * object with more than one join kind, and being a task counts as one ({@code
 * JoinKinds.SINGLE_KIND}), so "the item is a task" is what tells the two apart ({@link #kind}).
 * Once a primitive-join entry is promoted, its slot (below {@code bottom}) holds the job task that
 * carries it, for the joiner to pick up.
 *
 * <h2>Who touches it</h2>
 *
 * The owner, with plain loads and stores after a claim check; another thread only through {@link
 * #claimOldest} while the owner is blocked outside Tine. The protocol that keeps the two apart is
 * {@link LatentClaims}'s. Both take the oldest entry with the same operation ({@link
 * #takeOldestUnchecked}).
 *
 * <h2>Errors inside</h2>
 *
 * A {@link StackOverflowError} can be thrown at any call, including one that this class makes; an
 * interpreted {@link VarHandle} access is a call too. Every method that changes state therefore
 * makes its calls first and then its stores, with no call among the stores (a "leaf" commit), so an
 * overflow leaves the stack as it was before the operation. {@link #prepare} makes the calls of a
 * push (rotation, settling); pops and commits call nothing.
 *
 * <p><b>Why the arrays are replaced now and then.</b> Storing a young object into an old array
 * takes G1's post-write barrier slow path on JDK 25, which includes a StoreLoad fence: measured
 * 5.5x sequential for a fork-per-call fib with a long-lived array, 2.6x with an array kept young.
 * So every {@link #ROTATE_EVERY} pushes the live part moves to a fresh (young) array; the copy is a
 * few dozen slots, amortized over 65k pushes.
 *
 * <p><b>Why the indices fall back and the arrays shrink.</b> A promoted task leaves a dead slot
 * below {@code bottom}, and {@code top} cannot pop below {@code bottom}, so with each promotion
 * made at the stack's low point the live range crept up by one slot, for good. Over a long-lived
 * pool the arrays doubled until they were humongous: G1 allocates those in the old generation, so
 * every push took the slow write barrier again (after paper-size LU in one bench JVM: quicksort p=2
 * Tine/JDK 1.82). So when a push finds the latent range empty, {@code bottom} and {@code top} first
 * fall back over dead slots (a primitive join's placeholder is not dead: its joiner still reads
 * it), and a rotation halves arrays that are mostly unused.
 *
 * <p>{@link Scope} extends it: each worker's scope is its latent stack, so a scope join reaches
 * {@code top} and the arrays without a dependent load through another object (the measurements are
 * in the latent-forks design note). Package-private, so none of this is part of {@code Scope}'s
 * public face.
 */
class LatentStack extends LatentClaims {
  static final int KIND_TASK = 0;

  /** Primitive-join kinds: which functional interface the item is; assigned by the runtime. */
  static final int KIND_FIRST_FUNCTION = 1;

  static final int ROTATE_EVERY = 1 << 16;

  static final int INITIAL_CAPACITY = 64;

  /**
   * How many latent entries a scope join keeps before it stops recording: a join that finds this
   * many latent forks below it, and no hungry thief ({@link #dequeEmptied} zero), runs both halves
   * here without recording the second ({@link #NOT_RECORDED}). The oldest entries are the ones
   * promoted, so the ones kept are the outermost, largest pieces of the recursion; the deep joins,
   * nearly all of a fine-grained recursion's joins, cost a plain call. Measured for fork-every fib
   * at p=1 (the latent-forks design note): 2, 4 and 6 read the same, 10 and 16 slower.
   */
  static final int RECORD_DEPTH = 6;

  /**
   * {@link #tryPushFunction}'s answer for a join it did not record: the second half runs here after
   * the first, as a plain call; nothing to pop or take back. Forks the first half left unjoined
   * stay on the stack for the next recorded join above (whose take-back runs them before its own
   * second half) or the worker's run loop: looking for them after each unrecorded first half (a
   * load of {@code top} against a mark kept across the call) cost 0.15-0.2 of sequential per
   * fork-every join (the latent-forks design note), so the join does not look.
   */
  static final int NOT_RECORDED = -2;

  private Object[] items = new Object[INITIAL_CAPACITY];
  private long[] args = new long[INITIAL_CAPACITY];
  private byte[] kinds = new byte[INITIAL_CAPACITY];
  private int bottom;
  private int top;
  private int pushes;

  /**
   * Primitive and scope joins' second halves recorded here: every function push, so that a latent
   * fork counts as a fork. A join that records nothing ({@link #NOT_RECORDED}) forks nothing and is
   * not counted. Written by the owner only, with a plain increment (no flag test, no atomic);
   * {@code StatsTable} reads it, slightly stale.
   */
  long functionForks;

  /**
   * Of {@link #functionForks}, the ones their own join did not take back: promoted and joined as a
   * task (which the task join counts), or dropped because the first half threw. Slow paths only. A
   * function fork taken back by its join is a join: {@code functionForks -
   * functionForksNotTakenBack}.
   */
  long functionForksNotTakenBack;

  /**
   * Non-zero when this worker's deque may have become empty since the owner last stocked it with a
   * promotion (parallelism above 1 only; always 0 at parallelism 1). Set by a thief after it takes
   * from the deque ({@code Stealing.onSteal}), by the owner after it pops from its own deque
   * ({@code HelpingJoin.popOwn}), and at the start; cleared by the owner only once it has seen the
   * deque non-empty after the clear ({@code LatentJoins.stock}). Invariant: an empty deque implies
   * a non-zero word, so a fork or join that finds it zero needs no look at the deque.
   *
   * <p>Why a word and not the deque's size: the fast paths test this one field of {@code this},
   * whose value is 0 in the common case at every parallelism (a steal is rare beside a join), so
   * the JIT compiles the same code for a pool of one and a pool of many. Testing "parallelism above
   * 1 and the deque is empty" instead made the branch's direction depend on the pool, and a JVM
   * that had run a pool of two compiled the joins differently (the latent-forks design note). Plain
   * loads and stores: a thief stores 1 right after its steal's CAS (a plain store, so no overflow
   * can skip it), and a stale read only delays a promotion ({@code LatentJoins.stock} says why none
   * is lost).
   */
  int dequeEmptied;

  /**
   * Every slot at or above this has never held a function since the last {@link #clearAll}: a bound
   * on where scope pops may have left functions, so that clearing them costs what the recursion
   * used, not the array's capacity. Raised by the function-storing pushes (not the fast push, which
   * stores no reference).
   */
  private int functionsBelow;

  /**
   * The last function class found to have one join kind ({@code LatentJoins.itemFor}); forgotten by
   * {@link #clearAll}, so an idle worker pins no user class.
   */
  Class<?> singleKindClass;

  // ---------------------------------------------------------------------------------------------
  // Owner: push

  /**
   * Records a task fork; returns its slot. No kind is stored: an entry whose item is a {@link Task}
   * is a task entry (see {@link #kind}), so the slot's byte may be a function's stale kind.
   */
  final int pushTask(Task<?> task) {
    int t = prepare();
    items[t] = task;
    top = t + 1;
    return t;
  }

  /** Records a primitive join's latent half; returns its slot. */
  final int pushFunction(Object fn, long arg, int kind) {
    int t = prepare();
    commitFunction(t, fn, arg, kind);
    functionForks++;
    return t;
  }

  /**
   * The scope join's fast push: records {@code arg} in the top slot if that slot already holds
   * {@code fn} (a join site forks the same function again and again, and a scope pop leaves its
   * function in place), and returns the slot. It stores no reference (so no GC write barrier) and
   * not the kind either: the slot's kind was stored with {@code fn}, and a function that reaches a
   * slot raw has one kind only (see {@link #tryPushNewFunction}). Returns -1, having changed
   * nothing, when the slot holds another object (or {@code fn} is null) or the push needs {@link
   * #prepare}'s slow path (an empty latent range, a full array). A push onto a non-empty stack
   * needs no claim check (see {@link #prepare}). Calls nothing.
   *
   * <p>With {@link #RECORD_DEPTH} latent entries already below and no thief hungry, records and
   * counts nothing and returns {@link #NOT_RECORDED}: its join runs both halves here. (A count
   * would be a store that the next join's count waits on, the chain that recording costs: 0.1-0.2
   * of sequential per fork-every join, measured.) Not recording is always safe: a second half that
   * nobody can see is the sequential program's call. What it gives up is that this half can neither
   * be promoted nor claimed; a hungry thief (the word set) makes the next join record again, and
   * promote.
   */
  final int tryPushFunction(Object fn, long arg) {
    int t = top;
    // fn == null: recorded or not, the slow path throws the NPE before the first half runs.
    if (t - bottom >= RECORD_DEPTH && dequeEmptied == 0 && fn != null) {
      return NOT_RECORDED;
    }
    Object[] it = items;
    // fn == null: an empty slot holds null with a stale kind; the slow path throws the NPE.
    if (t == bottom || t == it.length || it[t] != fn || fn == null) {
      return -1;
    }
    args[t] = arg;
    top = t + 1;
    functionForks++;
    return t;
  }

  /**
   * The scope join's storing push, when {@link #tryPushFunction} found another object in the slot:
   * stores {@code item} and its kind, and counts towards rotation. {@code item} is the function, or
   * a wrapper for a function object that implements more than one of the scope's function
   * interfaces (the caller decides): the fast push matches the raw function only, so a slot whose
   * item is the raw function always holds that function's one kind. Returns -1, having changed
   * nothing, when the push needs {@link #prepare}'s slow path. Calls only its commit.
   */
  final int tryPushNewFunction(Object item, long arg, int kind) {
    int t = top;
    Object[] it = items;
    if (t == bottom || t == it.length || pushes + 1 >= ROTATE_EVERY) {
      return -1; // rotation due: let the slow path rotate, to keep the array young
    }
    pushes++; // counted even if an error stops the commit's call: harmless, rotation comes early
    commitFunction(t, item, arg, kind);
    functionForks++;
    return t;
  }

  /**
   * A function push's commit at slot {@code t}: stores only (an error at this call's entry leaves
   * the stack as it was; see "Errors inside").
   */
  private void commitFunction(int t, Object item, long arg, int kind) {
    assert !(item instanceof Task)
        : "a join's function that is also a Task was recorded unwrapped, so it would run as the task"
            + " (LatentJoins.itemFor wraps such functions)";
    if (t >= functionsBelow) {
      functionsBelow = t + 1;
    }
    items[t] = item;
    args[t] = arg;
    kinds[t] = (byte) kind;
    top = t + 1;
  }

  /**
   * The scope join's pop: if {@code slot} is the newest entry and still latent, drops it (leaving
   * its function in the array above {@code top}, where nothing reads it: the next push there finds
   * it and skips the store) and returns true. Calls nothing but the claim check.
   */
  final boolean tryPopFunction(int slot) {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    if (top == slot + 1 && slot >= bottom) {
      top = slot;
      return true;
    }
    return false;
  }

  /**
   * Everything a push must do before its stores: claims, settling, rotation. Each of these leaves a
   * consistent stack if an error stops it halfway.
   *
   * <p>A push onto a non-empty stack without rotation needs no claim check: it writes only {@code
   * items[top]} and {@code top}, and a claimer reads only the oldest entry, below the old {@code
   * top} (either value of {@code top} it reads is above it). Pushing onto an empty stack (the
   * claimer might be taking that very slot), settling and rotation (they move {@code bottom} or
   * replace the arrays) check first. The owner's next pop-side operation checks, which is where it
   * must see what a claimer took.
   */
  private int prepare() {
    int t = top;
    int n = ++pushes;
    if (t == bottom || t == items.length || n >= ROTATE_EVERY) {
      t = prepareSlow();
    }
    return t;
  }

  private int prepareSlow() {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    int t = top;
    if (t == bottom && t != 0) {
      t = settle();
    }
    if (pushes >= ROTATE_EVERY || t == items.length) {
      int capacity = items.length;
      if (t == capacity) {
        capacity *= 2;
      } else {
        while (capacity > INITIAL_CAPACITY && t * 4 < capacity) {
          capacity >>>= 1;
        }
      }
      rotate(capacity);
    }
    return t;
  }

  /**
   * The latent range is empty: let {@code bottom} and {@code top} fall back over the dead slots
   * that promoted or claimed tasks left below it (null items), stopping at a live primitive-join
   * placeholder. Entries keep their slots: only unused indices are recovered.
   */
  private int settle() {
    int b = bottom;
    while (b > 0 && items[b - 1] == null) {
      b--;
    }
    bottom = b;
    top = b;
    return b;
  }

  /** Moves the live slots to fresh arrays (young, see above), growing if asked. */
  private void rotate(int capacity) {
    Object[] ni = new Object[capacity];
    long[] na = new long[capacity];
    byte[] nk = new byte[capacity];
    System.arraycopy(items, 0, ni, 0, top);
    System.arraycopy(args, 0, na, 0, top);
    System.arraycopy(kinds, 0, nk, 0, top);
    items = ni; // the commit: three stores, no call among them
    args = na;
    kinds = nk;
    pushes = 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Owner: read and pop

  final int top() {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    return top;
  }

  /**
   * Number of latent entries, right after another operation checked for claims (no blocking in
   * between, so none can have happened).
   */
  final int sizeChecked() {
    return top - bottom;
  }

  /** Number of latent entries. */
  final int size() {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    return top - bottom;
  }

  /** True if {@code task} is the newest latent entry. */
  final boolean isNewest(Task<?> task) {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    int t = top - 1;
    return t >= bottom && items[t] == task;
  }

  final Object item(int i) {
    return items[i];
  }

  final long arg(int i) {
    return args[i];
  }

  /**
   * Slot {@code i}'s kind: {@link #KIND_TASK} if its item is a task (a task push stores no kind),
   * else the kind stored with the function.
   */
  final int kind(int i) {
    return items[i] instanceof Task ? KIND_TASK : kinds[i];
  }

  /** Drops the newest entry, which is latent (the caller checked). Calls nothing. */
  final void dropTop() {
    dropPeekedTask();
  }

  /**
   * Drops every slot at or above {@code i} (the joiner of slot {@code i} took it back). Slots below
   * {@code bottom} that are dropped are promoted placeholders already consumed. Calls nothing.
   */
  final void truncate(int i) {
    for (int k = i; k < top; k++) {
      items[k] = null;
    }
    top = i;
    if (bottom > i) {
      bottom = i;
    }
  }

  /**
   * Drops the newest entry, a task the caller has just seen with {@link #isNewest} (no blocking in
   * between, so no claim can have happened: claims wait for the owner to block). Calls nothing.
   */
  final void dropPeekedTask() {
    int t = top - 1;
    items[t] = null;
    top = t;
  }

  /** Removes and returns the newest latent entry's item if it is a task; else null. */
  final Object popTask() {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    int t = top - 1;
    Object x;
    if (t < bottom || !((x = items[t]) instanceof Task)) {
      return null;
    }
    items[t] = null;
    top = t;
    return x;
  }

  /**
   * Owner: takes the oldest latent entry out of the latent range and returns what {@code promoter}
   * made of it (a task as itself, a primitive join's half as the job its joiner will find in the
   * slot), or null if there is none. The one take of both promotion and claims ({@link
   * #claimOldest}); see {@link #takeOldestUnchecked}.
   */
  final Object takeOldest(Promoter promoter) {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    return takeOldestUnchecked(promoter);
  }

  /**
   * The promoter may allocate, so it runs before any store; then the commit, stores only: a task's
   * slot becomes dead (null), a function's holds the job for its joiner. The commit is the last
   * act: the caller's {@code inHand} store follows with only returns in between.
   */
  @Override
  final Object takeOldestUnchecked(Promoter promoter) {
    int b = bottom;
    if (b >= top) {
      return null;
    }
    int kind = kind(b);
    Object made = promoter.promote(items[b], args[b], kind); // may allocate: before any store
    items[b] = kind == KIND_TASK ? null : made; // the commit: stores only
    bottom = b + 1;
    return made;
  }

  /**
   * Owner, in a join taking its slot back: removes and returns the newest latent entry if it lies
   * above {@code slot} and is a task (a fork the first half left behind, never joined); else null.
   */
  final Object popTaskAbove(int slot) {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    int t = top - 1;
    Object x;
    if (t <= slot || t < bottom || !((x = items[t]) instanceof Task)) {
      return null;
    }
    items[t] = null;
    top = t;
    return x;
  }

  /** What {@link #takeBack} returns for an entry that is still latent. */
  static final Object STILL_LATENT = new Object();

  /**
   * Owner, in a join taking its slot back once nothing above it is latent: drops {@code slot} and
   * every slot above it. Returns {@link #STILL_LATENT} if the entry was (the joiner runs it
   * inline), else what its promotion left in the slot: the job that carries it. Calls the claim
   * check and {@link #truncate}, nothing else.
   */
  final Object takeBack(int slot) {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    Object placeholder = slot >= bottom && slot < top ? STILL_LATENT : items[slot];
    truncate(slot);
    return placeholder;
  }

  /**
   * Owner, with no frame of a join above it (the worker's run loop, going idle): forget every slot,
   * including the functions that scope pops leave above {@code top}. Left there, a closure half and
   * whatever it captures would stay reachable from an idle worker for as long as the pool lives.
   * Calls nothing but the claim check and {@link #truncate}, before its own stores.
   */
  final void clearAll() {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    truncate(0);
    Object[] it = items;
    int n = functionsBelow; // no call here (see "Errors inside")
    if (n > it.length) {
      n = it.length;
    }
    for (int i = n - 1; i >= 0; i--) {
      it[i] = null;
    }
    functionsBelow = 0;
    singleKindClass = null;
    mayHoldTaken = false;
  }

  /** Array capacity (for tests). */
  final int capacity() {
    return items.length;
  }

  /** True if {@code x} is one of the latent entries (linear; for rare operations only). */
  final boolean containsLatent(Task<?> x) {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    for (int i = bottom; i < top; i++) {
      if (items[i] == x) {
        return true;
      }
    }
    return false;
  }

  /** Owner: the index one above the newest entry (a mark for {@link #dropAbove}). */
  final int topIndex() {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    return top;
  }

  /**
   * Owner, after a task it ran ended in {@link StackOverflowError}: takes off every entry above
   * {@code mark} (the entries that run pushed and left behind, newest first), completing each
   * latent task with {@code e} (owner's release store) and dropping the functions, whose joiners'
   * frames are gone. See {@code HelpingJoin.runOwn}.
   */
  final void failAbove(int mark, Throwable e) {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    while (top > mark) {
      int t = top - 1;
      if (t < bottom) {
        truncate(mark); // promoted slots: their tasks are in the deque, where anyone may run them
        return;
      }
      Object x = items[t];
      items[t] = null;
      top = t;
      if (x instanceof Task<?> task) {
        task.completeFailed(e);
      }
    }
  }

  /**
   * A completed task left in a latent slot whose task was taken out from below the newest entry
   * ({@link #takeLatent}): promotion and claims skip a completed task, a pop runs nothing.
   */
  static final Task<Void> TAKEN = takenPlaceholder();

  /** Owner: drops {@link #TAKEN} placeholders from the top (nothing to run there). */
  final void dropTakenOnTop() {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    for (int t; (t = top - 1) >= bottom && items[t] == TAKEN; ) {
      items[t] = null;
      top = t;
    }
  }

  /**
   * Set when a {@link #TAKEN} placeholder is written, cleared when the stack is emptied ({@link
   * #clearAll}): so that {@link #sizeWithoutTaken} (Lea's throttle calls it at every level) scans
   * only a stack that may hold one. Owner only.
   */
  private boolean mayHoldTaken;

  /** Owner: latent entries that are not {@link #TAKEN} placeholders. */
  final int sizeWithoutTaken() {
    int n = size();
    if (!mayHoldTaken) {
      return n;
    }
    for (int i = bottom; i < top; i++) {
      if (items[i] == TAKEN) {
        n--;
      }
    }
    return n;
  }

  private static Task<Void> takenPlaceholder() {
    Task<Void> t = Task.of(() -> null);
    t.complete(null, TaskStatus.DONE);
    return t;
  }

  /**
   * Owner, in a {@code get} whose target is one of its own latent forks but not the newest: takes
   * {@code x} out of the latent range, so that the caller runs it and nothing newer (the JDK's
   * {@code tryRemoveAndExec}); true if it was there. The slot keeps {@link #TAKEN} unless it was
   * the newest. Calls only the claim check; the commit is one store (two for the newest).
   */
  final boolean takeLatent(Task<?> x) {
    if ((int) CLAIM.getOpaque(this) != OPEN) {
      reconcile();
    }
    for (int i = top - 1; i >= bottom; i--) {
      if (items[i] == x) {
        if (i == top - 1) {
          items[i] = null;
          top = i;
        } else {
          items[i] = TAKEN;
          mayHoldTaken = true;
        }
        return true;
      }
    }
    return false;
  }

  // ---------------------------------------------------------------------------------------------
  // Any thread

  /**
   * A racy hint, for any thread: the owner may have latent entries. A true answer is only worth
   * checking with {@link #claimOldest}.
   */
  final boolean mayHaveEntries() {
    return top > bottom;
  }

  /** Whether blocked owners' entries may be claimed on this JVM (see the class comment). */
  static boolean claimsSupported() {
    return ClaimSupport.SUPPORTED;
  }
}

package dev.tine.latent;

/**
 * A worker's latent forks: forks recorded with plain stores, invisible to other threads, that the
 * owner either runs itself (an inline join: a direct call) or promotes, oldest first, into its
 * public deque when some worker is hungry.
 *
 * <p>Owner-only; no field is read by any other thread. Entries {@code [bottom, top)} are latent;
 * {@code bottom} rises as entries are promoted. An entry is either a task ({@link #KIND_TASK}) or a
 * primitive join's second half: a function object in {@code items} and its argument in {@code
 * args} (the kind says which functional interface). Once a primitive-join entry is promoted, its
 * slot (below {@code bottom}) holds the job task that carries it, for the joiner to pick up.
 *
 * <p><b>Why the arrays are replaced now and then.</b> Storing a young object into an old array
 * takes G1's post-write barrier slow path on JDK 25, which includes a StoreLoad fence: measured
 * 5.5x sequential for a fork-per-call fib with a long-lived array, 2.6x with an array kept young.
 * So every {@link #ROTATE_EVERY} pushes the live part moves to a fresh (young) array; the copy is
 * a few dozen slots, amortized over 65k pushes.
 *
 * <p><b>Why the indices fall back and the arrays shrink.</b> A promoted task leaves a dead slot
 * below {@code bottom}, and {@code top} cannot pop below {@code bottom}, so with each promotion
 * made at the stack's low point the live range crept up by one slot, for good. Over a long-lived
 * pool (thousands of promotions per run of Lea's LU) the arrays doubled until they were
 * humongous: G1 allocates those in the old generation, so every push took the slow write barrier
 * again, and every rotation was a humongous allocation. Measured in one bench JVM, after LU at
 * paper size: quicksort p=2 Tine/JDK 1.82, fork-every fib(40) p=2 slower than p=1. So when the
 * latent range empties, {@code bottom} and {@code top} fall back over dead slots (a primitive
 * join's placeholder is not dead: its joiner still reads it), and a rotation halves arrays that
 * are mostly unused.
 *
 * <p>Public only so the runtime's packages can share it; the module does not export it.
 */
public final class LatentStack {
  public static final int KIND_TASK = 0;
  /** Primitive-join kinds: which functional interface the item is; assigned by the runtime. */
  public static final int KIND_FIRST_FUNCTION = 1;

  static final int ROTATE_EVERY = 1 << 16;

  static final int INITIAL_CAPACITY = 64;

  private Object[] items = new Object[INITIAL_CAPACITY];
  private long[] args = new long[INITIAL_CAPACITY];
  private byte[] kinds = new byte[INITIAL_CAPACITY];
  private int bottom;
  private int top;
  private int pushes;

  /** Records a task fork; returns its slot. */
  public int pushTask(Object task) {
    int t = prepare();
    items[t] = task;
    kinds[t] = KIND_TASK;
    top = t + 1;
    return t;
  }

  /** Records a primitive join's latent half; returns its slot. */
  public int pushFunction(Object fn, long arg, int kind) {
    int t = prepare();
    items[t] = fn;
    args[t] = arg;
    kinds[t] = (byte) kind;
    top = t + 1;
    return t;
  }

  private int prepare() {
    int t = top;
    if (++pushes >= ROTATE_EVERY || t == items.length) {
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
   * that promoted tasks left below it (null items), stopping at a live primitive-join
   * placeholder. Entries keep their slots: only unused indices are reclaimed.
   */
  private void settle() {
    int b = bottom;
    while (b > 0 && items[b - 1] == null) {
      b--;
    }
    bottom = b;
    top = b;
  }

  /** Moves the live slots to fresh arrays (young, see above), growing if asked. */
  private void rotate(int capacity) {
    pushes = 0;
    Object[] ni = new Object[capacity];
    long[] na = new long[capacity];
    byte[] nk = new byte[capacity];
    System.arraycopy(items, 0, ni, 0, top);
    System.arraycopy(args, 0, na, 0, top);
    System.arraycopy(kinds, 0, nk, 0, top);
    items = ni;
    args = na;
    kinds = nk;
  }

  public int top() {
    return top;
  }

  public int bottom() {
    return bottom;
  }

  /** True if slot {@code i} is still latent (not promoted). */
  public boolean isLatent(int i) {
    return i >= bottom && i < top;
  }

  /** Number of latent entries. */
  public int size() {
    return top - bottom;
  }

  /** The newest latent entry's item, or null if none is latent. */
  public Object peekItem() {
    return top > bottom ? items[top - 1] : null;
  }

  public int peekKind() {
    return kinds[top - 1];
  }

  public Object item(int i) {
    return items[i];
  }

  public long arg(int i) {
    return args[i];
  }

  public int kind(int i) {
    return kinds[i];
  }

  /** Drops the newest entry, which is latent (the caller checked). */
  public void dropTop() {
    int t = --top;
    items[t] = null;
    if (t == bottom && t != 0) {
      settle();
    }
  }

  /**
   * Drops every slot at or above {@code i} (the joiner of slot {@code i} took it back). Slots
   * below {@code bottom} that are dropped are promoted placeholders already consumed.
   */
  public void truncate(int i) {
    for (int k = i; k < top; k++) {
      items[k] = null;
    }
    top = i;
    if (bottom >= i) {
      bottom = i;
      if (i != 0) {
        settle();
      }
    }
  }

  /** Removes and returns the newest latent entry's item if it is a task; else null. */
  public Object popTask() {
    int t = top - 1;
    if (t < bottom || kinds[t] != KIND_TASK) {
      return null;
    }
    Object x = items[t];
    items[t] = null;
    top = t;
    if (t == bottom && t != 0) {
      settle(); // rare: only after a promotion left dead slots below
    }
    return x;
  }

  /**
   * Takes the oldest latent entry for promotion and returns its slot, or -1 if none. The caller
   * reads the item, kind and argument at that slot and, for a primitive-join entry, stores the
   * job task there with {@link #setPromoted}; a task entry's slot is cleared here.
   */
  public int takeOldest() {
    int b = bottom;
    if (b >= top) {
      return -1;
    }
    bottom = b + 1;
    return b;
  }

  /** A promoted task entry: forget it (the deque has it now). */
  public void clear(int i) {
    items[i] = null;
  }

  /** A promoted primitive-join entry: keep its job task for the joiner. */
  public void setPromoted(int i, Object job) {
    items[i] = job;
  }

  /** Array capacity (for tests). */
  public int capacity() {
    return items.length;
  }

  /** True if {@code x} is one of the latent entries (linear; for rare operations only). */
  public boolean containsLatent(Object x) {
    for (int i = bottom; i < top; i++) {
      if (items[i] == x && kinds[i] == KIND_TASK) {
        return true;
      }
    }
    return false;
  }
}

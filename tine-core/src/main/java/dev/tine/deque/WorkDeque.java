package dev.tine.deque;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A work-stealing deque: a growable ring in the style of Chase and Lev (SPAA 2005), with the memory
 * orderings of Lê, Pop, Cohen and Zappa Nardelli (PPoPP 2013) expressed with VarHandles.
 *
 * <p>One thread, the <em>owner</em>, calls {@link #push} and {@link #pop} (LIFO at the top). Any
 * thread may call {@link #steal}/{@link #trySteal} (FIFO at the base). This class is public only so
 * the runtime's packages can share it; the module does not export it.
 *
 * <h2>Invariants</h2>
 *
 * <ol>
 *   <li>{@code base} only increases, and only by a successful CAS (by a thief, or by the owner
 *       taking the last element). {@code top} is written only by the owner.
 *   <li>The elements are the slots {@code [base, top)}; slot {@code i} lives at {@code array[i &
 *       (length-1)]}. The owner never writes a slot in {@code [base, top)} except when pushing at
 *       {@code top}, so a thief that reads slot {@code b} and then wins the CAS {@code base: b ->
 *       b+1} took exactly the element that was published there.
 *   <li>Exactly-once: an element is returned by {@code pop} or by {@code steal}, never both, never
 *       neither. When {@code top - base > 1} pop and steal touch different slots. On the last
 *       element ({@code base == top-1}) both sides arbitrate with the same CAS on {@code base}: one
 *       wins.
 *   <li>Pop first publishes its decremented {@code top}, then (after a full fence) reads {@code
 *       base}; steal reads {@code base}, fences, then reads {@code top}. This is Dekker's pattern:
 *       they cannot both miss the other's claim on the last element.
 *   <li>Growing copies {@code [base, top)} into a new array at the same logical indices and
 *       publishes it with a release store before {@code top} moves past the old capacity. A thief
 *       still reading the old array finds the same element in the same slot (the owner never writes
 *       the old array again), and the base CAS still decides who owns it.
 * </ol>
 *
 * <p>Taken slots are cleared so the deque does not keep finished tasks reachable: the owner clears
 * after winning (plain store: no thief can be reading an element it already lost), a thief clears
 * with a CAS from the element it took to null, so it never erases a newer element that the owner
 * pushed into the same physical slot after the ring wrapped.
 *
 * <h2>Errors inside</h2>
 *
 * A {@link StackOverflowError} can be thrown at any call, and an interpreted {@link VarHandle}
 * access is a call. So every prefix of each operation leaves a valid deque: push writes the slot
 * (invisible above {@code top}) and then publishes with one store; pop's only calls after it lowers
 * {@code top} are the fence, whose handler puts {@code top} back, and, on the last element, the CAS
 * on {@code base}, before which it restores {@code top}, so the element stays in the deque until
 * that one call takes it; a thief's only commit is its CAS, and clearing the slot afterwards is
 * optional.
 *
 * @param <T> element type
 */
public final class WorkDeque<T> {
  /** Initial capacity; a power of two. Fork trees are shallow (depth ~ log n), 64 rarely grows. */
  static final int INITIAL_CAPACITY = 64;

  /** Ceiling on capacity: beyond this push throws rather than exhausting the heap silently. */
  static final int MAX_CAPACITY = 1 << 26;

  private static final VarHandle BASE;
  private static final VarHandle TOP;
  private static final VarHandle ARRAY;
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      BASE = l.findVarHandle(WorkDeque.class, "base", long.class);
      TOP = l.findVarHandle(WorkDeque.class, "top", long.class);
      ARRAY = l.findVarHandle(WorkDeque.class, "array", Object[].class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  // Padding keeps base (thieves' CAS target) and top (owner's store target) off the cache lines of
  // neighbouring objects; thieves read both, so they share a line with each other by design.
  @SuppressWarnings("unused")
  private long p00, p01, p02, p03, p04, p05, p06, p07;

  private volatile long base;
  private long top; // written by the owner only; read by thieves with acquire
  private Object[] array; // replaced by the owner only; read by thieves with acquire

  @SuppressWarnings("unused")
  private long p10, p11, p12, p13, p14, p15, p16, p17;

  public WorkDeque() {
    this(INITIAL_CAPACITY);
  }

  public WorkDeque(int initialCapacity) {
    if (initialCapacity < 2 || Integer.bitCount(initialCapacity) != 1) {
      throw new IllegalArgumentException(
          "capacity must be a power of two >= 2: " + initialCapacity);
    }
    array = new Object[initialCapacity];
  }

  /**
   * Owner only. Pushes {@code x} on top. No fence: a caller that must order this push before a
   * later load (to wake sleepers without a lost wake-up) issues {@link VarHandle#fullFence()}
   * itself, and only when it will read.
   *
   * @return the number of elements the owner saw before this push (may over-count by elements
   *     stolen concurrently): callers use "was empty or almost" as a hint to wake an idle thief
   */
  public int push(T x) {
    long t = top;
    long b = (long) BASE.getAcquire(this);
    Object[] a = array;
    long size = t - b;
    if (size >= a.length - 1) {
      a = grow(a, b, t);
    }
    SLOT.setRelease(a, (int) t & (a.length - 1), x);
    TOP.setRelease(this, t + 1); // publishes the slot to thieves that acquire-read top
    return (int) size;
  }

  private Object[] grow(Object[] old, long b, long t) {
    int n = old.length << 1;
    if (n > MAX_CAPACITY || n <= 0) {
      throw new IllegalStateException(
          "work deque overflow: more than " + MAX_CAPACITY + " pending forks");
    }
    Object[] a = new Object[n];
    int om = old.length - 1, nm = n - 1;
    for (long i = b; i < t; i++) {
      a[(int) i & nm] = SLOT.getAcquire(old, (int) i & om);
    }
    ARRAY.setRelease(this, a);
    return a;
  }

  /**
   * Owner only. Removes and returns the newest element, or null if empty. After its first store it
   * calls only the fence (an overflow there restores {@code top} in the handler, a plain store) and
   * the last element's CAS (preceded by restoring {@code top}): see "Errors inside".
   */
  @SuppressWarnings("unchecked")
  public T pop() {
    long t = top - 1;
    if (t < base) {
      return null; // empty, and stays so: only the owner adds, and base only grows
    }
    Object[] a = array;
    TOP.setOpaque(this, t);
    try {
      VarHandle.fullFence(); // order the top store before the base load (invariant 4)
    } catch (StackOverflowError e) {
      top = t + 1; // nothing taken
      throw e;
    }
    long b = base;
    int i = (int) t & (a.length - 1);
    if (b < t) { // two or more: the top one is beyond every thief's reach
      Object x = a[i];
      a[i] = null;
      return (T) x;
    }
    // Last element (b == t) or stolen meanwhile (b == t + 1). Restore top first, so that until the
    // CAS below takes it the element is still in the deque (an error at that call loses nothing);
    // the CAS orders this plain store before it.
    top = t + 1;
    if (b > t) {
      return null;
    }
    Object x = a[i];
    if (!BASE.compareAndSet(this, b, b + 1)) {
      return null;
    }
    a[i] = null;
    return (T) x;
  }

  /** {@return owner only: the newest element without removing it, or null} */
  @SuppressWarnings("unchecked")
  public T peek() {
    long t = top - 1;
    Object[] a = array;
    if (t < base) {
      return null;
    }
    return (T) SLOT.get(a, (int) t & (a.length - 1));
  }

  /**
   * Owner only: whether {@code x} is one of the elements (linear; for rare operations only). A
   * thief may take it meanwhile, so a true answer is a hint.
   */
  public boolean ownerContains(Object x) {
    long b = (long) BASE.getAcquire(this);
    Object[] a = array;
    for (long i = top - 1; i >= b; i--) {
      if (SLOT.getAcquire(a, (int) i & (a.length - 1)) == x) {
        return true;
      }
    }
    return false;
  }

  /** The result of a {@link #trySteal} that lost a race: retry later or elsewhere. */
  public static final Object LOST_RACE =
      new Object() {
        @Override
        public String toString() {
          return "LOST_RACE";
        }
      };

  /**
   * Any thread. One attempt to take the oldest element.
   *
   * @return the element, null if the deque looked empty, or {@link #LOST_RACE} if another thread
   *     took the element first (the deque may still hold more)
   */
  public Object trySteal() {
    long b = (long) BASE.getAcquire(this);
    VarHandle.fullFence(); // order the base load before the top load (invariant 4)
    long t = (long) TOP.getAcquire(this);
    if (b >= t) {
      return null;
    }
    Object[] a = (Object[]) ARRAY.getAcquire(this);
    int i = (int) b & (a.length - 1);
    Object x = SLOT.getAcquire(a, i);
    if (!BASE.compareAndSet(this, b, b + 1)) {
      return LOST_RACE;
    }
    // We own x. Clear the slot only if it still holds x: after the ring wraps the owner may have
    // pushed a newer element into the same physical slot. Clearing only helps the GC, so an
    // overflow here must not lose x.
    try {
      SLOT.compareAndSet(a, i, x, null);
    } catch (StackOverflowError e) {
      // keep x reachable a little longer
    }
    return x;
  }

  /**
   * Any thread. Takes the oldest element only if it is {@code expected} (a joiner taking its
   * unstarted target, never another task). One attempt: false if the oldest is another element, the
   * deque is empty, or another thread took the element first.
   */
  public boolean trySteal(Object expected) {
    long b = (long) BASE.getAcquire(this);
    VarHandle.fullFence(); // order the base load before the top load (invariant 4)
    long t = (long) TOP.getAcquire(this);
    if (b >= t) {
      return false;
    }
    Object[] a = (Object[]) ARRAY.getAcquire(this);
    int i = (int) b & (a.length - 1);
    if (SLOT.getAcquire(a, i) != expected || !BASE.compareAndSet(this, b, b + 1)) {
      return false;
    }
    try {
      SLOT.compareAndSet(a, i, expected, null); // as in trySteal(): only if still ours
    } catch (StackOverflowError e) {
      // keep it reachable a little longer
    }
    return true;
  }

  /**
   * Any thread: base and top folded into one number, which changes whenever an element is pushed or
   * taken (a push and a pop of the same element restore it). A monitor compares two readings to
   * tell a frozen deque from a busy one.
   */
  public long stamp() {
    return (long) BASE.getAcquire(this) * 31 + (long) TOP.getAcquire(this);
  }

  /** Any thread. Takes the oldest element, retrying lost races; null only when empty. */
  @SuppressWarnings("unchecked")
  public T steal() {
    for (; ; ) {
      Object x = trySteal();
      if (x != LOST_RACE) {
        return (T) x;
      }
      Thread.onSpinWait();
    }
  }

  /** {@return any thread: true if the deque looked non-empty at some moment during the call} */
  public boolean hasWork() {
    long b = (long) BASE.getAcquire(this);
    VarHandle.fullFence();
    return (long) TOP.getAcquire(this) > b;
  }

  /** {@return any thread: approximate number of elements (exact when quiescent)} */
  public int size() {
    long b = (long) BASE.getAcquire(this);
    long t = (long) TOP.getAcquire(this);
    return (int) Math.max(0, t - b);
  }

  /** {@return current capacity (for tests)} */
  public int capacity() {
    return ((Object[]) ARRAY.getAcquire(this)).length;
  }
}

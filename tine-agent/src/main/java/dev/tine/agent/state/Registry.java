package dev.tine.agent.state;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Pool → {@link PoolState}, by identity, holding pools weakly. Look-ups (on every task) read a
 * volatile array without locking: an open-addressing table copied on each insertion and pruned by
 * the ticker, which is cheap because pools are few and made rarely.
 */
public final class Registry {
  private final Host host;
  private volatile PoolState[] table = new PoolState[64];
  private int count;
  private final AtomicInteger ids = new AtomicInteger();

  /** Pools not measured because {@code maxPools} were already. */
  public final AtomicInteger refused = new AtomicInteger();

  public Registry(Host host) {
    this.host = host;
  }

  private static int index(int h, int len) {
    h ^= h >>> 16;
    h *= 0x9E3779B1;
    return (h ^ (h >>> 15)) & (len - 1);
  }

  /** The pool's state, or null if unknown. */
  public PoolState get(Object pool) {
    PoolState[] t = table;
    int mask = t.length - 1;
    for (int i = index(System.identityHashCode(pool), t.length); ; i = (i + 1) & mask) {
      PoolState s = t[i];
      if (s == null) return null;
      if (s.ref.refersTo(pool)) return s;
    }
  }

  /**
   * The pool's state, made if needed; null if the agent measures {@code maxPools} pools already.
   */
  public PoolState getOrCreate(Object pool, Kind kind) {
    PoolState s = get(pool);
    return s != null ? s : create(pool, kind);
  }

  private synchronized PoolState create(Object pool, Kind kind) {
    PoolState s = get(pool);
    if (s != null) return s;
    if (count >= host.config().maxPools()) {
      refused.incrementAndGet();
      return null;
    }
    s = new PoolState(ids.incrementAndGet(), kind, pool, host);
    PoolState[] old = table;
    PoolState[] t = new PoolState[(count + 1) * 2 > old.length ? old.length * 2 : old.length];
    for (PoolState o : old) {
      if (o != null)
        insert(t, o); // collected ones too: the ticker unregisters them, then removes them
    }
    insert(t, s);
    count = size(t);
    table = t;
    host.wakeTicker();
    return s;
  }

  private static void insert(PoolState[] t, PoolState s) {
    int mask = t.length - 1;
    int i = index(s.hash, t.length);
    while (t[i] != null) i = (i + 1) & mask;
    t[i] = s;
  }

  private static int size(PoolState[] t) {
    int n = 0;
    for (PoolState s : t) if (s != null) n++;
    return n;
  }

  /** Every state now (ticker). */
  public List<PoolState> all() {
    List<PoolState> out = new ArrayList<>();
    for (PoolState s : table) if (s != null) out.add(s);
    return out;
  }

  /**
   * Forgets these states (collected, or terminated long enough); rebuilds the table without them.
   */
  public synchronized void remove(List<PoolState> gone) {
    if (gone.isEmpty()) return;
    PoolState[] old = table;
    PoolState[] t = new PoolState[old.length];
    for (PoolState o : old) {
      if (o != null && !gone.contains(o)) insert(t, o);
    }
    count = size(t);
    table = t;
  }

  public synchronized void clear() {
    table = new PoolState[64];
    count = 0;
  }
}

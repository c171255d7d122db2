package dev.tine;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A long soak of the runtime: random fork/join trees, at least {@code soak.tasks} tasks (10^7 by
 * default) spread over parallelism 1, 2, 4 and 8 in both fork modes, with exceptions, cancellation,
 * timed gets, fork-then-block groups, outside getters, interrupt flags and forced stack overflows.
 * The long soak ({@link #soak()}, tagged "soak") is not part of the default build: run it with
 * {@code ./mvnw -pl tine-core verify -Psoak} (see the {@code soak} profile in the parent pom). The
 * default build runs {@link #shortSoak()}: the same configurations and checks on 10^6 tasks.
 *
 * <p><b>Determinism.</b> Every node of a tree is a function of its seed: its kind, fan-out, the
 * seeds of its children, whether it catches or propagates each child's failure, whether a leaf
 * throws ({@link SoakFailure} carrying its seed), whether it sets its own interrupt flag. A node's
 * value folds its children's outcomes in child order, whatever order they were joined in. The only
 * input that is not a function of the seed is what {@code cancel()} returned, which each node
 * records; the verifier recomputes every root sequentially from the seeds and those records and
 * compares every node's recorded outcome, run count and exception deliveries, and the root's
 * result, exactly.
 *
 * <p><b>Blocking.</b> A fork-then-block group (a latch its children count down, or children handed
 * to an outside thread that calls {@code get()}) blocks the worker only while it holds a permit
 * ({@code soak.blockers}, default 1, never more than {@code parallelism - 1}), so other workers are
 * free to run the children: the pattern is then correct on the JDK's ForkJoinPool, which does not
 * compensate for a worker blocked on a latch. Without a permit (always, at parallelism 1) the group
 * joins its children first and waits afterwards. Timed gets ({@code child.get(30 s)} from inside a
 * task) take no permit: the JDK's timed get helps (runs the task it waits for, or steals from its
 * thief), so it completes at any parallelism, and so must ours ({@code -Dsoak.timedGet=permit}
 * treats it as a blocking wait instead, to look past a runtime whose timed get only blocks).
 *
 * <p><b>Failing, not hanging.</b> Every wait is bounded: latches, outside groups and timed gets at
 * {@code soak.waitSeconds} (30), a watchdog that dumps every thread and fails the configuration
 * when no root completes for {@code soak.stallSeconds} (60), and close() in a helper thread joined
 * for {@code soak.closeSeconds} (30).
 *
 * <p>Properties: {@code soak.tasks} (total, split evenly over the configurations), {@code
 * soak.shortTasks} (the same for the short soak), {@code soak.seed}, {@code soak.parallelism} (e.g.
 * "1,2,4,8"), {@code soak.modes} ("latent,eager"), {@code soak.overflows} (forced stack overflows
 * per configuration, about), {@code soak.waitSeconds}, {@code soak.stallSeconds}, {@code
 * soak.closeSeconds}, {@code soak.failFast} (stop after the first failing configuration), {@code
 * soak.blockers}, {@code soak.timedGet}, {@code soak.overflowChains} (see {@link
 * #OVERFLOW_CHAINS}).
 */
class SoakTest {

  static final long TASKS = Long.getLong("soak.tasks", 10_000_000L);
  static final long SHORT_TASKS = Long.getLong("soak.shortTasks", 1_000_000L);
  static final long SEED = Long.getLong("soak.seed", 0x50A4_7E57L);
  static final String PARALLELISM = System.getProperty("soak.parallelism", "1,2,4,8");
  static final String MODES = System.getProperty("soak.modes", "latent,eager");
  static final int OVERFLOWS = Integer.getInteger("soak.overflows", 100);

  /**
   * Force overflows through endless fork/join and joinLong chains as well as plain recursion. Off
   * by default: a worker deep in such a chain helps, so unrelated tasks run at the edge of its
   * stack and overflow anywhere, even at the entry of compute ("collateral" overflows, as on the
   * JDK's pool). The expectation model accounts for the direct cases (a task that itself completed
   * with the error) but not for all of their knock-on effects (a latch child that never counted
   * down, a join that overflowed leaving its child a pending leftover when the root is checked), so
   * with chains a failure must be read against the thread dump. Overflows inside the runtime's own
   * calls are covered exactly by OverflowTest and InterpretedOverflowTest.
   */
  static final boolean OVERFLOW_CHAINS = Boolean.getBoolean("soak.overflowChains");

  static final long WAIT_S = Long.getLong("soak.waitSeconds", 30);
  static final long STALL_S = Long.getLong("soak.stallSeconds", 60);
  static final long CLOSE_S = Long.getLong("soak.closeSeconds", 30);
  static final boolean FAIL_FAST = Boolean.getBoolean("soak.failFast");

  /**
   * "helping" (default): a task's timed get of its own fork takes no permit, as on the JDK, whose
   * get(timeout) helps. "permit": treat it as a blocking wait (only while holding a permit, else
   * join first), for looking past a runtime whose timed get does not help.
   */
  static final String TIMED_GET_MODE = System.getProperty("soak.timedGet", "helping");

  /**
   * How many workers may block in a fork-then-block group at once (capped at parallelism - 1). With
   * one, the blocked worker's children sit in its own queue, where idle workers and any joiner
   * whose chain of thieves leads to it find them. With more, a joiner can wait on a blocked worker
   * that waits for children queued at another blocked worker, out of reach of targeted helping; the
   * JDK's join gets out of that only by compensating (starting a spare thread).
   */
  static final int BLOCKERS = Integer.getInteger("soak.blockers", 1);

  // ---------------------------------------------------------------------------------------------
  // The tree, as a function of seeds

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  static long rem(long h, long m) {
    return Long.remainderUnsigned(h, m);
  }

  static final int LEAF = 0,
      OVERFLOW = 1,
      FORK_JOIN = 2,
      FORK_JOIN_REVERSE = 3,
      INVOKE_ALL = 4,
      COMPUTE_FIRST = 5,
      JOIN_LONG = 6,
      CANCEL = 7,
      TIMED_GET = 8,
      LATCH = 9,
      OUTSIDE_GET = 10;

  static final String[] KIND_NAMES = {
    "leaf",
    "overflow",
    "fork-join",
    "fork-join-reverse",
    "invokeAll",
    "compute-first",
    "Tine.joinLong",
    "cancel",
    "timed-get",
    "latch",
    "outside-get"
  };

  static int kind(long seed, int depth, int maxDepth, long overflowOdds) {
    long h = mix(seed ^ 0x4B1DL);
    if (depth > 0 && rem(h, overflowOdds) == 0) return OVERFLOW;
    if (depth >= maxDepth || (depth > 0 && ((h >>> 50) & 3) == 0)) return LEAF;
    int r = (int) rem(h >>> 8, 100);
    if (r < 18) return FORK_JOIN;
    if (r < 28) return FORK_JOIN_REVERSE;
    if (r < 40) return INVOKE_ALL;
    if (r < 50) return COMPUTE_FIRST;
    if (r < 64) return JOIN_LONG;
    if (r < 76) return CANCEL;
    if (r < 86) return TIMED_GET;
    if (r < 93) return LATCH;
    return OUTSIDE_GET;
  }

  static int fanOut(long seed, int kind) {
    long h = mix(seed ^ 0xFA70L);
    return switch (kind) {
      case LEAF, OVERFLOW -> 0;
      case JOIN_LONG -> 2;
      case CANCEL, LATCH, OUTSIDE_GET -> 2 + (int) rem(h, 3);
      default -> 1 + (int) rem(h, 4);
    };
  }

  static long kidSeed(long seed, int i) {
    return mix(seed * 0x9E3779B97F4A7C15L + i + 1);
  }

  /** Whether a node catches child i's failure (3 in 4) or propagates it. */
  static boolean catches(long seed, int i) {
    return ((mix(seed ^ 0xCA7C4L) >>> (2 * i)) & 3) != 0;
  }

  /** CANCEL nodes: which children to cancel (at least one). */
  static boolean cancels(long seed, int i, int k) {
    long bits = mix(seed ^ 0xCA4CE1L) & ((1L << k) - 1);
    if (bits == 0) bits = 1L << (k - 1);
    return (bits >>> i & 1) != 0;
  }

  /** A free bit per node for sub-variants (join order, join or get, which joinLong, ...). */
  static int variant(long seed) {
    return (int) (mix(seed ^ 0xBA5EL) >>> 40);
  }

  static boolean interrupter(long seed, int kind) {
    return kind != OVERFLOW && rem(mix(seed ^ 0x1E7L), 24) == 0;
  }

  static boolean leafThrows(long seed) {
    return rem(mix(seed ^ 0x7E7L), 10) == 0;
  }

  static long leafValue(long seed) {
    long v = seed;
    for (int i = (int) (seed & 31); i >= 0; i--) v = mix(v + i);
    return v;
  }

  static long fold(long acc, long contribution) {
    return mix(acc * 31 + contribution);
  }

  static long combine2(long a, long b) {
    return mix(a * 131 + b);
  }

  static final long FAIL_TAG = 0xFA11L, OVERFLOW_TAG = 0x50E0L, CANCEL_TAG = 0xCA4CL;

  // ---------------------------------------------------------------------------------------------
  // Outcomes

  static final byte VALUE = 1, FAIL = 2, OVERFLOWED = 3, CANCELLED = 4, BUG = 5;

  static String outName(byte k) {
    return switch (k) {
      case VALUE -> "value";
      case FAIL -> "failure";
      case OVERFLOWED -> "StackOverflowError";
      case CANCELLED -> "cancelled";
      case BUG -> "bug";
      default -> "none (never ran)";
    };
  }

  /** The failure a leaf throws: a known type carrying the leaf's seed. */
  static final class SoakFailure extends RuntimeException {
    final long seed;

    SoakFailure(long seed) {
      super("soak leaf " + Long.toHexString(seed), null, false, false);
      this.seed = seed;
    }
  }

  /** Something the runtime must never do was seen; propagates to the root and fails the test. */
  static final class SoakBug extends AssertionError {
    SoakBug(String m) {
      super(m);
    }
  }

  /** One observed outcome of a child (or of a joinLong). */
  static final class Obs {
    final byte kind;
    final long value; // VALUE: the value; FAIL: the failing leaf's seed
    final Throwable ex;

    Obs(byte kind, long value, Throwable ex) {
      this.kind = kind;
      this.value = value;
      this.ex = ex;
    }

    boolean exceptional() {
      return kind == FAIL || kind == OVERFLOWED;
    }

    @Override
    public String toString() {
      return kind == VALUE || kind == FAIL
          ? outName(kind) + " " + Long.toHexString(value)
          : outName(kind) + (kind == BUG && ex != null ? " " + ex : "");
    }
  }

  static Obs ofThrowable(Throwable t) {
    if (t instanceof SoakFailure f) return new Obs(FAIL, f.seed, f);
    if (t instanceof StackOverflowError) return new Obs(OVERFLOWED, 0, t);
    if (t instanceof CancellationException) return new Obs(CANCELLED, 0, t);
    return new Obs(BUG, 0, t);
  }

  // ---------------------------------------------------------------------------------------------
  // Tasks

  /** A tree node. Fields below the constructor's are written by the thread that runs it. */
  static final class Node extends Task<Long> {
    final Run run;
    final long seed;
    final int depth, maxDepth;
    CountDownLatch latch; // a fork-then-block group's child: counted down when compute ends

    int runs;
    Thread ranOn;
    byte out;
    long outValue;
    int delivered; // exceptional outcomes of children observed here
    Node[] kids;
    byte[] cancelled; // CANCEL nodes: 1 if cancel() returned true, 2 if false, 0 if not tried
    volatile Obs[] outside; // OUTSIDE_GET nodes: what the outside thread saw
    volatile boolean overflowSeen; // OVERFLOW nodes: their chain has overflowed

    Node(Run run, long seed, int depth, int maxDepth) {
      this.run = run;
      this.seed = seed;
      this.depth = depth;
      this.maxDepth = maxDepth;
    }

    @Override
    protected Long compute() {
      try {
        return run.exec(this);
      } finally {
        if (latch != null) latch.countDown();
        if (depth == 0) run.rootsDone.increment();
      }
    }
  }

  /**
   * A fork/join chain without end: each link forks the next and joins it, until the stack
   * overflows. A link forked just before the overflow may be left in a queue unjoined; once the
   * overflow is seen, such leftovers return at once instead of starting a chain of their own.
   */
  static final class Chain extends Task<Long> {
    final Node origin;

    Chain(Node origin) {
      this.origin = origin;
    }

    @Override
    protected Long compute() {
      if (origin.overflowSeen) {
        return -1L; // a leftover: its value is never read
      }
      try {
        Chain next = new Chain(origin);
        next.fork();
        return next.join() + 1;
      } catch (StackOverflowError e) {
        origin.overflowSeen = true;
        throw e;
      }
    }
  }

  static long recurse(long x) {
    return (x == 0x5EEDL ? 0 : recurse(x * 6364136223846793005L + 1442695040888963407L)) + 1;
  }

  static long deepJoin(int n) {
    return Tine.joinLong(SoakTest::deepJoin, n + 1, SoakTest::shallow, n, Long::sum);
  }

  static long shallow(int n) {
    return n;
  }

  // ---------------------------------------------------------------------------------------------
  // One configuration

  static final class Run {
    final int p;
    final boolean eager;
    final String label, prefix;
    final long budget, seed, overflowOdds;
    final WorkStealingPool pool;
    final Semaphore permits;
    final ExecutorService getters;

    final LongAdder tasksRun = new LongAdder(),
        thrown = new LongAdder(),
        rootsDone = new LongAdder();

    /**
     * Tasks that overflowed only because a helping worker ran them on a deep stack (see expect).
     */
    final LongAdder collateralOverflows = new LongAdder();

    final LongAdder interruptsSet = new LongAdder(),
        leaksAtStart = new LongAdder(),
        leaksIntoJoiner = new LongAdder();
    final LongAdder cancelsTried = new LongAdder(), cancelsOk = new LongAdder();
    final LongAdder timedGets = new LongAdder(),
        latchGroups = new LongAdder(),
        latchBlocked = new LongAdder();
    final LongAdder outsideGroups = new LongAdder(), outsideBlocked = new LongAdder();
    final LongAdder overflows = new LongAdder(),
        joinLongs = new LongAdder(),
        invokeAlls = new LongAdder();

    // Verified on the driver thread against the sequential recomputation.
    long roots, caught, caughtExpected, atRoots, superseded;

    final ConcurrentLinkedQueue<String> bugs = new ConcurrentLinkedQueue<>();
    final AtomicInteger bugCount = new AtomicInteger();
    final Set<String> leakPaths = java.util.Collections.synchronizedSet(new LinkedHashSet<>());
    final AtomicBoolean dumped = new AtomicBoolean();
    volatile String stall;
    volatile boolean finished;
    double seconds;
    String closeProblem;

    Run(int p, boolean eager, long budget, long seed) {
      this.p = p;
      this.eager = eager;
      this.label = "p=" + p + " " + (eager ? "eager " : "latent");
      this.prefix = "soak-p" + p + (eager ? "-eager-worker-" : "-latent-worker-");
      this.budget = budget;
      this.seed = seed;
      this.overflowOdds = Math.max(1000L, budget / Math.max(1, OVERFLOWS));
      this.pool =
          WorkStealingPool.builder()
              .parallelism(p)
              .eagerForks(eager)
              .threadNamePrefix(prefix)
              .build();
      this.permits = new Semaphore(Math.min(p - 1, BLOCKERS));
      String getterPrefix = "soak-p" + p + (eager ? "-eager" : "-latent") + "-getter-";
      AtomicInteger n = new AtomicInteger();
      this.getters =
          Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, getterPrefix + n.getAndIncrement());
            t.setDaemon(true);
            return t;
          });
    }

    boolean failed() {
      return bugCount.get() > 0 || stall != null;
    }

    SoakBug bug(String what) {
      String m = label + ": " + what + " [" + Thread.currentThread().getName() + "]";
      // After the configuration is over, what its leftover tasks meet (a shut-down getter pool,
      // interrupts from shutdownNow) is noise: the failure that ended it is already recorded.
      if (!finished && bugCount.getAndIncrement() < 20) bugs.add(m);
      return new SoakBug(m);
    }

    SoakBug timeoutBug(String what) {
      SoakBug b = bug(what);
      dumpOnce(what);
      return b;
    }

    void dumpOnce(String why) {
      if (dumped.compareAndSet(false, true)) {
        dumpThreads(label + ": " + why + "\n  diagnosis: " + diagnose(this));
      }
    }

    // ---- node bodies

    long exec(Node n) {
      tasksRun.increment();
      n.runs++;
      Thread me = Thread.currentThread();
      n.ranOn = me;
      if (me.isInterrupted()) {
        // Between top-level tasks the flag must be clear (the JDK's pool clears it there too). A
        // task run inside a join on this thread (inline, popped or helped) shares the joiner's
        // computation, and on the JDK's pool it sees a flag a sibling set; only the joiner's own
        // accounting (absorb) judges that.
        if (startedByRunLoop()) {
          leaksAtStart.increment();
          leakPaths.add(entryPath());
        }
        Thread.interrupted(); // so the flag does not cascade into this task's waits
      }
      int kind = kind(n.seed, n.depth, n.maxDepth, overflowOdds);
      boolean interrupts = interrupter(n.seed, kind);
      try {
        long v =
            switch (kind) {
              case LEAF -> leaf(n);
              case OVERFLOW -> overflow(n);
              case FORK_JOIN -> forkJoin(n, false);
              case FORK_JOIN_REVERSE -> forkJoin(n, true);
              case INVOKE_ALL -> invokeAll(n);
              case COMPUTE_FIRST -> computeFirst(n);
              case JOIN_LONG -> joinLong(n);
              case CANCEL -> cancel(n);
              case TIMED_GET -> timedGet(n);
              case LATCH -> latch(n);
              case OUTSIDE_GET -> outsideGet(n);
              default -> throw new AssertionError(kind);
            };
        n.outValue = v;
        n.out = VALUE;
        return v;
      } catch (SoakFailure f) {
        n.outValue = f.seed;
        n.out = FAIL;
        throw f;
      } catch (StackOverflowError e) {
        n.out = OVERFLOWED;
        if (kind == OVERFLOW) overflows.increment();
        throw e;
      } catch (Throwable t) {
        n.out = BUG;
        throw t;
      } finally {
        if (interrupts) {
          interruptsSet.increment();
          me.interrupt(); // set our own flag as we return: the next task must not see it
        }
      }
    }

    long leaf(Node n) {
      if (leafThrows(n.seed)) {
        thrown.increment();
        throw new SoakFailure(n.seed);
      }
      return leafValue(n.seed);
    }

    long overflow(Node n) {
      switch (OVERFLOW_CHAINS ? variant(n.seed) % 3 : 0) {
        case 0 -> {
          return recurse(n.seed); // plain recursion
        }
        case 1 -> { // an endless fork/join chain
          Chain c = new Chain(n);
          c.fork();
          try {
            c.join();
          } catch (StackOverflowError e) {
            throw e;
          } catch (Throwable t) {
            throw bug("fork/join chain delivered " + t + " instead of StackOverflowError");
          }
          throw bug("an endless fork/join chain returned");
        }
        default -> {
          return deepJoin(0); // an endless Tine.joinLong recursion
        }
      }
    }

    Node[] kids(Node n) {
      int k = fanOut(n.seed, kind(n.seed, n.depth, n.maxDepth, overflowOdds));
      Node[] kids = new Node[k];
      for (int i = 0; i < k; i++) {
        kids[i] = new Node(this, kidSeed(n.seed, i), n.depth + 1, n.maxDepth);
      }
      n.kids = kids;
      return kids;
    }

    long forkJoin(Node n, boolean reverse) {
      Node[] kids = kids(n);
      int k = kids.length;
      Obs[] obs = new Obs[k];
      int v = variant(n.seed);
      for (Node kid : kids) kid.fork();
      boolean useGet = (v & 3) == 3;
      for (int j = 0; j < k; j++) {
        int i = reverse ? k - 1 - j : j;
        obs[i] = observe(kids[i], useGet ? HOW_GET : HOW_JOIN);
      }
      return foldKids(n, kids, obs);
    }

    long computeFirst(Node n) {
      Node[] kids = kids(n);
      int k = kids.length;
      Obs[] obs = new Obs[k];
      for (int i = 1; i < k; i++) kids[i].fork();
      obs[0] = observe(kids[0], HOW_INVOKE);
      boolean reverse = (variant(n.seed) & 1) != 0;
      for (int j = 1; j < k; j++) {
        int i = reverse ? k - j : j;
        obs[i] = observe(kids[i], HOW_JOIN);
      }
      return foldKids(n, kids, obs);
    }

    long invokeAll(Node n) {
      Node[] kids = kids(n);
      int k = kids.length;
      invokeAlls.increment();
      Throwable thrownByInvokeAll = null;
      try {
        if (k == 2 && (variant(n.seed) & 1) == 0) {
          Task.invokeAll(kids[0], kids[1]);
        } else {
          Task.invokeAll(kids);
        }
      } catch (Throwable t) {
        thrownByInvokeAll = t;
      }
      afterWait(kids);
      Throwable first = null;
      for (Node kid : kids) {
        if (!kid.isDone())
          throw bug("invokeAll returned before child " + hex(kid.seed) + " was done");
        if (first == null && kid.isCompletedAbnormally()) first = kid.getException();
      }
      if (thrownByInvokeAll != first) {
        throw bug(
            "invokeAll threw " + thrownByInvokeAll + ", expected the first child failure " + first);
      }
      Obs[] obs = new Obs[k];
      for (int i = 0; i < k; i++) obs[i] = observe(kids[i], HOW_JOIN);
      return foldKids(n, kids, obs);
    }

    long joinLong(Node n) {
      Node[] kids = kids(n);
      Node a = kids[0], b = kids[1];
      joinLongs.increment();
      Obs o;
      try {
        long v;
        if ((variant(n.seed) & 1) == 0) {
          IntToLongFunction half = i -> half(kids[i]);
          v = Tine.joinLong(half, 0, half, 1, SoakTest::combine2);
        } else {
          v = Tine.joinLong(() -> half(a), () -> half(b), SoakTest::combine2);
        }
        o = new Obs(VALUE, v, null);
      } catch (Throwable t) {
        o = ofThrowable(t);
      }
      afterWait();
      return foldKids(n, kids, new Obs[] {o});
    }

    /** A joinLong half: the node's body called directly; the caller absorbs its interrupt. */
    long half(Node kid) {
      try {
        return exec(kid);
      } finally {
        if (Thread.interrupted()
            && !interrupter(kid.seed, kind(kid.seed, kid.depth, kid.maxDepth, overflowOdds))) {
          leaksIntoJoiner.increment();
        }
      }
    }

    long cancel(Node n) {
      Node[] kids = kids(n);
      int k = kids.length;
      Obs[] obs = new Obs[k];
      n.cancelled = new byte[k];
      for (Node kid : kids) kid.fork();
      int v = variant(n.seed);
      boolean late = (v & 1) != 0 && !cancels(n.seed, 0, k);
      if (late) obs[0] = observe(kids[0], HOW_JOIN); // gives thieves time to take the others
      for (int j = 0; j < k; j++) {
        int i = (v & 2) != 0 ? j : k - 1 - j;
        if (!cancels(n.seed, i, k)) continue;
        cancelsTried.increment();
        boolean ok = kids[i].cancel();
        n.cancelled[i] = (byte) (ok ? 1 : 2);
        if (ok) {
          cancelsOk.increment();
          if (!kids[i].isCancelled() || !kids[i].isDone())
            throw bug("cancel() returned true but the task is not cancelled");
        } else if (!kids[i].isDone() || kids[i].isCancelled()) {
          throw bug("cancel() of its own fork returned false, yet the task is " + kids[i]);
        }
      }
      for (int i = late ? 1 : 0; i < k; i++)
        obs[i] = observe(kids[i], (v & 4) != 0 ? HOW_GET : HOW_JOIN);
      return foldKids(n, kids, obs);
    }

    long timedGet(Node n) {
      Node[] kids = kids(n);
      int k = kids.length;
      Obs[] obs = new Obs[k];
      for (Node kid : kids) kid.fork();
      boolean reverse = (variant(n.seed) & 1) != 0;
      boolean permit = TIMED_GET_MODE.equals("permit");
      boolean held = permit && permits.tryAcquire();
      try {
        if (permit && !held) { // join first: the timed gets below then find the children done
          for (Node kid : kids) observe(kid, HOW_JOIN);
        }
        for (int j = 0; j < k; j++) {
          int i = reverse ? k - 1 - j : j;
          timedGets.increment();
          obs[i] = observe(kids[i], HOW_TIMED_GET);
        }
      } finally {
        if (held) permits.release();
      }
      return foldKids(n, kids, obs);
    }

    long latch(Node n) {
      Node[] kids = kids(n);
      int k = kids.length;
      CountDownLatch latch = new CountDownLatch(k);
      for (Node kid : kids) kid.latch = latch;
      for (Node kid : kids) kid.fork();
      latchGroups.increment();
      Obs[] obs = new Obs[k];
      if (permits.tryAcquire()) {
        latchBlocked.increment();
        try {
          if (!latch.await(WAIT_S, TimeUnit.SECONDS)) {
            throw timeoutBug(
                "fork-then-block: "
                    + k
                    + " forked children did not count down a latch within "
                    + WAIT_S
                    + " s ("
                    + latch.getCount()
                    + " left)");
          }
        } catch (InterruptedException e) {
          throw bug("interrupted in CountDownLatch.await: an interrupt leaked into the task");
        } finally {
          permits.release();
        }
        for (int i = 0; i < k; i++) obs[i] = observe(kids[i], HOW_JOIN);
      } else {
        for (int i = 0; i < k; i++) obs[i] = observe(kids[i], HOW_JOIN);
        try {
          if (!latch.await(WAIT_S, TimeUnit.SECONDS)) {
            throw timeoutBug("every child joined but the latch is at " + latch.getCount());
          }
        } catch (InterruptedException e) {
          throw bug("interrupted in CountDownLatch.await: an interrupt leaked into the task");
        }
      }
      return foldKids(n, kids, obs);
    }

    long outsideGet(Node n) {
      Node[] kids = kids(n);
      int k = kids.length;
      for (Node kid : kids) kid.fork();
      outsideGroups.increment();
      CountDownLatch done = new CountDownLatch(1);
      boolean reverse = (variant(n.seed) & 1) != 0;
      getters.execute(() -> {
        Obs[] seen = new Obs[k];
        try {
          for (int j = 0; j < k; j++) {
            int i = reverse ? k - 1 - j : j;
            try {
              seen[i] = new Obs(VALUE, kids[i].get(), null);
            } catch (ExecutionException e) {
              seen[i] = ofThrowable(e.getCause());
            } catch (InterruptedException e) {
              return; // shut down at the end of a failed configuration
            } catch (Throwable t) {
              seen[i] = ofThrowable(t);
            }
          }
          n.outside = seen;
        } finally {
          done.countDown();
        }
      });
      Obs[] obs = new Obs[k];
      if (permits.tryAcquire()) {
        outsideBlocked.increment();
        try {
          if (!done.await(WAIT_S, TimeUnit.SECONDS)) {
            throw timeoutBug(
                "fork-then-block: an outside thread's get() of "
                    + k
                    + " forked children did not return within "
                    + WAIT_S
                    + " s");
          }
        } catch (InterruptedException e) {
          throw bug("interrupted awaiting the outside thread: an interrupt leaked into the task");
        } finally {
          permits.release();
        }
        for (int i = 0; i < k; i++) obs[i] = observe(kids[i], HOW_JOIN);
      } else {
        for (int i = 0; i < k; i++) obs[i] = observe(kids[i], HOW_JOIN);
        try {
          if (!done.await(WAIT_S, TimeUnit.SECONDS)) {
            throw timeoutBug(
                "an outside thread's get() did not return within "
                    + WAIT_S
                    + " s of the children being joined");
          }
        } catch (InterruptedException e) {
          throw bug("interrupted awaiting the outside thread: an interrupt leaked into the task");
        }
      }
      Obs[] seen = n.outside;
      if (seen == null) throw bug("the outside getter gave up");
      for (int i = 0; i < k; i++) {
        Obs a = obs[i], b = seen[i];
        boolean same =
            a.kind == b.kind
                && (a.kind == VALUE ? a.value == b.value : a.kind == CANCELLED || a.ex == b.ex);
        if (!same)
          throw bug(
              "child " + hex(kids[i].seed) + ": join gave " + a + ", an outside get() gave " + b);
      }
      return foldKids(n, kids, obs);
    }

    static final int HOW_JOIN = 0, HOW_GET = 1, HOW_TIMED_GET = 2, HOW_INVOKE = 3;

    /** Waits for a child the given way and classifies its outcome; absorbs a returned interrupt. */
    Obs observe(Node kid, int how) {
      Obs o;
      try {
        long v =
            switch (how) {
              case HOW_JOIN -> kid.join();
              case HOW_GET -> kid.get();
              case HOW_INVOKE -> kid.invoke();
              default -> kid.get(WAIT_S, TimeUnit.SECONDS);
            };
        o = new Obs(VALUE, v, null);
      } catch (ExecutionException e) {
        o = ofThrowable(e.getCause());
      } catch (TimeoutException e) {
        o =
            new Obs(
                BUG,
                0,
                timeoutBug(
                    "timed get: child.get("
                        + WAIT_S
                        + " s) of a forked child expired ("
                        + (eager ? "eager" : "latent")
                        + " fork, "
                        + kid
                        + ")"));
      } catch (InterruptedException e) {
        o =
            new Obs(
                BUG, 0, bug("get() threw InterruptedException: an interrupt leaked into the task"));
      } catch (Throwable t) {
        o = ofThrowable(t);
      }
      afterWait(kid);
      return o;
    }

    /**
     * After a wait that may have run tasks on this thread: clear the interrupt flag. It is expected
     * if one of the given children, run here, set it as it returned to us; otherwise it leaked out
     * of a task the runtime ran while we waited (counted; only tasks that start with the flag set
     * fail the soak).
     */
    void afterWait(Node... direct) {
      Thread me = Thread.currentThread();
      if (!Thread.interrupted()) return;
      for (Node d : direct) {
        if (d.ranOn == me && interrupter(d.seed, kind(d.seed, d.depth, d.maxDepth, overflowOdds)))
          return;
      }
      leaksIntoJoiner.increment();
    }

    /** Folds the children's outcomes in child order; throws the first propagated failure. */
    long foldKids(Node n, Node[] kids, Obs[] obs) {
      long acc = n.seed;
      Throwable propagate = null;
      SoakBug firstBug = null;
      for (int i = 0; i < obs.length; i++) {
        Obs o = obs[i];
        long c = 0;
        boolean wasCancelled = n.cancelled != null && n.cancelled[i] == 1;
        if (wasCancelled != (o.kind == CANCELLED) && o.kind != BUG) {
          o =
              new Obs(
                  BUG,
                  0,
                  bug(
                      "child "
                          + hex(kids[i].seed)
                          + (wasCancelled
                              ? ": cancel() returned true but the joiner saw " + o
                              : ": joiner saw a CancellationException but the task was not cancelled")));
        }
        switch (o.kind) {
          case VALUE -> c = o.value;
          case FAIL, OVERFLOWED -> {
            n.delivered++;
            if (catches(n.seed, i)) {
              c = o.kind == FAIL ? mix(o.value ^ FAIL_TAG) : OVERFLOW_TAG;
            } else if (propagate == null) {
              propagate = o.ex;
            }
          }
          case CANCELLED -> c = mix(kids[i].seed ^ CANCEL_TAG);
          default -> {
            if (firstBug == null) {
              firstBug =
                  o.ex instanceof SoakBug b
                      ? b
                      : bug("child " + hex(kids[i].seed) + " failed with " + o.ex);
            }
          }
        }
        acc = fold(acc, c);
      }
      if (firstBug != null) throw firstBug;
      if (propagate instanceof RuntimeException r) throw r;
      if (propagate instanceof Error e) throw e;
      return acc;
    }

    /** How the runtime came to start this task: its frames down to the user code below them. */
    /** True if no join of this thread is below this task: the worker's run loop started it. */
    static boolean startedByRunLoop() {
      for (StackTraceElement e : Thread.currentThread().getStackTrace()) {
        String c = e.getClassName(), m = e.getMethodName();
        // The join methods live in HelpingJoin and LatentJoins (they were Worker's until the core
        // was split into one protocol per file; matching Worker alone made every join a "run
        // loop").
        if (((c.equals("dev.tine.HelpingJoin") || c.equals("dev.tine.LatentJoins"))
                && (m.startsWith("awaitJoin")
                    || m.equals("awaitGet")
                    || m.equals("helpJoin")
                    || m.startsWith("takeBack")))
            || (c.equals("dev.tine.Task") && m.equals("execLatent"))) {
          return false;
        }
      }
      return true;
    }

    String entryPath() {
      StackTraceElement[] st = Thread.currentThread().getStackTrace();
      List<String> frames = new ArrayList<>();
      int i = 0;
      while (i < st.length && !st[i].getMethodName().equals("exec")) i++;
      for (i++; i < st.length && frames.size() < 12; i++) {
        String c = st[i].getClassName(), m = st[i].getMethodName();
        boolean ours = c.startsWith(SoakTest.class.getName());
        if (ours && (m.equals("half") || m.startsWith("lambda$") || c.contains("$$Lambda")))
          continue;
        String f = simple(c) + "." + m;
        if (!frames.isEmpty() && frames.get(frames.size() - 1).equals(f))
          continue; // bridge methods
        frames.add(f);
        if (ours && !c.equals(Node.class.getName())) break;
      }
      return String.join(" <- ", frames);
    }

    // ---- the sequential recomputation

    Obs expect(Node a, String path) {
      int kind = kind(a.seed, a.depth, a.maxDepth, overflowOdds);
      String where = "root " + path + " (" + KIND_NAMES[kind] + " node " + hex(a.seed) + ")";
      // Collateral overflows. A worker deep in an overflowing chain helps: it runs other tasks on
      // its deep stack (on the JDK's pool too), and those may overflow anywhere, before making
      // their children or at the entry of compute. That is not a lost task as long as the task
      // itself completed with the StackOverflowError; its subtree is then unpredictable.
      // (runs 1 with no outcome: it overflowed in exec's own bookkeeping, before its try.)
      if (kind != OVERFLOW
          && a.isDone()
          && a.getException() instanceof StackOverflowError
          && (a.runs == 0 || a.out == OVERFLOWED || (a.runs == 1 && a.out == 0))) {
        collateralOverflows.increment();
        return new Obs(OVERFLOWED, 0, null);
      }
      if (a.runs != 1) {
        throw new SoakBug(
            where
                + " ran "
                + a.runs
                + " times"
                + (a.runs == 0
                    ? ", yet its parent got an outcome for it ("
                        + outName(a.out)
                        + "); the task: "
                        + a
                        + (a.getException() != null ? ", " + a.getException() : "")
                    : ""));
      }
      Obs e;
      int deliveries = 0;
      switch (kind) {
        case LEAF ->
            e =
                leafThrows(a.seed)
                    ? new Obs(FAIL, a.seed, null)
                    : new Obs(VALUE, leafValue(a.seed), null);
        case OVERFLOW -> e = new Obs(OVERFLOWED, 0, null);
        default -> {
          int k = fanOut(a.seed, kind);
          if (a.kids == null || a.kids.length != k)
            throw new SoakBug(where + " made the wrong children");
          Obs[] kidObs;
          if (kind == JOIN_LONG) {
            Obs ea = expect(a.kids[0], path + ".0");
            Obs r;
            if (ea.exceptional()) {
              r = ea; // the second half is dropped (latent) or its outcome ignored
            } else {
              Obs eb = expect(a.kids[1], path + ".1");
              r = eb.exceptional() ? eb : new Obs(VALUE, combine2(ea.value, eb.value), null);
            }
            kidObs = new Obs[] {r};
          } else {
            kidObs = new Obs[k];
            for (int i = 0; i < k; i++) {
              boolean c = kind == CANCEL && a.cancelled != null && a.cancelled[i] == 1;
              kidObs[i] = c ? new Obs(CANCELLED, 0, null) : expect(a.kids[i], path + "." + i);
            }
          }
          long acc = a.seed;
          Obs prop = null;
          for (int i = 0; i < kidObs.length; i++) {
            Obs o = kidObs[i];
            long c = 0;
            switch (o.kind) {
              case VALUE -> c = o.value;
              case FAIL, OVERFLOWED -> {
                deliveries++;
                if (catches(a.seed, i)) {
                  if (o.kind == FAIL) caughtExpected++;
                  c = o.kind == FAIL ? mix(o.value ^ FAIL_TAG) : OVERFLOW_TAG;
                } else if (prop == null) {
                  prop = o;
                } else if (o.kind == FAIL) {
                  superseded++;
                }
              }
              case CANCELLED -> c = mix(a.kids[i].seed ^ CANCEL_TAG);
              default -> throw new AssertionError(o);
            }
            acc = fold(acc, c);
          }
          e = prop != null ? prop : new Obs(VALUE, acc, null);
        }
      }
      if (a.delivered != deliveries) {
        throw new SoakBug(
            where + " observed " + a.delivered + " child failures, expected " + deliveries);
      }
      boolean same = a.out == e.kind && (e.kind == OVERFLOWED || a.outValue == e.value);
      if (!same) {
        throw new SoakBug(
            where + " ended with " + new Obs(a.out, a.outValue, null) + ", expected " + e);
      }
      return e;
    }

    /** Checks a completed root against the sequential recomputation. */
    void verify(Node root, long rootIndex) {
      roots++;
      Obs got;
      try {
        got = new Obs(VALUE, root.get(), null);
      } catch (ExecutionException e) {
        got = ofThrowable(e.getCause());
      } catch (Throwable t) {
        got = ofThrowable(t);
      }
      if (got.kind == BUG) {
        if (!(got.ex instanceof SoakBug)) bug("root " + rootIndex + " failed with " + got.ex);
        return; // already recorded where it was seen
      }
      long caughtBefore = caughtExpected, supersededBefore = superseded;
      try {
        Obs e = expect(root, "#" + rootIndex);
        if (got.kind != e.kind || (e.kind != OVERFLOWED && got.value != e.value)) {
          throw new SoakBug(
              "root #"
                  + rootIndex
                  + " ("
                  + hex(root.seed)
                  + "): got "
                  + got
                  + ", the sequential recomputation says "
                  + e);
        }
        // Every node's deliveries matched, so every catch the recomputation expects happened.
        caught += caughtExpected - caughtBefore;
        if (got.kind == FAIL) atRoots++;
      } catch (SoakBug b) {
        caughtExpected = caughtBefore;
        superseded = supersededBefore;
        bug(b.getMessage());
      }
    }

    // ---- the driver

    void drive() {
      long t0 = System.nanoTime();
      Thread watchdog = new Thread(this::watch, "soak-watchdog-" + prefix);
      watchdog.setDaemon(true);
      watchdog.start();
      ArrayDeque<Node> inflight = new ArrayDeque<>();
      ArrayDeque<Long> indices = new ArrayDeque<>();
      int window = p + 1;
      long next = 0;
      long failedAt = 0;
      try {
        for (; ; ) {
          if (failed() && failedAt == 0) failedAt = System.nanoTime();
          while (!failed() && inflight.size() < window && tasksRun.sum() < budget) {
            long rs = mix(seed ^ mix(next + 0x1234_5678L));
            int maxDepth = 3 + (int) rem(mix(rs ^ 0xDEE9L), 7);
            Node root = new Node(this, rs, 0, maxDepth);
            pool.submit(root);
            inflight.add(root);
            indices.add(next++);
          }
          if (inflight.isEmpty()) break;
          if (stall != null) break;
          if (failedAt != 0 && System.nanoTime() - failedAt > TimeUnit.SECONDS.toNanos(5)) break;
          // Wait for any root, watching the stall flag.
          boolean progressed = false;
          Iterator<Node> it = inflight.iterator();
          Iterator<Long> ix = indices.iterator();
          while (it.hasNext()) {
            Node r = it.next();
            long i = ix.next();
            if (r.isDone()) {
              it.remove();
              ix.remove();
              verify(r, i);
              progressed = true;
            }
          }
          if (!progressed) {
            try {
              inflight.peekFirst().get(50, TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException | CancellationException ignored) {
              // looked at on the next sweep
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new AssertionError("soak driver interrupted", e);
            }
          }
        }
        if (!inflight.isEmpty()) {
          bug(inflight.size() + " roots still pending when the configuration was abandoned");
        }
        if (leaksAtStart.sum() != 0) {
          bug(
              leaksAtStart.sum()
                  + " tasks started with the interrupt flag set (left by an earlier task); entered via: "
                  + String.join(" | ", leakPaths));
        }
      } finally {
        finished = true;
        seconds = (System.nanoTime() - t0) / 1e9;
        snap = snapshot();
        closePool();
      }
    }

    void watch() {
      long last = -1, lastChange = System.nanoTime();
      while (!finished) {
        try {
          Thread.sleep(250);
        } catch (InterruptedException e) {
          return;
        }
        long now = rootsDone.sum() + roots;
        if (now != last) {
          last = now;
          lastChange = System.nanoTime();
        } else if (System.nanoTime() - lastChange > TimeUnit.SECONDS.toNanos(STALL_S)) {
          String diag = diagnose(this);
          dumpThreads(
              label + ": watchdog: no root completed for " + STALL_S + " s\n  diagnosis: " + diag);
          stall = "stalled: no root completed for " + STALL_S + " s; " + diag;
          return;
        }
      }
    }

    void closePool() {
      if (failed()) {
        pool.shutdownNow(); // a failed configuration's tasks may be wedged: cancel what is queued
      }
      Thread closer = new Thread(pool::close, "soak-closer-" + prefix);
      closer.setDaemon(true);
      closer.start();
      try {
        // A failed configuration's wedged tasks usually keep close() from returning: wait less.
        closer.join(TimeUnit.SECONDS.toMillis(failed() ? Math.min(CLOSE_S, 10) : CLOSE_S));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      getters.shutdownNow();
      try {
        getters.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      long alive = liveThreadsNamed(prefix);
      if (closer.isAlive()) {
        closeProblem = "close() did not return in time; " + alive + " workers alive";
        dumpOnce("close() did not return");
      } else if (alive != 0) {
        closeProblem = alive + " worker threads alive after close()";
      }
      if (closeProblem != null) {
        bugCount.incrementAndGet();
        bugs.add(label + ": " + closeProblem);
      }
    }

    List<String> problems() {
      List<String> all = new ArrayList<>();
      if (stall != null) all.add(label + ": " + stall);
      all.addAll(bugs);
      if (bugCount.get() > bugs.size())
        all.add(label + ": ... and " + (bugCount.get() - bugs.size()) + " more");
      return all;
    }

    /** The counters when the configuration ended, before close (leftover tasks may add noise). */
    record Snapshot(
        long tasks,
        long thrown,
        long cancelsOk,
        long cancelsTried,
        long timedGets,
        long latchBlocked,
        long latchGroups,
        long outsideBlocked,
        long outsideGroups,
        long overflows,
        long interruptsSet,
        long leaksAtStart,
        long leaksIntoJoiner,
        long joinLongs,
        long invokeAlls) {}

    Snapshot snap;

    Snapshot snapshot() {
      return new Snapshot(
          tasksRun.sum(),
          thrown.sum(),
          cancelsOk.sum(),
          cancelsTried.sum(),
          timedGets.sum(),
          latchBlocked.sum(),
          latchGroups.sum(),
          outsideBlocked.sum(),
          outsideGroups.sum(),
          overflows.sum(),
          interruptsSet.sum(),
          leaksAtStart.sum(),
          leaksIntoJoiner.sum(),
          joinLongs.sum(),
          invokeAlls.sum());
    }

    String summary() {
      Snapshot c = snap;
      return String.format(
          Locale.ROOT,
          "%-10s %-4s  tasks %,11d  roots %,7d  exceptions thrown %,9d delivered %,9d (caught %,d, at roots %,d;"
              + " superseded %,d)  cancelled %,d of %,d  timed gets %,d  blocking groups %,d (latch %,d of %,d,"
              + " outside get %,d of %,d)  overflows %,d (collateral %,d)  interrupts set %,d, leaked %,d (into joiners %,d)"
              + "  joinLong %,d  invokeAll %,d  %.1f s",
          label,
          failed() ? "FAIL" : "ok",
          c.tasks,
          roots,
          c.thrown,
          caught + atRoots,
          caught,
          atRoots,
          superseded,
          c.cancelsOk,
          c.cancelsTried,
          c.timedGets,
          c.latchBlocked + c.outsideBlocked,
          c.latchBlocked,
          c.latchGroups,
          c.outsideBlocked,
          c.outsideGroups,
          c.overflows,
          collateralOverflows.sum(),
          c.interruptsSet,
          c.leaksAtStart,
          c.leaksIntoJoiner,
          c.joinLongs,
          c.invokeAlls,
          seconds);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Diagnostics

  static String hex(long x) {
    return Long.toHexString(x);
  }

  static String simple(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }

  static long liveThreadsNamed(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith(prefix))
        .count();
  }

  /** One line: where each of the configuration's threads is. */
  static String diagnose(Run run) {
    String getterPrefix = run.prefix.replace("-worker-", "-getter-");
    List<String> parts = new ArrayList<>();
    for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
      Thread t = e.getKey();
      String name = t.getName();
      if (!name.startsWith(run.prefix) && !name.startsWith(getterPrefix)) continue;
      StackTraceElement[] st = e.getValue();
      String top =
          st.length == 0 ? "?" : simple(st[0].getClassName()) + "." + st[0].getMethodName();
      String in = "";
      for (StackTraceElement f : st) {
        if (f.getClassName().startsWith("dev.tine.")) {
          in =
              " in " + simple(f.getClassName()) + "." + f.getMethodName() + ":" + f.getLineNumber();
          break;
        }
      }
      String soak = "";
      for (StackTraceElement f : st) {
        if (f.getClassName().startsWith(SoakTest.class.getName())
            && !f.getMethodName().startsWith("lambda")) {
          soak = " from " + simple(f.getClassName()) + "." + f.getMethodName();
          break;
        }
      }
      parts.add(
          name.substring(name.indexOf("-", 5) + 1)
              + " "
              + t.getState()
              + " at "
              + top
              + in
              + soak
              + " (depth "
              + st.length
              + ")");
    }
    parts.sort(null);
    return run.label + ", pool " + run.pool + ": " + String.join(" | ", parts);
  }

  static void dumpThreads(String header) {
    StringBuilder sb = new StringBuilder();
    sb.append("\n===== SOAK THREAD DUMP: ").append(header).append('\n');
    ThreadInfo[] infos = ManagementFactory.getThreadMXBean().dumpAllThreads(true, true, 60);
    for (ThreadInfo ti : infos) {
      sb.append('"')
          .append(ti.getThreadName())
          .append("\" #")
          .append(ti.getThreadId())
          .append(ti.isDaemon() ? " daemon " : " ")
          .append(ti.getThreadState());
      if (ti.getLockName() != null) sb.append(" on ").append(ti.getLockName());
      if (ti.getLockOwnerName() != null)
        sb.append(" owned by \"").append(ti.getLockOwnerName()).append('"');
      sb.append('\n');
      StackTraceElement[] st = ti.getStackTrace();
      MonitorInfo[] monitors = ti.getLockedMonitors();
      for (int i = 0; i < st.length; i++) {
        sb.append("\tat ").append(st[i]).append('\n');
        for (MonitorInfo m : monitors) {
          if (m.getLockedStackDepth() == i) sb.append("\t- locked ").append(m).append('\n');
        }
      }
      if (st.length == 60) sb.append("\t... (deeper frames not shown)\n");
      for (LockInfo l : ti.getLockedSynchronizers()) sb.append("\t- owns ").append(l).append('\n');
      sb.append('\n');
    }
    sb.append("===== END SOAK THREAD DUMP\n");
    System.err.print(sb);
    System.err.flush();
  }

  // ---------------------------------------------------------------------------------------------

  /** The long soak: {@code soak.tasks} tasks (10^7 by default), only with {@code -Psoak}. */
  @Test
  @Tag("soak")
  void soak() {
    soak(TASKS);
  }

  /**
   * The short soak that every {@code ./mvnw verify} runs: {@code soak.shortTasks} tasks (10^6 by
   * default, under a minute on two cores) over the same configurations, with the same checks. It is
   * there so that a regression that breaks the soak fails the build, not the next long run: one
   * that let about 1% of tasks start with an interrupt left by an earlier task showed here as
   * thousands of leaks.
   */
  @Test
  void shortSoak() {
    soak(SHORT_TASKS);
  }

  void soak(long totalTasks) {
    List<Integer> ps = new ArrayList<>();
    for (String s : PARALLELISM.split(",")) ps.add(Integer.parseInt(s.trim()));
    List<Boolean> modes = new ArrayList<>();
    for (String s : MODES.split(",")) {
      switch (s.trim()) {
        case "latent" -> modes.add(false);
        case "eager" -> modes.add(true);
        default -> throw new IllegalArgumentException("soak.modes: latent and/or eager, not " + s);
      }
    }
    int configs = ps.size() * modes.size();
    long perConfig = Math.max(1, (totalTasks + configs - 1) / configs);
    System.out.printf(
        Locale.ROOT,
        "SOAK: %,d tasks (%,d per configuration), seed %#x, parallelism %s, modes %s%n",
        totalTasks,
        perConfig,
        SEED,
        PARALLELISM,
        MODES);
    List<Run> runs = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    long t0 = System.nanoTime();
    outer:
    for (int p : ps) {
      for (boolean eager : modes) {
        Run run = new Run(p, eager, perConfig, mix(SEED * 31 + p * 2 + (eager ? 1 : 0)));
        run.drive();
        runs.add(run);
        System.out.println("SOAK " + run.summary());
        for (String pr : run.problems()) System.out.println("SOAK   " + pr);
        System.out.flush();
        problems.addAll(run.problems());
        if (FAIL_FAST && run.failed()) break outer;
      }
    }
    double total = (System.nanoTime() - t0) / 1e9;
    StringBuilder sb =
        new StringBuilder("\n===== SOAK SUMMARY (seed " + String.format("%#x", SEED) + ")\n");
    long tasks = 0,
        roots = 0,
        thrown = 0,
        delivered = 0,
        cancels = 0,
        timed = 0,
        blocking = 0,
        overflows = 0;
    long interrupts = 0, leaks = 0;
    for (Run r : runs) {
      sb.append("SOAK ").append(r.summary()).append('\n');
      Run.Snapshot c = r.snap;
      tasks += c.tasks();
      roots += r.roots;
      thrown += c.thrown();
      delivered += r.caught + r.atRoots;
      cancels += c.cancelsOk();
      timed += c.timedGets();
      blocking += c.latchBlocked() + c.outsideBlocked();
      overflows += c.overflows();
      interrupts += c.interruptsSet();
      leaks += c.leaksAtStart();
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "SOAK %-10s %-4s  tasks %,11d  roots %,7d  exceptions thrown %,9d delivered %,9d  cancelled %,d  timed gets %,d"
                + "  blocking groups %,d  overflows %,d  interrupts set %,d, leaked %,d  %.1f s%n",
            "total",
            problems.isEmpty() ? "ok" : "FAIL",
            tasks,
            roots,
            thrown,
            delivered,
            cancels,
            timed,
            blocking,
            overflows,
            interrupts,
            leaks,
            total));
    System.out.print(sb);
    System.out.flush();
    if (!problems.isEmpty()) {
      fail("soak failed:\n  " + String.join("\n  ", problems));
    }
  }
}

package dev.tine.fuzz;

import dev.tine.fuzz.Failures.FuzzChecked;
import dev.tine.fuzz.Failures.FuzzError;
import dev.tine.fuzz.Failures.FuzzUnchecked;
import dev.tine.fuzz.Program.Cancel;
import dev.tine.fuzz.Program.Catch;
import dev.tine.fuzz.Program.Const;
import dev.tine.fuzz.Program.Fail;
import dev.tine.fuzz.Program.FailKind;
import dev.tine.fuzz.Program.ForkJoin;
import dev.tine.fuzz.Program.ForkThenWait;
import dev.tine.fuzz.Program.InterruptedGet;
import dev.tine.fuzz.Program.JoinForm;
import dev.tine.fuzz.Program.JoinTop;
import dev.tine.fuzz.Program.Nested;
import dev.tine.fuzz.Program.Node;
import dev.tine.fuzz.Program.ObserveLocal;
import dev.tine.fuzz.Program.Range;
import dev.tine.fuzz.Program.RangeForm;
import dev.tine.fuzz.Program.Rendezvous;
import dev.tine.fuzz.Program.SelfInterrupt;
import dev.tine.fuzz.Program.Seq;
import dev.tine.fuzz.Program.Spawn;
import dev.tine.fuzz.Program.SubmitInside;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntToLongFunction;

/**
 * Runs a {@link Program} on one runtime at one parallelism and records its {@link Outcome}. The
 * evaluation is written once, here; a subclass per runtime supplies the few operations that differ
 * (pools, tasks, the join forms, ranges, managedBlock), so both runtimes run the same program.
 *
 * <p>A run happens on a driver thread and is bounded by a deadline: past it the run counts as
 * wedged and is torn down (every wait the program made is released, every pool is shut down, every
 * thread of the run is interrupted), so that a wedge does not poison the runs after it. Threads of
 * a run carry its name prefix, which is how threads left behind are found.
 */
abstract class Interpreter {
  /** The timeout of timed waits: far beyond any run's deadline, so it never fires in a good run. */
  static final long GENEROUS_SECONDS = 120;

  /** How long an interrupted get may ignore its interrupt before the fuzzer releases it. */
  static final long IGNORED_INTERRUPT_MILLIS = 3_000;

  private static final long SENTINEL = Long.MIN_VALUE;
  private static final AtomicInteger RUNS = new AtomicInteger();

  final Program program;
  final int parallelism;
  final Outcome out;
  final String prefix;
  private final Reachability reach;

  /** The frames of tasks running on this thread; each task restores it when it returns. */
  private final ThreadLocal<Frame> context = new ThreadLocal<>();

  /** Set by every task at entry and never restored, as careless user code does. */
  private final ThreadLocal<Integer> careless = new ThreadLocal<>();

  private final List<Runnable> releasers = Collections.synchronizedList(new ArrayList<>());
  private final List<Object> pools = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger names = new AtomicInteger();
  private volatile List<Handle> topHandles = List.of();
  volatile boolean killed;

  /** The run's shared resources for {@link Program.Blocking}: a Semaphore(2) and one monitor. */
  private final Semaphore sharedSemaphore = new Semaphore(2);

  private final Object sharedMonitor = new Object();

  /** Threads of the main pool now inside a top-level task's body, and the most at once. */
  private final AtomicInteger topsRunning = new AtomicInteger();

  private final AtomicInteger topsRunningMax = new AtomicInteger();

  /** Top-level task bodies on this thread's stack (a join may run one inside another). */
  private final ThreadLocal<int[]> topDepth = ThreadLocal.withInitial(() -> new int[1]);

  /** The main pool's threads that ran any task of the program. */
  private final java.util.Set<Thread> mainThreads = ConcurrentHashMap.newKeySet();

  Interpreter(Program program, int parallelism, String runtime) {
    this.program = program;
    this.parallelism = parallelism;
    this.out = new Outcome(runtime, parallelism);
    this.prefix = "fuzz-" + runtime + "-" + RUNS.incrementAndGet() + "-";
    this.reach = new Reachability(program);
  }

  // ---------------------------------------------------------------------------------------------
  // What a runtime supplies

  /** A task of the runtime. */
  interface Handle {
    void fork();

    long join();

    long get() throws InterruptedException, ExecutionException;

    long get(long timeout, TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException;

    boolean cancel();

    boolean tryUnfork();

    long invoke();

    void quietlyJoin();
  }

  /** ManagedBlocker, runtime-neutral. */
  interface Blocker {
    boolean block() throws InterruptedException;

    boolean isReleasable();
  }

  abstract Object newPool(int parallelism, String threadPrefix);

  /** Orderly close: waits for the pool's tasks. */
  abstract void closePool(Object pool);

  /** shutdownNow. */
  abstract void killPool(Object pool);

  abstract Handle task(Callable<Long> body);

  abstract void submit(Object pool, Handle task);

  /** The pool of the calling worker. */
  abstract Object currentPool();

  abstract long invokeIn(Object pool, Handle task);

  abstract void invokeAll(Handle a, Handle b);

  abstract void invokeAll(List<Handle> tasks);

  /** The runtime's two-halves join (Scope/Tine join on Tine; fork/compute/join on the JDK). */
  abstract long joinHalves(JoinForm form, Callable<Long> left, Callable<Long> right)
      throws Exception;

  abstract long range(RangeForm form, int from, int to, IntToLongFunction body);

  abstract void managedBlock(Blocker blocker) throws InterruptedException;

  // ---------------------------------------------------------------------------------------------
  // A run

  /** Runs the program; returns its outcome, {@code wedged} if it did not finish by the deadline. */
  Outcome run(Duration deadline) {
    Object pool = newPool(parallelism, prefix + "main-");
    pools.add(pool);
    List<Handle> tops = new ArrayList<>();
    for (Spawn top : program.tops()) {
      tops.add(tracked(() -> runTop(top)));
    }
    topHandles = tops;
    String[] results = new String[tops.size()];
    CountDownLatch done = new CountDownLatch(1);
    Thread driver =
        new Thread(
            () -> {
              for (Handle h : tops) {
                submit(pool, h);
              }
              for (int i = 0; i < tops.size(); i++) {
                results[i] = outcomeOf(tops.get(i)::join);
              }
              closePool(pool);
              done.countDown();
            },
            prefix + "driver");
    driver.setDaemon(true);
    driver.start();
    boolean finished;
    try {
      finished = done.await(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      finished = false;
    }
    if (!finished) {
      out.wedged = true;
      out.notes.add("wedged; threads: " + stacks());
      kill();
    }
    for (String r : results) {
      out.tops.add(r == null ? "not finished" : r);
    }
    out.maxTopsRunning = topsRunningMax.get();
    out.threadsRan = mainThreads.size();
    boolean managed = program.tops().stream().anyMatch(t -> Program.usesManagedBlock(t.body()));
    boolean flat = program.tops().stream().allMatch(t -> Program.flat(t.body()));
    out.topsBound = managed ? Integer.MAX_VALUE : topsBound(flat);
    out.threadsBound = managed || !flat ? Integer.MAX_VALUE : parallelism;
    // A finished run's threads exit promptly after close; a torn-down run has had its chance.
    out.leftThreads = awaitThreadsGone(finished ? 20_000 : 2_000);
    if (out.leftThreads > 0) {
      out.notes.add("threads left behind: " + stacks());
    }
    return out;
  }

  /** Releases every wait the program made, shuts its pools down and interrupts its threads. */
  private void kill() {
    killed = true;
    for (int round = 0; round < 3 && liveThreads().size() > 0; round++) {
      List<Runnable> rs;
      synchronized (releasers) {
        rs = new ArrayList<>(releasers);
      }
      for (Runnable r : rs) {
        try {
          r.run();
        } catch (RuntimeException ignored) {
          // best effort
        }
      }
      List<Object> ps;
      synchronized (pools) {
        ps = new ArrayList<>(pools);
      }
      for (Object p : ps) {
        killPool(p);
      }
      for (Thread t : liveThreads()) {
        t.interrupt();
      }
      sleep(200);
    }
  }

  private int awaitThreadsGone(long millis) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    List<Thread> live;
    for (int polls = 0; !(live = liveThreads()).isEmpty() && System.nanoTime() < end; polls++) {
      sleep(polls < 20 ? 1 : 10); // usually gone within a few milliseconds of close
    }
    return live.size();
  }

  /** The live threads of this run, found by name prefix (cheap: no stack walk, no safepoint). */
  List<Thread> liveThreads() {
    ThreadGroup root = Thread.currentThread().getThreadGroup();
    while (root.getParent() != null) {
      root = root.getParent();
    }
    Thread[] all = new Thread[root.activeCount() + 64];
    int n = root.enumerate(all, true);
    List<Thread> live = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (all[i].getName().startsWith(prefix) && all[i].isAlive()) {
        live.add(all[i]);
      }
    }
    return live;
  }

  private String stacks() {
    StringBuilder s = new StringBuilder();
    for (Thread t : liveThreads()) {
      s.append("\n  ").append(t.getName()).append(' ').append(t.getState());
      StackTraceElement[] st = t.getStackTrace();
      for (int i = 0; i < Math.min(6, st.length); i++) {
        s.append("\n      at ").append(st[i]);
      }
    }
    return s.toString();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The most top-level tasks a runtime promises to run at once in a program without managedBlock: p
   * if every task is {@link Program#flat} (no runtime has a reason to add a thread), else none (the
   * JDK's joins and CompletableFuture waits compensate, and the thread they add may run a
   * submission; Tine's stall spare does too while every other worker waits where the JDK
   * compensates, and otherwise runs only parked workers' own forks).
   */
  int topsBound(boolean flat) {
    return flat ? parallelism : Integer.MAX_VALUE;
  }

  /** Runs a top-level task, counting the main pool's threads inside one at once. */
  private long runTop(Spawn top) throws Exception {
    boolean main = Thread.currentThread().getName().startsWith(prefix + "main-");
    int[] depth = topDepth.get();
    if (main && depth[0]++ == 0) {
      int n = topsRunning.incrementAndGet();
      topsRunningMax.accumulateAndGet(n, Math::max);
    }
    try {
      return runSpawn(top);
    } finally {
      if (main && --depth[0] == 0) {
        topsRunning.decrementAndGet();
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Evaluation

  private Handle task(Spawn s) {
    return tracked(() -> runSpawn(s));
  }

  /** A task the teardown of a wedged run will cancel. */
  private Handle tracked(Callable<Long> body) {
    Handle h = task(body);
    releasers.add(h::cancel);
    return h;
  }

  /** The tasks whose frames are on this thread's stack, innermost first. */
  private record Frame(int task, Frame below) {}

  /** Runs a spawn's body as a task's frame: observes what the task sees at entry. */
  long runSpawn(Spawn s) throws Exception {
    if (Thread.currentThread().getName().startsWith(prefix + "main-")) {
      mainThreads.add(Thread.currentThread());
    }
    Frame below = context.get();
    if (below != null && !reachableFromStack(below, s.id())) {
      // Not compared, counted: the JDK does this too (its helpJoin runs the oldest task of any
      // queue on the joiner's steal chain, which may belong to an unrelated frame of the thief).
      out.unrelatedFrames.incrementAndGet();
      out.notes.add("task " + s.id() + " ran inside the frame of unrelated task " + below.task());
    }
    String entry = "entry";
    if (Thread.currentThread().isInterrupted()) {
      entry += " interrupted";
    }
    out.observe(s.id(), entry);
    careless.set(s.id());
    context.set(new Frame(s.id(), below));
    try {
      return eval(s.body(), s.id());
    } finally {
      context.set(below);
    }
  }

  /**
   * Whether some task on the stack reaches {@code task}: a worker waiting in a join may run the
   * pending forks of any frame below it (they share the thread's computation), not only its own.
   */
  private boolean reachableFromStack(Frame stack, int task) {
    for (Frame f = stack; f != null; f = f.below()) {
      if (reach.reaches(f.task(), task)) {
        return true;
      }
    }
    return false;
  }

  private long eval(Node n, int task) throws Exception {
    return switch (n) {
      case Const c -> c.value();
      case Seq s -> {
        long sum = 0;
        for (Node item : s.items()) {
          sum += eval(item, task);
        }
        yield sum;
      }
      case Fail f -> throw Failures.sneaky(fail(f.id(), f.kind()));
      case Catch c -> {
        try {
          long v = eval(c.body(), task);
          out.observe(c.id(), "returned");
          yield v;
        } catch (Throwable t) {
          out.observe(c.id(), "caught " + out.describe(t));
          yield 0;
        }
      }
      case ForkJoin f -> forkJoin(f);
      case Cancel c -> cancel(c);
      case ForkThenWait w -> forkThenWait(w);
      case Rendezvous r -> rendezvous(r.parties());
      case Range r ->
          range(
              r.form(),
              r.from(),
              r.to(),
              i -> {
                if (r.fails() && i == r.failAt()) {
                  throw Failures.sneaky(out.origin(new FuzzUnchecked(), r.id()));
                }
                return i & 0xFF;
              });
      case SubmitInside s -> {
        Handle h = task(s.child());
        submit(currentPool(), h);
        yield s.get() ? h.get() : h.join();
      }
      case Nested x -> nested(x);
      case JoinTop j -> {
        if (j.top() >= topHandles.size()) {
          yield 0;
        }
        Handle h = topHandles.get(j.top());
        yield j.get() ? h.get() : h.join();
      }
      case SelfInterrupt s -> selfInterrupt(s);
      case InterruptedGet g -> interruptedGet(g);
      case ObserveLocal o -> {
        Integer v = careless.get();
        Frame stack = context.get();
        if (v != null && !reachableFromStack(stack, v)) {
          out.unrelatedLocals.incrementAndGet(); // counted, as unrelated frames are
          out.notes.add("task " + task + " sees the thread-local of unrelated task " + v);
        }
        out.observe(o.id(), "thread-local read");
        yield 0;
      }
      case Program.Blocking b -> block(b);
    };
  }

  private long block(Program.Blocking b) throws InterruptedException {
    String seen = "returned";
    try {
      switch (b.form()) {
        case SLEEP -> Thread.sleep(b.millis());
        case SEMAPHORE -> {
          sharedSemaphore.acquire();
          try {
            Thread.sleep(b.millis());
          } finally {
            sharedSemaphore.release();
          }
        }
        case MONITOR -> {
          synchronized (sharedMonitor) {
            Thread.sleep(b.millis());
          }
        }
        case MANAGED_SLEEP -> {
          long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(b.millis());
          managedBlock(
              new Blocker() {
                @Override
                public boolean block() throws InterruptedException {
                  long left = end - System.nanoTime();
                  if (left > 0) {
                    TimeUnit.NANOSECONDS.sleep(left);
                  }
                  return true;
                }

                @Override
                public boolean isReleasable() {
                  return System.nanoTime() - end >= 0;
                }
              });
        }
      }
    } catch (InterruptedException e) {
      seen = "threw InterruptedException";
    }
    out.observe(b.id(), seen);
    return 1;
  }

  private Throwable fail(int id, FailKind kind) {
    return switch (kind) {
      case UNCHECKED -> out.origin(new FuzzUnchecked(), id);
      case ERROR -> out.origin(new FuzzError(), id);
      case CHECKED -> out.origin(new FuzzChecked(), id);
      case STACK_OVERFLOW -> {
        try {
          yield new IllegalStateException("recursion returned " + recurse(0));
        } catch (StackOverflowError e) {
          yield out.origin(e, id);
        }
      }
    };
  }

  private static long recurse(long depth) {
    return recurse(depth + 1) + 1;
  }

  private long forkJoin(ForkJoin f) throws Exception {
    switch (f.form()) {
      case SCOPE_JOIN, TINE_JOIN -> {
        try {
          return joinHalves(f.form(), () -> runSpawn(f.left()), () -> runSpawn(f.right()));
        } catch (Throwable t) {
          maybe(f.right()); // the right half may be abandoned once the left half threw
          throw t;
        }
      }
      case INVOKE_ALL -> {
        Handle a = task(f.left());
        Handle b = task(f.right());
        try {
          invokeAll(a, b);
        } catch (Throwable t) {
          maybe(f.right()); // may be cancelled
          throw t;
        }
        return a.join() + b.join();
      }
      default -> {
        Handle right = task(f.right());
        right.fork();
        long left;
        try {
          left = runSpawn(f.left());
        } catch (Throwable t) {
          quietly(right);
          throw t;
        }
        return left
            + switch (f.form()) {
              case FORK_GET -> right.get();
              case FORK_GET_TIMED -> right.get(GENEROUS_SECONDS, TimeUnit.SECONDS);
              case FORK_UNFORK -> right.tryUnfork() ? right.invoke() : right.join();
              case FORK_QUIETLY -> {
                right.quietlyJoin();
                yield right.join();
              }
              default -> right.join();
            };
      }
    }
  }

  private void maybe(Spawn s) {
    out.maybe.add(s.id());
    out.maybe.addAll(Program.ids(s.body()));
  }

  private static void quietly(Handle h) {
    try {
      h.join();
    } catch (Throwable ignored) {
      // the other half's failure wins
    }
  }

  /** The outcome of a call as a string: "value v" or "threw ...". */
  private String outcomeOf(Callable<Long> c) {
    try {
      return "value " + c.call();
    } catch (Throwable t) {
      return "threw " + out.describe(t);
    }
  }

  private long cancel(Cancel c) {
    Handle h = task(c.child());
    String seen =
        switch (c.form()) {
          case BEFORE_FORK -> {
            maybe(c.child());
            boolean cancelled = h.cancel();
            yield "cancel " + cancelled + ", join " + outcomeOf(h::join);
          }
          case AFTER_FORK -> {
            // Whether the cancel wins is scheduling; that its answer agrees with the outcome is
            // not.
            maybe(c.child());
            h.fork();
            boolean cancelled = h.cancel();
            String joined = outcomeOf(h::join);
            boolean agrees = cancelled == joined.equals("threw CancellationException");
            yield agrees ? "agrees" : "cancel " + cancelled + " but join " + joined;
          }
          case AFTER_JOIN -> {
            h.fork();
            String first = outcomeOf(h::join);
            boolean cancelled = h.cancel();
            yield "join " + first + ", cancel " + cancelled + ", join " + outcomeOf(h::join);
          }
        };
    out.observe(c.id(), seen);
    return 0;
  }

  private long forkThenWait(ForkThenWait w) throws Exception {
    CompletableFuture<Long> cf = new CompletableFuture<>();
    LinkedBlockingQueue<Long> queue = new LinkedBlockingQueue<>();
    releasers.add(() -> {
      cf.completeExceptionally(new CancellationException("run torn down"));
      queue.offer(SENTINEL);
    });
    Handle h =
        tracked(() -> {
          long v;
          try {
            v = runSpawn(w.child());
          } catch (Throwable t) {
            cf.completeExceptionally(t);
            queue.offer(SENTINEL);
            throw t;
          }
          cf.complete(v);
          queue.offer(v);
          return v;
        });
    h.fork();
    long got =
        switch (w.form()) {
          case CF_JOIN -> cf.join();
          case CF_GET -> cf.get();
          case QUEUE_TAKE -> queue.take();
        };
    if (killed) {
      throw new CancellationException("run torn down"); // the child may never run now
    }
    long joined = h.join(); // throws the child's failure after a queue handed over the sentinel
    return got == SENTINEL ? joined : got;
  }

  private long rendezvous(int parties) {
    CountDownLatch all = new CountDownLatch(parties);
    releasers.add(() -> {
      while (all.getCount() > 0) {
        all.countDown();
      }
    });
    List<Handle> tasks = new ArrayList<>();
    for (int i = 0; i < parties; i++) {
      tasks.add(
          tracked(() -> {
            all.countDown();
            managedBlock(
                new Blocker() {
                  @Override
                  public boolean block() throws InterruptedException {
                    all.await();
                    return true;
                  }

                  @Override
                  public boolean isReleasable() {
                    return all.getCount() == 0;
                  }
                });
            return 1L;
          }));
    }
    invokeAll(tasks);
    long sum = 0;
    for (Handle h : tasks) {
      sum += h.join();
    }
    return sum;
  }

  private long nested(Nested x) {
    Object pool = newPool(x.parallelism(), prefix + "nested" + names.incrementAndGet() + "-");
    pools.add(pool);
    try {
      return invokeIn(pool, task(x.child()));
    } finally {
      closePool(pool);
    }
  }

  private long selfInterrupt(SelfInterrupt s) {
    Thread.currentThread().interrupt();
    String seen;
    try {
      seen =
          switch (s.consumer()) {
            case SLEEP -> {
              Thread.sleep(1);
              yield "returned";
            }
            case INTERRUPTED -> "interrupted() " + Thread.interrupted();
            case QUEUE_TAKE -> {
              LinkedBlockingQueue<Long> q = new LinkedBlockingQueue<>();
              releasers.add(() -> q.offer(0L));
              yield "returned " + q.take();
            }
            case CF_GET -> {
              CompletableFuture<Long> cf = new CompletableFuture<>();
              releasers.add(() -> cf.complete(0L));
              yield "returned " + cf.get();
            }
            case TASK_GET, TASK_GET_TIMED -> {
              Handle never = tracked(() -> 1L); // never forked: only the interrupt can end the wait
              releasers.add(never::cancel);
              yield "returned "
                  + (s.consumer() == Program.Consumer.TASK_GET
                      ? never.get()
                      : never.get(GENEROUS_SECONDS, TimeUnit.SECONDS));
            }
            case MANAGED_BLOCK -> {
              managedBlock(
                  new Blocker() {
                    @Override
                    public boolean block() throws InterruptedException {
                      Thread.sleep(50);
                      return killed;
                    }

                    @Override
                    public boolean isReleasable() {
                      return killed;
                    }
                  });
              yield "returned";
            }
          };
    } catch (Throwable t) {
      seen = "threw " + out.describe(t);
    }
    boolean still = Thread.interrupted(); // restore a clean flag: the next nodes must not see it
    out.observe(s.id(), seen + (still ? ", still interrupted" : ""));
    return 0;
  }

  private long interruptedGet(InterruptedGet g) throws InterruptedException {
    // The waited-for task runs in a pool of its own, blocked until after the interrupt, so the
    // only thing that can end the get is the interrupt.
    Object pool = newPool(1, prefix + "get" + names.incrementAndGet() + "-");
    pools.add(pool);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch left = new CountDownLatch(1);
    releasers.add(release::countDown);
    releasers.add(started::countDown);
    Handle w =
        tracked(() -> {
          started.countDown();
          release.await();
          return 7L;
        });
    Thread interrupter = null;
    try {
      submit(pool, w);
      started.await();
      Thread me = Thread.currentThread();
      AtomicBoolean inGet = new AtomicBoolean();
      int getFrame = me.getStackTrace().length - 1; // this frame, counted from the bottom
      interrupter =
          new Thread(
              () -> {
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!killed
                    && System.nanoTime() < end
                    && !(inGet.get() && waitingInGet(me, getFrame))) {
                  sleep(1);
                }
                me.interrupt();
                try {
                  if (!left.await(IGNORED_INTERRUPT_MILLIS, TimeUnit.MILLISECONDS)) {
                    out.notes.add("node " + g.id() + ": get ignored its interrupt; released it");
                    release.countDown();
                  }
                } catch (InterruptedException e) {
                  release.countDown();
                }
              },
              prefix + "interrupter-" + g.id());
      interrupter.setDaemon(true);
      interrupter.start();
      String seen;
      inGet.set(true);
      try {
        seen = "returned " + (g.timed() ? w.get(GENEROUS_SECONDS, TimeUnit.SECONDS) : w.get());
      } catch (Throwable t) {
        seen = "threw " + out.describe(t);
      } finally {
        left.countDown();
      }
      boolean still = Thread.interrupted();
      out.observe(g.id(), seen + (still ? ", still interrupted" : ""));
      return 0;
    } finally {
      left.countDown();
      release.countDown();
      quietly(w);
      closePool(pool);
      if (interrupter != null) {
        interrupter.join();
      }
    }
  }

  /**
   * Whether {@code t} blocks in the get itself, not in a task the runtime runs inside the get (the
   * JDK's helpJoin may, and that task may block too): the innermost interpreter frame on its stack
   * is the interruptedGet frame at {@code getFrame} (counted from the bottom).
   */
  private static boolean waitingInGet(Thread t, int getFrame) {
    Thread.State s = t.getState();
    if (s != Thread.State.WAITING && s != Thread.State.TIMED_WAITING) {
      return false;
    }
    StackTraceElement[] stack = t.getStackTrace();
    for (int i = 0; i < stack.length; i++) {
      if (stack[i].getClassName().startsWith(Interpreter.class.getName())) {
        return stack[i].getMethodName().equals("interruptedGet") && stack.length - i == getFrame;
      }
    }
    return false;
  }
}

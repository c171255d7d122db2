package dev.tine.agent.it;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * An application that knows nothing of Tine, run in its own JVM with and without the agent. Lines
 * starting with "B " describe its behaviour and must be identical in both runs; lines starting with
 * "A " (only with the agent) are what the agent counted, read from its MXBeans like any JMX client.
 */
public final class IdentityScenario {
  /**
   * The pools whose counts are read at the end: referenced, so the agent does not forget them as
   * collected.
   */
  static final List<Object> KEEP = Collections.synchronizedList(new ArrayList<>());

  static <T> T keep(T pool) {
    KEEP.add(pool);
    return pool;
  }

  static void b(String s) {
    System.out.println("B " + s);
  }

  static void check(String name, boolean ok) {
    b(name + (ok ? " ok" : " FAIL"));
  }

  /** Calls of a task's equals/hashCode/toString made from the agent's code (must stay 0). */
  static final AtomicInteger AGENT_CALLS = new AtomicInteger();

  /**
   * A task whose equals/hashCode/toString the agent must never call (the JDK's own queues may:
   * {@code LinkedBlockingQueue.remove} uses equals).
   */
  static final class Touchy implements Runnable {
    final CountDownLatch ran = new CountDownLatch(1);

    @Override
    public void run() {
      ran.countDown();
    }

    @Override
    public boolean equals(Object o) {
      fromAgent();
      return this == o;
    }

    @Override
    public int hashCode() {
      fromAgent();
      return 7;
    }

    @Override
    public String toString() {
      fromAgent();
      return "touchy";
    }

    private static void fromAgent() {
      if (StackWalker.getInstance()
          .walk(s ->
              s.anyMatch(f ->
                  f.getClassName().startsWith("dev.tine.agent.")
                      && !f.getClassName().startsWith("dev.tine.agent.it.")))) {
        AGENT_CALLS.incrementAndGet();
      }
    }
  }

  static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Records what the subclass hooks saw. */
  static final class Recording extends ThreadPoolExecutor {
    final List<Runnable> before = Collections.synchronizedList(new ArrayList<>());
    final List<Runnable> after = Collections.synchronizedList(new ArrayList<>());
    final List<Throwable> thrown = Collections.synchronizedList(new ArrayList<>());

    Recording(String name) {
      super(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), named(name));
    }

    @Override
    protected void beforeExecute(Thread t, Runnable r) {
      before.add(r);
    }

    @Override
    protected void afterExecute(Runnable r, Throwable t) {
      after.add(r);
      thrown.add(t);
    }
  }

  static void await(CountDownLatch l) throws InterruptedException {
    if (!l.await(30, TimeUnit.SECONDS)) throw new AssertionError("timed out");
  }

  public static void main(String[] args) throws Exception {
    hooksSeeTheTasksThemselves();
    queueRemoveAndShutdownNowKeepIdentity();
    exceptionsReachTheApplicationUnchanged();
    rejections();
    scheduled();
    forkJoin();
    manyThreadsAndDroppedPools();
    b("task methods called by the agent: " + AGENT_CALLS.get());
    if (args.length > 0 && args[0].equals("agent")) agentCounts();
    System.out.println("DONE");
    System.exit(0);
  }

  static void hooksSeeTheTasksThemselves() throws Exception {
    Recording p = keep(new Recording("hooks"));
    Touchy t = new Touchy();
    p.execute(t);
    await(t.ran);
    Future<Integer> f = p.submit(() -> 42);
    check("submit result", f.get() == 42);
    p.shutdown();
    p.awaitTermination(30, TimeUnit.SECONDS);
    check("beforeExecute sees the executed task itself", p.before.get(0) == t);
    check("afterExecute sees the executed task itself", p.after.get(0) == t);
    check("beforeExecute sees submit's own future", p.before.get(1) == f);
    check("afterExecute sees submit's own future", p.after.get(1) == f);
    b("hooks saw " + p.before.size() + " and " + p.after.size() + " tasks, throwables " + p.thrown);
  }

  static void queueRemoveAndShutdownNowKeepIdentity() throws Exception {
    ThreadPoolExecutor p =
        keep(
            new ThreadPoolExecutor(
                1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), named("queue")));
    CountDownLatch block = new CountDownLatch(1), started = new CountDownLatch(1);
    p.execute(() -> {
      started.countDown();
      try {
        block.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    await(started);
    Touchy a = new Touchy(), bb = new Touchy(), c = new Touchy();
    p.execute(a);
    p.execute(bb);
    p.execute(c);
    Object[] q = p.getQueue().toArray();
    check(
        "getQueue holds the tasks themselves, in order",
        q.length == 3 && q[0] == a && q[1] == bb && q[2] == c);
    check("remove(task) finds the task", p.remove(bb));
    block.countDown();
    await(a.ran);
    await(c.ran);
    p.shutdown();
    p.awaitTermination(30, TimeUnit.SECONDS);
    check("a removed task never runs", bb.ran.getCount() == 1);

    ThreadPoolExecutor p2 =
        keep(
            new ThreadPoolExecutor(
                1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), named("queue2")));
    CountDownLatch block2 = new CountDownLatch(1), started2 = new CountDownLatch(1);
    p2.execute(() -> {
      started2.countDown();
      try {
        block2.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // shutdownNow interrupts: fine
      }
    });
    await(started2);
    Touchy d = new Touchy(), e = new Touchy();
    p2.execute(d);
    p2.execute(e);
    List<Runnable> left = p2.shutdownNow();
    check(
        "shutdownNow returns the tasks themselves",
        left.size() == 2 && left.get(0) == d && left.get(1) == e);
    p2.awaitTermination(30, TimeUnit.SECONDS);
  }

  static void exceptionsReachTheApplicationUnchanged() throws Exception {
    AtomicReference<Throwable> uncaught = new AtomicReference<>();
    CountDownLatch died = new CountDownLatch(1);
    Recording p = keep(new Recording("throwing"));
    p.setThreadFactory(r -> {
      Thread t = new Thread(r, "throwing-1");
      t.setDaemon(true);
      t.setUncaughtExceptionHandler((th, ex) -> {
        uncaught.set(ex);
        died.countDown();
      });
      return t;
    });
    RuntimeException boom = new IllegalStateException("boom");
    Runnable thrower =
        () -> {
          throw boom;
        };
    p.execute(thrower);
    await(died);
    check("the uncaught handler gets the thrown exception itself", uncaught.get() == boom);
    check("afterExecute gets the thrown exception itself", p.thrown.get(0) == boom);
    b("stack of the thrown exception: " + frames(boom));
    Future<Throwable> inside = p.submit(() -> new Throwable("made inside a pool task"));
    b(
        "stack of an exception made inside a task (the pool's frames, with their line numbers): "
            + frames(inside.get()));
    b("suppressed " + boom.getSuppressed().length + ", cause " + boom.getCause());
    RuntimeException boom2 = new UnsupportedOperationException("boom2");
    Future<?> f =
        p.submit(() -> {
          throw boom2;
        });
    try {
      f.get();
      check("a failed future throws", false);
    } catch (ExecutionException ee) {
      check("the future's cause is the exception itself", ee.getCause() == boom2);
    }
    b("pool still runs after a task threw: " + p.submit(() -> "yes").get());
    p.shutdown();
    p.awaitTermination(30, TimeUnit.SECONDS);
    b(
        "completed task count "
            + p.getCompletedTaskCount()
            + ", largest pool "
            + p.getLargestPoolSize());
  }

  static String frames(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (StackTraceElement e : t.getStackTrace()) sb.append(e).append(" | ");
    return sb.toString();
  }

  static void rejections() throws Exception {
    ThreadPoolExecutor p =
        keep(
            new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(1),
                named("abort"),
                new ThreadPoolExecutor.AbortPolicy()));
    CountDownLatch block = new CountDownLatch(1), started = new CountDownLatch(1);
    p.execute(() -> {
      started.countDown();
      try {
        block.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    await(started);
    Touchy queued = new Touchy();
    p.execute(queued);
    int rejected = 0;
    Touchy refused = new Touchy();
    for (int i = 0; i < 5; i++) {
      try {
        p.execute(refused);
      } catch (RejectedExecutionException e) {
        rejected++;
      }
    }
    check("abort policy rejects each of 5 offers", rejected == 5);
    block.countDown();
    await(queued.ran);
    p.shutdown();
    p.awaitTermination(30, TimeUnit.SECONDS);
    try {
      p.execute(new Touchy());
      check("a shut-down pool rejects", false);
    } catch (RejectedExecutionException e) {
      check("a shut-down pool rejects", true);
    }

    ThreadPoolExecutor cr =
        keep(
            new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(1),
                named("callerruns"),
                new ThreadPoolExecutor.CallerRunsPolicy()));
    CountDownLatch block2 = new CountDownLatch(1), started2 = new CountDownLatch(1);
    cr.execute(() -> {
      started2.countDown();
      try {
        block2.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    await(started2);
    cr.execute(new Touchy());
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    cr.execute(() -> ranOn.set(Thread.currentThread()));
    check("caller-runs runs the refused task on the caller", ranOn.get() == Thread.currentThread());
    block2.countDown();
    cr.shutdown();
    cr.awaitTermination(30, TimeUnit.SECONDS);

    ThreadPoolExecutor dox =
        keep(
            new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(2),
                named("discardoldest"),
                new ThreadPoolExecutor.DiscardOldestPolicy()));
    CountDownLatch block3 = new CountDownLatch(1), started3 = new CountDownLatch(1);
    dox.execute(() -> {
      started3.countDown();
      try {
        block3.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    await(started3);
    Touchy o1 = new Touchy(), o2 = new Touchy(), o3 = new Touchy();
    dox.execute(o1);
    dox.execute(o2);
    dox.execute(o3);
    Object[] q = dox.getQueue().toArray();
    check(
        "discard-oldest drops the oldest and queues the new task itself",
        q.length == 2 && q[0] == o2 && q[1] == o3);
    block3.countDown();
    await(o3.ran);
    dox.shutdown();
    dox.awaitTermination(30, TimeUnit.SECONDS);
    check("the discarded task never ran", o1.ran.getCount() == 1);
  }

  /**
   * How far ahead the scheduled task is due. Counted from its submission its wait would be at least
   * this; counted from its due time, it is the scheduler thread's lateness. 200 ms was too close:
   * beside three builds and a busy loop per core the thread ran 159 ms late.
   */
  static final long DELAY_MS = 2_000;

  static void scheduled() throws Exception {
    ScheduledThreadPoolExecutor s = keep(new ScheduledThreadPoolExecutor(1, named("sched")));
    Touchy t = new Touchy();
    // The pool's one thread held while the queue is looked at: else a look later than the 200 ms
    // delay (a loaded box) finds the task already run and the queue empty.
    CountDownLatch holding = new CountDownLatch(1), release = new CountDownLatch(1);
    s.execute(() -> {
      holding.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    await(holding);
    ScheduledFuture<?> sf = s.schedule(t, DELAY_MS, TimeUnit.MILLISECONDS);
    Object[] q = s.getQueue().toArray();
    check(
        "a scheduled task waits in the queue as the future schedule returned",
        q.length == 1 && q[0] == sf);
    release.countDown();
    await(t.ran);
    sf.get();
    AtomicInteger ticks = new AtomicInteger();
    CountDownLatch five = new CountDownLatch(5);
    ScheduledFuture<?> periodic =
        s.scheduleAtFixedRate(
            () -> {
              ticks.incrementAndGet();
              five.countDown();
            },
            0,
            20,
            TimeUnit.MILLISECONDS);
    await(five);
    periodic.cancel(false);
    check("a periodic task runs and cancels", periodic.isCancelled());
    check(
        "remove of a scheduled future that ran",
        !s.remove((Runnable) sf)); // not in the queue any more
    s.shutdown();
    s.awaitTermination(30, TimeUnit.SECONDS);
  }

  static final class Fib extends RecursiveTask<Long> {
    final int n;

    Fib(int n) {
      this.n = n;
    }

    @Override
    protected Long compute() {
      if (n < 2) return (long) n;
      Fib f = new Fib(n - 1);
      f.fork();
      return new Fib(n - 2).compute() + f.join();
    }
  }

  static void forkJoin() throws Exception {
    ForkJoinPool fj =
        keep(
            new ForkJoinPool(
                2,
                p -> {
                  var w = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
                  w.setName("fj-" + w.getPoolIndex());
                  return w;
                },
                null,
                false));
    Callable<String> c = () -> "fj";
    ForkJoinTask<String> ft = fj.submit(c);
    check("a ForkJoinPool callable", ft.get().equals("fj"));
    Fib root = new Fib(20);
    check("fork/join fib(20) = 6765", fj.invoke(root) == 6765);
    check(
        "invoke returns through the root task itself",
        root.isDone() && root.getRawResult() == 6765);
    ForkJoinTask<?> failing =
        fj.submit(() -> {
          throw new IllegalStateException("fj boom");
        });
    try {
      failing.get();
    } catch (ExecutionException e) {
      b("fj failure: " + e.getCause().getClass().getName() + ": " + e.getCause().getMessage());
    }
    for (int i = 0; i < 20; i++) fj.execute(new Touchy());
    fj.shutdown();
    check("fj terminates", fj.awaitTermination(30, TimeUnit.SECONDS));
    check(
        "parallel stream on the common pool",
        IntStream.range(0, 100_000).parallel().asLongStream().sum() == 4_999_950_000L);
    check(
        "CompletableFuture on the common pool",
        java.util.concurrent.CompletableFuture.supplyAsync(() -> 7).thenApplyAsync(x -> x * 6).get()
            == 42);
  }

  /** A cached pool with many threads (recorders are capped), and pools dropped without shutdown. */
  static void manyThreadsAndDroppedPools() throws Exception {
    ExecutorService cached = keep(Executors.newCachedThreadPool(named("cached")));
    CountDownLatch all = new CountDownLatch(40), release = new CountDownLatch(1);
    for (int i = 0; i < 40; i++) {
      cached.execute(() -> {
        all.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    await(all);
    release.countDown();
    cached.shutdown();
    check("cached pool of 40 threads", cached.awaitTermination(30, TimeUnit.SECONDS));
    for (int i = 0; i < 20; i++) {
      ThreadPoolExecutor p =
          new ThreadPoolExecutor(
              1, 1, 20, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), named("dropped"));
      p.allowCoreThreadTimeOut(true);
      Touchy t = new Touchy();
      p.execute(t);
      await(t.ran);
      // dropped without shutdown: once its thread times out, nothing refers to it
    }
    b("dropped 20 pools");
  }

  /** Agent only: what its MXBeans say about the pools above. */
  static void agentCounts() throws Exception {
    MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
    ObjectName agent = new ObjectName("dev.tine.agent:type=Agent");
    // Wait (bounded) for two ticks after the work, so every count has been harvested, and for the
    // dropped pools' threads to time out and the pools to be collected and forgotten.
    long t0 = (long) mbs.getAttribute(agent, "Ticks");
    long deadline = System.nanoTime() + 30_000_000_000L;
    Map<String, Map<String, Object>> byName;
    for (; ; ) {
      System.gc();
      Thread.sleep(200);
      byName = pools(mbs);
      long ticks = (long) mbs.getAttribute(agent, "Ticks");
      boolean droppedGone = byName.keySet().stream().noneMatch(n -> n.startsWith("dropped"));
      if (ticks >= t0 + 2 && droppedGone || System.nanoTime() > deadline) break;
    }
    for (String name :
        List.of(
            "hooks",
            "queue",
            "queue2",
            "throwing",
            "abort",
            "callerruns",
            "discardoldest",
            "sched",
            "fj",
            "cached")) {
      Map<String, Object> p = byName.get(name);
      System.out.println(
          "A "
              + name
              + " "
              + (p == null
                  ? "missing"
                  : "arrivals="
                      + p.get("Arrivals")
                      + " completed="
                      + p.get("Completed")
                      + " rejected="
                      + p.get("Rejected")
                      + " failed="
                      + p.get("Failed")
                      + " state="
                      + p.get("State")));
      if (name.equals("sched") && p != null)
        System.out.println("A sched-p99 " + p.get("WaitP99Millis"));
    }
    // A scheduled task's wait counts from when it was due: the one scheduled DELAY_MS ahead did
    // not wait that long (the scheduler thread was idle), so no wait comes near it; counted from
    // its submission it would be DELAY_MS or more.
    Object p99 = byName.containsKey("sched") ? byName.get("sched").get("WaitP99Millis") : null;
    System.out.println("A sched-due " + (p99 instanceof Double d && d < DELAY_MS * 3 / 4));
    System.out.println(
        "A dropped pools still listed: "
            + byName.keySet().stream().filter(n -> n.startsWith("dropped")).count());
    System.out.println(
        "A failures="
            + mbs.getAttribute(agent, "Failures")
            + " last="
            + mbs.getAttribute(agent, "LastFailure"));
    System.out.println("A recorders=" + mbs.getAttribute(agent, "Recorders"));
    System.out.println(
        "A instrumented="
            + Arrays.toString((String[]) mbs.getAttribute(agent, "InstrumentedClasses")));
  }

  static Map<String, Map<String, Object>> pools(MBeanServer mbs) throws Exception {
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    for (ObjectName on : mbs.queryNames(new ObjectName("dev.tine.agent:type=Pool,*"), null)) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (String a :
          List.of(
              "Name", "Arrivals", "Completed", "Rejected", "Failed", "State", "WaitP99Millis")) {
        m.put(a, mbs.getAttribute(on, a));
      }
      out.put((String) m.get("Name"), m);
    }
    return out;
  }
}

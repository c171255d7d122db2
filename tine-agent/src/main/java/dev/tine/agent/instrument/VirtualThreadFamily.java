package dev.tine.agent.instrument;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static net.bytebuddy.matcher.ElementMatchers.takesNoArguments;

import dev.tine.agent.bootstrap.TineBridge;
import dev.tine.agent.state.PoolFigures;
import dev.tine.agent.state.Sizing;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;

/**
 * The JDK's virtual-thread scheduler (a {@code ForkJoinPool} of carrier threads) seen as the pool
 * that serves a virtual-thread server (Spring Boot with {@code spring.threads.virtual.enabled},
 * Jetty with a virtual-thread executor): a task is one run of a virtual thread on a carrier. Its
 * arrival is the thread's submission to the scheduler (when it starts, or is unparked), its start
 * and end are {@code VirtualThread.runContinuation} (mounted until it parks or ends). So S is the
 * time mounted per run, Wq the time waiting to mount, L = λ(Wq+S) the virtual threads mounted or
 * waiting for a carrier, and λS/parallelism how busy the carriers are: sizing here is the carriers
 * (cores) and what pins them, not a thread count.
 *
 * <p>Also counted: virtual threads started (per request, for a thread-per-request server), and
 * {@code jdk.VirtualThreadPinned} events (a carrier held by a virtual thread that blocked where it
 * cannot unmount) from an in-process JFR stream, started once virtual threads are seen.
 *
 * <p>The scheduler is keyed by a holder object, not by the pool itself, so its own submissions from
 * platform threads are not also counted as a {@code ForkJoinPool}'s.
 */
final class VirtualThreadFamily extends Family {
  static final int ID = 5;
  private static final String VT = "java/lang/VirtualThread";

  VirtualThreadFamily() {
    super(ID, "virtual threads", "jdk.virtualThreadScheduler.parallelism", true, Repeat.SAME);
  }

  @Override
  Map<String, AsmVisitorWrapper> advice() {
    return Map.of(
        VT,
        new AsmVisitorWrapper.Compound(
            // JDK 25: submitRunContinuation(Executor, boolean), lazySubmitRunContinuation();
            // JDK 21: submitRunContinuation(boolean), lazySubmitRunContinuation(ForkJoinPool)
            Advice.to(Submit.class)
                .on(
                    named("submitRunContinuation")
                        .and(takesArguments(1).or(takesArguments(2)))
                        .or(named("externalSubmitRunContinuation").and(takesArguments(1)))
                        .or(named("lazySubmitRunContinuation"))),
            Advice.to(Run.class).on(named("runContinuation").and(takesNoArguments())),
            Advice.to(Start.class).on(named("start").and(takesArguments(1)))));
  }

  /** The key a scheduler is measured under. */
  static final class Scheduler {
    final WeakReference<Object> pool;

    Scheduler(Object pool) {
      this.pool = new WeakReference<>(pool);
    }
  }

  private final Map<Object, Scheduler> keys = new WeakHashMap<>();
  private volatile Scheduler last;

  @Override
  Object poolOf(Object scheduler) {
    if (scheduler == null) return null;
    if (scheduler instanceof Scheduler s) return s;
    Scheduler s = last;
    if (s != null && s.pool.refersTo(scheduler)) return s;
    synchronized (keys) {
      s = keys.computeIfAbsent(scheduler, Scheduler::new);
    }
    last = s;
    return s;
  }

  /** Whether {@code pool} is a virtual-thread scheduler this family measures. */
  boolean isScheduler(Object pool) {
    Scheduler s = last;
    return s != null && s.pool.refersTo(pool);
  }

  final LongAdder started = new LongAdder();
  final AtomicLong pinned = new AtomicLong(), pinnedNanos = new AtomicLong();
  private volatile boolean pinStream;

  @Override
  void event(Object pool, Object detail) {
    started.increment();
  }

  // ticker only
  private long lastStarted, lastPinned, lastPinnedNanos, lastAt;
  private double startedRate, pinnedRate, pinnedMsRate;

  @Override
  public boolean readSizes(Object key, PoolFigures f) {
    Object p = key instanceof Scheduler s ? s.pool.get() : null;
    if (p instanceof ForkJoinPool fj) {
      f.parallelism = fj.getParallelism();
      f.corePoolSize = f.maximumPoolSize = f.parallelism;
      f.poolSize = fj.getPoolSize();
      f.activeCount = fj.getActiveThreadCount();
      f.queueLength =
          (int)
              Math.min(Integer.MAX_VALUE, fj.getQueuedSubmissionCount() + fj.getQueuedTaskCount());
      f.stealCount = fj.getStealCount();
    }
    startPinStream();
    long now = System.nanoTime(), st = started.sum(), pn = pinned.get(), pns = pinnedNanos.get();
    if (lastAt != 0 && now > lastAt) {
      double secs = (now - lastAt) / 1e9;
      startedRate = (st - lastStarted) / secs;
      pinnedRate = (pn - lastPinned) / secs;
      pinnedMsRate = (pns - lastPinnedNanos) / 1e6 / secs;
    }
    lastAt = now;
    lastStarted = st;
    lastPinned = pn;
    lastPinnedNanos = pns;
    return false;
  }

  /** Virtual threads started, pinned carriers. */
  @Override
  public String extras() {
    return String.format(
        Locale.ROOT,
        "virtual threads started %.1f/s (%d in all); pinned %d times (%.1f ms in all)%s",
        startedRate,
        started.sum(),
        pinned.get(),
        pinnedNanos.get() / 1e6,
        pinnedRate > 0
            ? String.format(Locale.ROOT, ", now %.1f/s, %.1f ms/s", pinnedRate, pinnedMsRate)
            : "");
  }

  @Override
  public String advice(int threads, PoolFigures f) {
    return "carriers busy "
        + String.format(
            Locale.ROOT, "%.2f of %d", f.arrivalRate * f.serviceMs / 1000, f.parallelism)
        + " (sized by cores, not threads); "
        + extras();
  }

  /** JFR's pinned events, counted in process (threshold: JFR's default, 20 ms). */
  private synchronized void startPinStream() {
    if (pinStream) return;
    pinStream = true;
    try {
      var rs = new jdk.jfr.consumer.RecordingStream();
      rs.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ofMillis(20));
      rs.onEvent(
          "jdk.VirtualThreadPinned",
          e -> {
            pinned.incrementAndGet();
            pinnedNanos.addAndGet(e.getDuration().toNanos());
          });
      rs.setMaxAge(Duration.ofSeconds(10));
      rs.startAsync();
    } catch (Throwable t) {
      TineBridge.failed(t); // no JFR in this runtime: the rest is measured all the same
    }
  }

  /** Virtual threads have no pool size; their carriers are the JVM's scheduler's. */
  @Override
  public Sizing sizing(Object key) {
    return Sizing.refuse(
        "virtual threads have no pool size: their carriers are the JVM's scheduler, sized at"
            + " start (jdk.virtualThreadScheduler.parallelism)");
  }

  @Override
  int threads(Object key) {
    return key instanceof Scheduler s && s.pool.get() instanceof ForkJoinPool fj
        ? fj.getPoolSize()
        : -1;
  }

  @Override
  int queued(Object key) {
    return key instanceof Scheduler s && s.pool.get() instanceof ForkJoinPool fj
        ? (int) Math.min(Integer.MAX_VALUE, fj.getQueuedSubmissionCount() + fj.getQueuedTaskCount())
        : -1;
  }

  /** The three ways a virtual thread is handed to its scheduler. */
  static final class Submit {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object vt, @Advice.FieldValue("scheduler") Object scheduler) {
      TineBridge.famArrive(ID, scheduler, vt, null);
    }
  }

  static final class Run {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object vt, @Advice.FieldValue("scheduler") Object scheduler) {
      TineBridge.famStart(ID, scheduler, vt);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.FieldValue("scheduler") Object scheduler, @Advice.Thrown Throwable t) {
      TineBridge.famEnd(ID, scheduler, null, t);
    }
  }

  /** {@code start(ThreadContainer)}: a virtual thread starts. */
  static final class Start {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.FieldValue("scheduler") Object scheduler) {
      TineBridge.famEvent(ID, scheduler, null);
    }
  }
}

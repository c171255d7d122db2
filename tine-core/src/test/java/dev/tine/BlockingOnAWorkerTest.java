package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Every blocking call made on a worker, on Tine and on the JDK's pool in the same test: a deadline
 * is honoured and an interrupt answered as the JDK does, and a wait never runs an unrelated fork of
 * the caller's (one that takes seconds would hold a 50 ms {@code get} for seconds, and would take
 * the waiter's interrupt for itself). Outcomes only: the clock is read only to say whether the
 * answer came before something that takes {@link #LONG_S} seconds could have finished.
 */
class BlockingOnAWorkerTest {
  /** How long the blocked pieces wait for their release: far beyond any answer we expect. */
  static final long LONG_S = 10;

  /** One pool under test, seen through the calls that both pools have. */
  interface Side {
    ExecutorService pool();

    /** Forks {@code c} from the current worker. */
    <T> Future<T> fork(Callable<T> c);
  }

  static Side tine(int p) {
    WorkStealingPool pool = WorkStealingPool.builder().parallelism(p).build();
    return new Side() {
      @Override
      public ExecutorService pool() {
        return pool;
      }

      @Override
      public <T> Future<T> fork(Callable<T> c) {
        return Task.of(
                () -> {
                  try {
                    return c.call();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                })
            .fork();
      }
    };
  }

  static Side jdk(int p) {
    ForkJoinPool pool = new ForkJoinPool(p);
    return new Side() {
      @Override
      public ExecutorService pool() {
        return pool;
      }

      @Override
      public <T> Future<T> fork(Callable<T> c) {
        return ForkJoinTask.adapt(c).fork();
      }
    };
  }

  /** What a case does on one side, run on one of its workers; returns what it saw. */
  interface Case {
    String run(Side side, Waiter waiter) throws Exception;
  }

  /** The worker that makes the blocking call; another thread may interrupt it while it waits. */
  static final class Waiter {
    final AtomicReference<Thread> thread = new AtomicReference<>();
    volatile boolean interruptWhenParked;

    /** Run by the test thread right after its interrupt. */
    volatile Runnable afterInterrupt = () -> {};

    /** Called by the case just before the blocking call. */
    void aboutToWait() {
      thread.set(Thread.currentThread());
    }
  }

  /**
   * Runs {@code c} on both pools (parallelism {@code p}); their outcomes must equal {@code want}.
   */
  static void compare(int p, boolean interrupt, String want, Case c) throws Exception {
    assertEquals(want, outcome(jdk(p), interrupt, c), "the JDK's pool");
    assertEquals(want, outcome(tine(p), interrupt, c), "Tine");
  }

  static String outcome(Side side, boolean interrupt, Case c) throws Exception {
    Waiter waiter = new Waiter();
    waiter.interruptWhenParked = interrupt;
    try (ExecutorService pool = side.pool()) {
      Future<String> f = pool.submit(() -> c.run(side, waiter));
      if (interrupt) {
        long give = System.nanoTime() + TimeUnit.SECONDS.toNanos(LONG_S);
        Thread t;
        while ((t = waiter.thread.get()) == null || !parked(t)) {
          if (System.nanoTime() - give > 0L) {
            return "never waited";
          }
          Thread.sleep(1);
        }
        Thread.sleep(20); // well inside its wait
        t.interrupt();
        waiter.afterInterrupt.run();
      }
      return f.get(LONG_S * 4, TimeUnit.SECONDS);
    }
  }

  static boolean parked(Thread t) {
    Thread.State s = t.getState();
    return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
  }

  /** A piece that waits (outside the pool) for its release, up to LONG_S; records its thread. */
  static final class Blocked implements Callable<Integer> {
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicReference<Thread> ranOn = new AtomicReference<>();
    final AtomicReference<String> state = new AtomicReference<>("unstarted");
    final int value;

    Blocked(int value) {
      this.value = value;
    }

    @Override
    public Integer call() throws Exception {
      ranOn.set(Thread.currentThread());
      state.set("waiting");
      started.countDown();
      try {
        state.set(release.await(LONG_S, TimeUnit.SECONDS) ? "released" : "timed out");
      } catch (InterruptedException e) {
        state.set("interrupted");
        throw e;
      }
      return value;
    }

    /** Where it ran, relative to the waiter, when the waiter's call returned. */
    String seen(Thread waiter) {
      return ranOn.get() == waiter ? "ran in the wait" : waitedOut();
    }

    /** "waited out" if it ran to its own timeout: whoever waited for it waited LONG_S. */
    String waitedOut() {
      return state.get().equals("timed out") ? "waited out" : "not waited for";
    }
  }

  /**
   * The target runs on another worker; the caller has an unrelated fork of its own pending. A
   * get(50 ms) must time out while that fork is still unfinished and not running in the wait.
   */
  @Test
  void timedGetIgnoresTheCallersUnrelatedFork() throws Exception {
    compare(
        2,
        false,
        "TimeoutException; unrelated: not waited for",
        (side, waiter) -> {
          Blocked target = new Blocked(1);
          Future<Integer> tf = side.pool().submit(target);
          target.started.await(LONG_S, TimeUnit.SECONDS);
          Blocked unrelated = new Blocked(2);
          Future<Integer> u = side.fork(unrelated);
          Thread me = Thread.currentThread();
          String r;
          try {
            tf.get(50, TimeUnit.MILLISECONDS);
            r = "returned";
          } catch (TimeoutException e) {
            r = "TimeoutException";
          }
          r += "; unrelated: " + unrelated.seen(me);
          unrelated.release.countDown();
          target.release.countDown();
          u.get();
          tf.get();
          return r;
        });
  }

  /** As above with get(): an interrupt while it waits ends it with InterruptedException. */
  @Test
  void interruptedGetIgnoresTheCallersUnrelatedFork() throws Exception {
    compare(
        2,
        true,
        "InterruptedException; unrelated: not waited for",
        (side, waiter) -> {
          Blocked target = new Blocked(1);
          Future<Integer> tf = side.pool().submit(target);
          target.started.await(LONG_S, TimeUnit.SECONDS);
          Blocked unrelated = new Blocked(2);
          Future<Integer> u = side.fork(unrelated);
          Thread me = Thread.currentThread();
          String r;
          waiter.aboutToWait();
          try {
            tf.get();
            r = "returned, interrupted=" + Thread.interrupted();
          } catch (InterruptedException e) {
            r = "InterruptedException";
          }
          r += "; unrelated: " + unrelated.seen(me);
          unrelated.release.countDown();
          target.release.countDown();
          u.get();
          tf.get();
          return r;
        });
  }

  /**
   * The target is the caller's own fork, with a newer unrelated fork above it: get runs the target
   * (taken out from under the newer one), not the unrelated fork. At parallelism 1 nobody else can.
   */
  @Test
  void getOfAnOwnForkRunsOnlyThatFork() throws Exception {
    for (boolean timed : new boolean[] {false, true}) {
      compare(
          1,
          false,
          "42; unrelated: not waited for",
          (side, waiter) -> {
            Future<Integer> target = side.fork(() -> 42);
            Blocked unrelated = new Blocked(2);
            Future<Integer> u = side.fork(unrelated);
            Thread me = Thread.currentThread();
            int v = timed ? target.get(LONG_S, TimeUnit.SECONDS) : target.get();
            String r = v + "; unrelated: " + unrelated.seen(me);
            unrelated.release.countDown();
            u.get();
            return r;
          });
    }
  }

  /** join ignores an interrupt (it keeps the flag) and returns the value, as the JDK's does. */
  @Test
  void joinKeepsTheInterruptAndReturns() throws Exception {
    compare(
        2,
        true,
        "returned 1, interrupted=true",
        (side, waiter) -> {
          Blocked target = new Blocked(1);
          Future<Integer> tf = side.pool().submit(target);
          target.started.await(LONG_S, TimeUnit.SECONDS);
          waiter.afterInterrupt = target.release::countDown; // the join returns only after it
          waiter.aboutToWait();
          int v = tf instanceof Task<Integer> t ? t.join() : ((ForkJoinTask<Integer>) tf).join();
          return "returned " + v + ", interrupted=" + Thread.interrupted();
        });
  }

  /**
   * A timed invokeAll returns at its deadline with the blocked task cancelled ({@code
   * ExecutorService}'s contract). Not compared with the JDK's pool: from a worker it joins the
   * tasks, so one that lands in the caller's own queue runs in place and holds the call past its
   * deadline (seen here: it returned after the blocked task's own 10 s, nothing cancelled), while
   * one stolen by another worker does not; which happens depends on timing. Tine waits for a timed
   * group as a managed block and never runs a member in place.
   */
  @Test
  void timedInvokeAllHonoursItsDeadline() throws Exception {
    assertEquals(
        "done=[true, true] cancelled=[false, true]; blocked: not waited for",
        outcome(
            tine(2),
            false,
            (side, waiter) -> {
              Blocked blocked = new Blocked(2);
              List<Future<Integer>> fs =
                  side.pool()
                      .invokeAll(
                          // 2 s, not 50 ms: the quick member must be run by the other worker
                          // before the deadline, and a loaded machine can hold a thread that long
                          List.<Callable<Integer>>of(() -> 1, blocked), 2, TimeUnit.SECONDS);
              String r =
                  "done=["
                      + fs.get(0).isDone()
                      + ", "
                      + fs.get(1).isDone()
                      + "] cancelled=["
                      + fs.get(0).isCancelled()
                      + ", "
                      + fs.get(1).isCancelled()
                      + "]; blocked: "
                      + blocked.waitedOut();
              blocked.release.countDown();
              return r;
            }));
  }

  /**
   * An untimed invokeAll on a worker runs its group's tasks in place, on both pools (at parallelism
   * 1 nobody else can): an interrupt that arrives while one runs goes to that task (the blocked one
   * ends, interrupted, rather than waiting out its 10 s), and the call returns normally.
   */
  @Test
  void untimedInvokeAllRunsInPlaceAndTheRunningTaskTakesTheInterrupt() throws Exception {
    compare(
        1,
        true,
        "returned; blocked: interrupted",
        (side, waiter) -> {
          Blocked blocked = new Blocked(2);
          String r;
          waiter.aboutToWait();
          try {
            side.pool().invokeAll(List.<Callable<Integer>>of(() -> 1, blocked));
            r = "returned";
          } catch (InterruptedException e) {
            r = "InterruptedException";
          }
          r += "; blocked: " + blocked.state.get();
          blocked.release.countDown();
          return r;
        });
  }

  /** A timed invokeAny whose candidates all block times out; interrupted, it throws. */
  @Test
  void invokeAnyHonoursItsDeadlineAndInterrupts() throws Exception {
    for (boolean interrupt : new boolean[] {false, true}) {
      compare(
          2,
          interrupt,
          (interrupt ? "InterruptedException" : "TimeoutException")
              + "; blocked: not waited for, not waited for",
          (side, waiter) -> {
            Blocked a = new Blocked(1), b = new Blocked(2);
            String r;
            waiter.aboutToWait();
            try {
              if (interrupt) {
                side.pool().invokeAny(List.of(a, b));
              } else {
                side.pool().invokeAny(List.of(a, b), 50, TimeUnit.MILLISECONDS);
              }
              r = "returned";
            } catch (InterruptedException e) {
              r = "InterruptedException";
            } catch (TimeoutException e) {
              r = "TimeoutException";
            }
            r += "; blocked: " + a.waitedOut() + ", " + b.waitedOut();
            a.release.countDown();
            b.release.countDown();
            return r;
          });
    }
  }

  /**
   * awaitTermination of another pool, from a worker: false at its deadline, InterruptedException
   * when interrupted; close of that pool, interrupted: stops it and keeps the interrupt.
   */
  @Test
  void awaitTerminationAndCloseOfAnotherPool() throws Exception {
    for (int mode = 0; mode < 3; mode++) {
      int m = mode;
      String want =
          switch (m) {
            case 0 -> "awaitTermination=false; blocked: not waited for";
            case 1 -> "InterruptedException; blocked: not waited for";
            default -> "closed, interrupted=true, terminated=true";
          };
      compare(
          2,
          m != 0,
          want,
          (side, waiter) -> {
            Side other = side.pool() instanceof WorkStealingPool ? tine(1) : jdk(1);
            ExecutorService o = other.pool();
            Blocked blocked = new Blocked(1);
            o.submit(blocked);
            blocked.started.await(LONG_S, TimeUnit.SECONDS);
            o.shutdown();
            String r;
            waiter.aboutToWait();
            if (m == 2) {
              o.close(); // interrupted: cancels and interrupts the blocked task, then waits
              r =
                  "closed, interrupted="
                      + Thread.interrupted()
                      + ", terminated="
                      + o.isTerminated();
              return r;
            }
            try {
              // Interrupted: a deadline far past the interrupt, so that only the interrupt ends the
              // wait (with 50 ms, a loaded machine delivered the interrupt after the deadline).
              r =
                  "awaitTermination="
                      + (m == 0
                          ? o.awaitTermination(50, TimeUnit.MILLISECONDS)
                          : o.awaitTermination(LONG_S, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
              r = "InterruptedException";
            }
            r += "; blocked: " + blocked.waitedOut();
            blocked.release.countDown();
            o.close();
            return r;
          });
    }
  }
}

package dev.tine.agent.it;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An application that prints stack traces of its pool threads, which exist before the agent may
 * arrive: exceptions thrown by tasks (through {@code Future.get}, and caught inside the task),
 * {@code Thread.getStackTrace} of a parked idle worker and of a running one, and {@code
 * StackWalker} frames. It starts its pools, prints {@code READY pid}, and prints the traces once a
 * line arrives on standard input (the test attaches the agent in between, or not); it ends at the
 * next line. Its whole standard output must be the same, byte for byte, with and without the agent.
 */
public final class StackTraceScenario {
  public static void main(String[] args) throws Exception {
    AtomicInteger n = new AtomicInteger();
    ExecutorService fixed =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "app-worker-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    ScheduledExecutorService scheduled = Executors.newSingleThreadScheduledExecutor();
    ForkJoinPool fj = new ForkJoinPool(2);
    // every thread exists and has run a task before the agent can arrive
    CountDownLatch both = new CountDownLatch(2);
    for (int i = 0; i < 2; i++)
      fixed.execute(() -> {
        both.countDown();
        try {
          both.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    both.await();
    scheduled.schedule(() -> {}, 1, TimeUnit.MILLISECONDS).get();
    fj.submit(() -> {}).get();
    CompletableFuture.runAsync(() -> {}).get();
    System.out.println("READY " + ProcessHandle.current().pid());
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    in.readLine();

    // An idle worker, parked in the pool's queue: its stack from another thread.
    Thread idle = workerOf(scheduled);
    while (idle.getState() != Thread.State.WAITING) Thread.sleep(5);
    print("idle scheduled worker", idle.getStackTrace());

    for (int round = 0; round < 2; round++) { // both fixed threads, whichever takes the task
      printFailure("fixed submit", fixed.submit(StackTraceScenario::fail));
      fixed.submit(() -> caughtInside("fixed caught")).get();
    }
    fixed.submit(() -> print("fixed own", Thread.currentThread().getStackTrace())).get();
    fixed.submit(() -> walk("fixed walker")).get();
    printFailure(
        "scheduled", scheduled.schedule(StackTraceScenario::fail, 1, TimeUnit.MILLISECONDS));
    scheduled.submit(() -> walk("scheduled walker")).get();
    printFailure("forkjoin", fj.submit(StackTraceScenario::fail));
    fj.submit(() -> caughtInside("forkjoin caught")).get();
    try {
      CompletableFuture.supplyAsync(StackTraceScenario::fail).get();
    } catch (ExecutionException e) {
      System.out.print(traceOf("common pool", e));
    }
    fixed.shutdown();
    scheduled.shutdown();
    fj.shutdown();
    System.out.println("DONE");
    in.readLine(); // the test reads the agent's failure count, then lets it end
  }

  private static Thread workerOf(ScheduledExecutorService pool) throws Exception {
    AtomicReference<Thread> t = new AtomicReference<>();
    pool.submit(() -> t.set(Thread.currentThread())).get();
    return t.get();
  }

  static Object fail() {
    return deeper(3);
  }

  private static Object deeper(int depth) {
    if (depth == 0) throw new IllegalStateException("boom");
    return deeper(depth - 1);
  }

  static void caughtInside(String what) {
    try {
      fail();
    } catch (IllegalStateException e) {
      System.out.print(traceOf(what, e));
    }
  }

  static void walk(String what) {
    StringBuilder sb = new StringBuilder("== " + what + "\n");
    StackWalker.getInstance().forEach(f -> sb.append("\t").append(f).append("\n"));
    System.out.print(sb);
  }

  static void print(String what, StackTraceElement[] trace) {
    StringBuilder sb = new StringBuilder("== " + what + "\n");
    for (StackTraceElement e : trace) sb.append("\t").append(e).append("\n");
    System.out.print(sb);
  }

  static void printFailure(String what, java.util.concurrent.Future<?> f) throws Exception {
    try {
      f.get();
      System.out.println("== " + what + ": no failure");
    } catch (ExecutionException e) {
      System.out.print(traceOf(what, e));
    }
  }

  static String traceOf(String what, Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    return "== " + what + "\n" + w;
  }
}

package dev.tine.agent.it;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An application that knows nothing of Tine and logs its own truth: one pool ({@code orders-N}
 * threads, 2 of them, a queue of 20, the abort policy) fed bursts of 1 ms tasks of which every
 * tenth throws. The first two tasks of a burst hold both threads until half of it has been offered:
 * at most 22 of that half are accepted, so there are rejections however the box schedules the
 * submitter (left to race, a submitter held back lets the threads drain the queue). After each
 * burst it waits for every accepted task to end and prints {@code TRUTH arrivals=.. rejected=..
 * completed=.. failed=..}. Commands on standard input: {@code burst N}, {@code quit}.
 */
public final class FleetScenario {
  private FleetScenario() {}

  public static void main(String[] args) throws Exception {
    AtomicInteger threads = new AtomicInteger();
    ThreadFactory tf =
        r -> {
          Thread t = new Thread(r, "orders-" + threads.incrementAndGet());
          t.setUncaughtExceptionHandler((th, e) -> {}); // the thrown tasks are expected
          return t;
        };
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(20), tf);
    AtomicLong completed = new AtomicLong(), failed = new AtomicLong();
    long arrivals = 0, rejected = 0;
    System.out.println("READY " + ProcessHandle.current().pid());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.startsWith("burst ")) {
        int n = Integer.parseInt(line.substring(6).trim());
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        for (int i = 0; i < n; i++) {
          if (i == n / 2) gate.countDown();
          boolean throwing = (arrivals + 1) % 10 == 0, held = i < 2;
          arrivals++;
          try {
            pool.execute(() -> {
              try {
                if (held) gate.await();
                Thread.sleep(1);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              if (throwing) {
                failed.incrementAndGet();
                completed.incrementAndGet();
                throw new IllegalStateException("planted");
              }
              completed.incrementAndGet();
            });
          } catch (RejectedExecutionException e) {
            rejected++;
          }
        }
        gate.countDown();
        long accepted = arrivals - rejected;
        while (completed.get() < accepted) Thread.sleep(5);
        System.out.println(
            "TRUTH arrivals="
                + arrivals
                + " rejected="
                + rejected
                + " completed="
                + completed.get()
                + " failed="
                + failed.get());
      } else if (line.equals("quit")) {
        break;
      }
    }
    pool.shutdown();
    pool.awaitTermination(30, TimeUnit.SECONDS);
    System.out.println("BYE");
  }
}

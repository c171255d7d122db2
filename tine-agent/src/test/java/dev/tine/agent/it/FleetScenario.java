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
 * tenth throws. After each burst it waits for every accepted task to end and prints {@code TRUTH
 * arrivals=.. rejected=.. completed=.. failed=..}. Commands on standard input: {@code burst N},
 * {@code quit}.
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
        for (int i = 0; i < n; i++) {
          boolean throwing = (arrivals + 1) % 10 == 0;
          arrivals++;
          try {
            pool.execute(() -> {
              try {
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

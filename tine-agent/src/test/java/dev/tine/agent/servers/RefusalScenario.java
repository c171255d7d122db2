package dev.tine.agent.servers;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Two pools for tune's refusals: a {@code ForkJoinPool} running small tasks, and a {@code
 * ThreadPoolExecutor} ("busy-pool", 2 threads, 3 ms tasks arriving from 6 feeders in a closed loop)
 * that the application itself resizes on {@code resize N} (another thread than tune's, calling its
 * setters, as a configuration centre would).
 */
public final class RefusalScenario {

  public static void main(String[] args) throws Exception {
    ForkJoinPool fjp = new ForkJoinPool(2);
    AtomicInteger seq = new AtomicInteger();
    ThreadPoolExecutor busy =
        new ThreadPoolExecutor(
            2,
            2,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "busy-pool-" + seq.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    for (int i = 0; i < 6; i++) {
      Thread feeder =
          new Thread(() -> {
            while (!busy.isShutdown()) {
              try {
                busy.submit(() -> LockSupport.parkNanos(3_000_000)).get();
                fjp.submit(() -> Truth.work(0, 20_000)).get();
              } catch (Exception e) {
                return;
              }
            }
          });
      feeder.setDaemon(true);
      feeder.start();
    }
    System.out.println("SERVER refusals");
    // "resize N" from the test: this application's own thread sets the pool's sizes
    Thread control =
        new Thread(() -> {
          try {
            java.io.BufferedReader in =
                new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
            System.out.println("PORT 0 PID " + ProcessHandle.current().pid());
            System.out.flush();
            for (String l; (l = in.readLine()) != null; ) {
              if (l.startsWith("resize ")) {
                int n = Integer.parseInt(l.substring(7).trim());
                if (n > busy.getMaximumPoolSize()) {
                  busy.setMaximumPoolSize(n);
                  busy.setCorePoolSize(n);
                } else {
                  busy.setCorePoolSize(n);
                  busy.setMaximumPoolSize(n);
                }
                System.out.println("RESIZED " + n);
              } else if (l.equals("quit")) {
                break;
              }
              System.out.flush();
            }
          } catch (java.io.IOException e) {
            // stdin closed
          }
          busy.shutdownNow();
          fjp.shutdownNow();
          System.out.println("BYE");
          System.out.flush();
        });
    control.start();
    control.join();
  }
}

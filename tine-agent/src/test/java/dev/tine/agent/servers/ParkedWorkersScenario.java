package dev.tine.agent.servers;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.tomcat.util.threads.TaskQueue;
import org.apache.tomcat.util.threads.TaskThreadFactory;

/**
 * A pool of {@code threads} threads, all of them made and parked in {@code getTask} before the
 * agent may arrive: the JDK's {@code ThreadPoolExecutor} ({@code juc}) or Tomcat's own ({@code
 * tomcat}). After an attach each thread returns its next task from the old, uninstrumented {@code
 * getTask} frame. Args: {@code juc|tomcat threads}. Prints {@code READY pid} once every thread is
 * parked in {@code getTask}; at {@code go K} runs K tasks, the first {@code threads} of which hold
 * until each thread has taken one (so every thread's first task after the attach is one of them),
 * and prints {@code DONE K} once all K have run (counted by the tasks themselves); ends at {@code
 * quit}.
 */
public final class ParkedWorkersScenario {
  public static void main(String[] args) throws Exception {
    boolean tomcat = args[0].equals("tomcat");
    int threads = Integer.parseInt(args[1]);
    AbstractExecutorService pool;
    if (tomcat) {
      TaskQueue queue = new TaskQueue();
      org.apache.tomcat.util.threads.ThreadPoolExecutor p =
          new org.apache.tomcat.util.threads.ThreadPoolExecutor(
              threads,
              threads,
              60,
              TimeUnit.SECONDS,
              queue,
              new TaskThreadFactory("parked-", true, Thread.NORM_PRIORITY));
      queue.setParent(p);
      p.prestartAllCoreThreads();
      pool = p;
    } else {
      AtomicInteger n = new AtomicInteger();
      java.util.concurrent.ThreadPoolExecutor p =
          new java.util.concurrent.ThreadPoolExecutor(
              threads,
              threads,
              60,
              TimeUnit.SECONDS,
              new java.util.concurrent.LinkedBlockingQueue<>(),
              r -> {
                Thread t = new Thread(r, "parked-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
      p.prestartAllCoreThreads();
      pool = p;
    }
    awaitAllParkedInGetTask("parked-", threads);
    System.out.println("READY " + ProcessHandle.current().pid());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      String[] w = line.trim().split(" ");
      if (w[0].equals("go")) {
        int k = Integer.parseInt(w[1]);
        CountDownLatch taken = new CountDownLatch(threads), ran = new CountDownLatch(k);
        for (int i = 0; i < k; i++) {
          boolean holds = i < threads;
          pool.execute(() -> {
            if (holds) {
              taken.countDown();
              try {
                taken.await(); // no thread takes a second task before each took one
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            ran.countDown();
          });
        }
        ran.await();
        System.out.println("DONE " + k);
      } else if (w[0].equals("quit")) {
        break;
      }
      System.out.flush();
    }
    pool.shutdown();
  }

  /**
   * Returns once {@code count} threads named {@code prefix}... wait for work inside {@code getTask}
   * ({@code count} 0: every live thread so named, and at least one).
   */
  static void awaitAllParkedInGetTask(String prefix, int count) throws InterruptedException {
    for (; ; ) {
      int named = 0, parked = 0;
      for (var e : Thread.getAllStackTraces().entrySet()) {
        Thread t = e.getKey();
        if (!t.getName().startsWith(prefix)) continue;
        named++;
        Thread.State s = t.getState();
        if (s != Thread.State.WAITING && s != Thread.State.TIMED_WAITING) continue;
        for (StackTraceElement f : e.getValue()) {
          if (f.getMethodName().equals("getTask")) {
            parked++;
            break;
          }
        }
      }
      if (count > 0 ? parked >= count : parked > 0 && parked == named) return;
      Thread.sleep(5);
    }
  }
}

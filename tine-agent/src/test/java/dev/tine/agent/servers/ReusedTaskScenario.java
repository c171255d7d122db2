package dev.tine.agent.servers;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.tomcat.util.threads.TaskQueue;
import org.apache.tomcat.util.threads.TaskThreadFactory;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

/**
 * Tomcat's pool of one thread, idle (parked in {@code getTask}) when the agent may arrive, then
 * given one task object 40 times, each once the previous use has ended and 20 ms have passed: as
 * Tomcat reuses its {@code SocketProcessor}s. Each use waits for nothing (the thread is idle); a
 * wait matched to the previous use's arrival would read about 20 ms. Prints {@code READY pid}, runs
 * the uses at the first line on standard input, prints {@code DONE} with the 21st smallest and the
 * largest of the waits it timed itself (ns, from just before {@code execute} to the task's first
 * reading: an agent's wait for a use lies within it), ends at the next line.
 */
public final class ReusedTaskScenario {
  public static void main(String[] args) throws Exception {
    TaskQueue queue = new TaskQueue();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            1, 1, 60, TimeUnit.SECONDS, queue, new TaskThreadFactory("reused-", true, 5));
    queue.setParent(pool);
    Semaphore done = new Semaphore(0);
    long[] started = new long[1];
    Runnable task =
        () -> {
          started[0] = System.nanoTime();
          done.release();
        };
    pool.execute(task); // the thread exists and waits for work
    done.acquire();
    // READY once the thread is parked in getTask, which the test's attach is to find: the release
    // above comes before the thread gets there, and a loaded box can hold it in between
    awaitParkedInGetTask("reused-");
    System.out.println("READY " + ProcessHandle.current().pid());
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    in.readLine();
    long[] waits = new long[40];
    for (int i = 0; i < 40; i++) {
      Thread.sleep(20);
      long before = System.nanoTime();
      pool.execute(task);
      done.acquire(); // after the task's release: its reading is visible
      waits[i] = started[0] - before;
    }
    java.util.Arrays.sort(waits);
    System.out.println("DONE " + waits[20] + " " + waits[39]);
    System.out.flush();
    in.readLine();
    pool.shutdown();
  }

  static void awaitParkedInGetTask(String prefix) throws InterruptedException {
    while (true) {
      for (var e : Thread.getAllStackTraces().entrySet()) {
        Thread t = e.getKey();
        Thread.State s = t.getState();
        if (!t.getName().startsWith(prefix)
            || (s != Thread.State.WAITING && s != Thread.State.TIMED_WAITING)) continue;
        for (StackTraceElement f : e.getValue()) if (f.getMethodName().equals("getTask")) return;
      }
      Thread.sleep(5);
    }
  }
}

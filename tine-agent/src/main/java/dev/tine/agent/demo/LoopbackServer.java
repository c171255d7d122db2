package dev.tine.agent.demo;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A small loopback request server that knows nothing of Tine: plain {@code Executors} pools (or a
 * {@code ForkJoinPool}), thread-per-connection readers, and its own measurements (ground truth for
 * the agent's tests and {@code tine experiment attach}). It uses no Tine class, so it can run from
 * a directory holding only this class.
 *
 * <p><b>Requests</b> (binary, big-endian): {@code int id, int sleepMicros, int cpuIterations}; the
 * reply is {@code int id, long result}, where {@code result = expected(id, cpuIterations)} (so a
 * client can check every answer) or {@code Long.MIN_VALUE} if the pool rejected the request. The
 * task sleeps {@code sleepMicros} (a call to another system) and computes {@code cpuIterations}
 * rounds of a hash (CPU work).
 *
 * <p><b>Control</b> on standard input, one command a line, answered on standard output:
 *
 * <ul>
 *   <li>{@code pool fixed N} | {@code pool cached} | {@code pool bounded N Q} (N threads, a queue
 *       of Q, abort policy) | {@code pool forkjoin N}: a new request pool (the old one is shut
 *       down).
 *   <li>{@code stats FROM_MS TO_MS}: {@code STATS n waitNanosSum serviceNanosSum} over the requests
 *       that ended within [FROM, TO] (wall-clock milliseconds), as the server measured them: wait
 *       from just before {@code execute} to the task's first line, service from its first line to
 *       its last.
 *   <li>{@code totals}: {@code TOTALS submitted rejected completed}.
 *   <li>{@code quit}.
 * </ul>
 *
 * At start it prints {@code PORT p PID q}. With the argument {@code housekeeping} it also runs what
 * a real server has beside its request pool: a scheduled pool ticking every 20 ms, and an audit
 * record per request handed to the common {@code ForkJoinPool} ({@code
 * CompletableFuture.runAsync}).
 */
public final class LoopbackServer {
  /** Per finished request: end (wall ms), wait (ns), service (ns). A ring: the last LOG entries. */
  private static final int LOG = 1 << 20;

  private final long[] endMillis = new long[LOG],
      waitNanos = new long[LOG],
      serviceNanos = new long[LOG];
  private long logged;
  private long submitted, rejected, completed;

  private volatile ExecutorService pool;
  private volatile boolean audit;
  private final java.util.concurrent.atomic.AtomicLong audited =
      new java.util.concurrent.atomic.AtomicLong();

  public static long expected(int id, int cpuIterations) {
    long h = id * 0x9E3779B97F4A7C15L;
    for (int i = 0; i < cpuIterations; i++) {
      h ^= h >>> 31;
      h *= 0xBF58476D1CE4E5B9L;
      h += i;
    }
    return h;
  }

  public static void main(String[] args) throws Exception {
    java.util.List<String> a = new java.util.ArrayList<>(java.util.List.of(args));
    boolean housekeeping = a.remove("housekeeping");
    new LoopbackServer().run(a.isEmpty() ? "fixed 1" : String.join(" ", a), housekeeping);
  }

  private void run(String initialPool, boolean housekeeping) throws Exception {
    pool = newPool(initialPool.trim().split("\\s+"));
    if (housekeeping) {
      audit = true;
      java.util.concurrent.ScheduledExecutorService sched = Executors.newScheduledThreadPool(1);
      sched.scheduleAtFixedRate(
          () -> expected((int) System.nanoTime(), 20_000), 20, 20, TimeUnit.MILLISECONDS);
    }
    ServerSocket ss = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> accept(ss), "acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
    System.out.println("PORT " + ss.getLocalPort() + " PID " + ProcessHandle.current().pid());
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      String[] w = line.trim().split("\\s+");
      try {
        switch (w[0]) {
          case "pool" -> {
            ExecutorService old = pool;
            pool = newPool(java.util.Arrays.copyOfRange(w, 1, w.length));
            old.shutdown();
            old.awaitTermination(10, TimeUnit.SECONDS);
            System.out.println(
                "OK pool " + String.join(" ", java.util.Arrays.copyOfRange(w, 1, w.length)));
          }
          case "stats" -> System.out.println(stats(Long.parseLong(w[1]), Long.parseLong(w[2])));
          case "totals" -> {
            synchronized (this) {
              System.out.println("TOTALS " + submitted + " " + rejected + " " + completed);
            }
          }
          case "quit" -> {
            System.out.println("BYE");
            System.out.flush();
            System.exit(0);
          }
          default -> System.out.println("ERR unknown command " + w[0]);
        }
      } catch (RuntimeException e) {
        System.out.println("ERR " + e);
      }
      System.out.flush();
    }
    System.exit(0);
  }

  private static ExecutorService newPool(String[] w) {
    return switch (w[0]) {
      case "fixed" -> Executors.newFixedThreadPool(Integer.parseInt(w[1]));
      case "cached" -> Executors.newCachedThreadPool();
      case "bounded" ->
          new ThreadPoolExecutor(
              Integer.parseInt(w[1]),
              Integer.parseInt(w[1]),
              0,
              TimeUnit.SECONDS,
              new ArrayBlockingQueue<>(Integer.parseInt(w[2])),
              new ThreadPoolExecutor.AbortPolicy());
      case "forkjoin" -> new ForkJoinPool(Integer.parseInt(w[1]));
      default ->
          throw new IllegalArgumentException("pool fixed N | cached | bounded N Q | forkjoin N");
    };
  }

  private synchronized String stats(long from, long to) {
    long n = 0, w = 0, s = 0;
    long first = Math.max(0, logged - LOG);
    for (long i = first; i < logged; i++) {
      int k = (int) (i & (LOG - 1));
      if (endMillis[k] >= from && endMillis[k] <= to) {
        n++;
        w += waitNanos[k];
        s += serviceNanos[k];
      }
    }
    return "STATS " + n + " " + w + " " + s;
  }

  private synchronized void log(long wait, long service) {
    int k = (int) (logged & (LOG - 1));
    endMillis[k] = System.currentTimeMillis();
    waitNanos[k] = wait;
    serviceNanos[k] = service;
    logged++;
    completed++;
  }

  private void accept(ServerSocket ss) {
    for (; ; ) {
      try {
        Socket s = ss.accept();
        s.setTcpNoDelay(true);
        Thread t = new Thread(() -> serve(s), "conn-" + s.getPort());
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s;
        DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
        DataOutputStream out =
            new DataOutputStream(new BufferedOutputStream(s.getOutputStream()))) {
      for (; ; ) {
        int id = in.readInt(), sleepMicros = in.readInt(), cpu = in.readInt();
        long submittedAt = System.nanoTime();
        Runnable task =
            () -> {
              long start = System.nanoTime();
              if (sleepMicros > 0) LockSupport.parkNanos(sleepMicros * 1000L);
              long r = expected(id, cpu);
              reply(out, id, r);
              if (audit)
                java.util.concurrent.CompletableFuture.runAsync(
                    () -> audited.addAndGet(expected(id, 2_000)));
              log(start - submittedAt, System.nanoTime() - start); // the whole task but this line
            };
        synchronized (this) {
          submitted++;
        }
        try {
          pool.execute(task);
        } catch (RejectedExecutionException e) {
          synchronized (this) {
            rejected++;
          }
          reply(out, id, Long.MIN_VALUE);
        }
      }
    } catch (EOFException e) {
      // client closed
    } catch (IOException e) {
      // connection reset
    }
  }

  private static void reply(DataOutputStream out, int id, long r) {
    synchronized (out) {
      try {
        out.writeInt(id);
        out.writeLong(r);
        out.flush();
      } catch (IOException e) {
        // client gone
      }
    }
  }
}

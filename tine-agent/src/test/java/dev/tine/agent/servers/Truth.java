package dev.tine.agent.servers;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A test server's own log of its request pool's tasks (ground truth for the agent's figures), and
 * the control loop on standard input. Each server records, per task of its request pool, when it
 * arrived, started and ended ({@code System.nanoTime}, turned into wall-clock milliseconds here so
 * windows can be matched with the agent's), at the pool's own extension points or in its handler.
 *
 * <p>Commands: {@code stats FROM_MS TO_MS} answers {@code STATS arrivals ended waitNanosSum
 * serviceNanosSum requests p99Wait reqStarted reqEnded reqWaitSum reqServiceSum reqP99Wait
 * reqP90Wait heldEnded heldWaitSum heldSum}: tasks that arrived in [FROM, TO), and over the tasks
 * that ended in it their summed wait and service, requests handled in it; then the requests the
 * server timed itself (those that started in the window, and over those that ended in it their
 * summed wait, -1 if unknown, and handling); then the async requests that ended in it and, over
 * them, the summed wait for the pool's threads and time on them (their dispatches). {@code parked
 * PREFIX} answers {@code PARKED} once every thread named PREFIX... waits inside {@code getTask}.
 * {@code quit} ends the server.
 */
final class Truth {
  private static final int LOG = 1 << 20;
  private static final long BASE_MILLIS = System.currentTimeMillis();
  private static final long BASE_NANOS = System.nanoTime();

  private final long[] arrivalMs = new long[LOG], endMs = new long[LOG];
  private final long[] waitNs = new long[LOG], serviceNs = new long[LOG];
  private final long[] requestMs = new long[LOG];
  private long tasks, requests, rejected;

  // requests timed by the server itself (its per-request extension point): start, end, and the
  // wait from the connection being handed to the pool (-1: not known)
  private final long[] reqStartMs = new long[LOG], reqEndMs = new long[LOG];
  private final long[] reqWaitNs = new long[LOG], reqServiceNs = new long[LOG];
  private long timedRequests;

  // the thread-held part of requests that left their thread (Servlet async): per request, its wait
  // for a thread and its time on threads, summed over its dispatches (-1 wait: not known)
  private final long[] heldEndMs = new long[LOG],
      heldWaitNs = new long[LOG],
      heldNs = new long[LOG];
  private long heldRequests;

  static long wallMillis(long nanos) {
    return BASE_MILLIS + Math.floorDiv(nanos - BASE_NANOS, 1_000_000L);
  }

  /** One task of the request pool (nanoTime values). */
  synchronized void task(long arrival, long start, long end) {
    int i = (int) (tasks++ & (LOG - 1));
    arrivalMs[i] = wallMillis(arrival);
    endMs[i] = wallMillis(end);
    waitNs[i] = start - arrival;
    serviceNs[i] = end - start;
  }

  /**
   * One request as the server times it (nanoTime values): its handling's start and end, and when
   * its bytes were handed to the pool ({@code ready}; 0 if not known).
   */
  synchronized void timedRequest(long ready, long start, long end) {
    int i = (int) (timedRequests++ & (LOG - 1));
    reqStartMs[i] = wallMillis(start);
    reqEndMs[i] = wallMillis(end);
    reqWaitNs[i] = ready == 0 ? -1 : start - ready;
    reqServiceNs[i] = end - start;
  }

  /**
   * The thread-held part of a request that left its thread (Servlet async), at its end ({@code
   * end}, nanoTime): its wait for the pool's threads ({@code -1}: not known) and its time on them,
   * each summed over its dispatches.
   */
  synchronized void heldRequest(long waitNs, long held, long end) {
    int i = (int) (heldRequests++ & (LOG - 1));
    heldEndMs[i] = wallMillis(end);
    heldWaitNs[i] = waitNs;
    heldNs[i] = held;
  }

  /** The pool refused a task. */
  synchronized void rejected() {
    rejected++;
  }

  /** One request handled (its end). */
  synchronized void request() {
    requestMs[(int) (requests++ & (LOG - 1))] = System.currentTimeMillis();
  }

  synchronized String stats(long from, long to) {
    long arrived = 0, ended = 0, wait = 0, service = 0, req = 0;
    long[] waits = new long[16];
    for (long k = Math.max(0, tasks - LOG); k < tasks; k++) {
      int i = (int) (k & (LOG - 1));
      if (arrivalMs[i] >= from && arrivalMs[i] < to) arrived++;
      if (endMs[i] >= from && endMs[i] < to) {
        if (ended == waits.length) waits = java.util.Arrays.copyOf(waits, waits.length * 2);
        waits[(int) ended++] = waitNs[i];
        wait += waitNs[i];
        service += serviceNs[i];
      }
    }
    java.util.Arrays.sort(waits, 0, (int) ended);
    long p99 = ended == 0 ? 0 : waits[(int) Math.ceil(0.99 * ended) - 1];
    for (long k = Math.max(0, requests - LOG); k < requests; k++) {
      long m = requestMs[(int) (k & (LOG - 1))];
      if (m >= from && m < to) req++;
    }
    // the server's own request timings: started, ended, and over the ended ones the summed wait
    // (-1 if some wait is unknown), service, and the 99th percentile wait
    long rStarted = 0, rEnded = 0, rWait = 0, rService = 0;
    long[] rWaits = new long[16];
    for (long k = Math.max(0, timedRequests - LOG); k < timedRequests; k++) {
      int i = (int) (k & (LOG - 1));
      if (reqStartMs[i] >= from && reqStartMs[i] < to) rStarted++;
      if (reqEndMs[i] >= from && reqEndMs[i] < to) {
        if (rEnded == rWaits.length) rWaits = java.util.Arrays.copyOf(rWaits, rWaits.length * 2);
        rWaits[(int) rEnded++] = reqWaitNs[i];
        rWait = rWait < 0 || reqWaitNs[i] < 0 ? -1 : rWait + reqWaitNs[i];
        rService += reqServiceNs[i];
      }
    }
    java.util.Arrays.sort(rWaits, 0, (int) rEnded);
    long rP99 = rEnded == 0 || rWait < 0 ? -1 : rWaits[(int) Math.ceil(0.99 * rEnded) - 1];
    long rP90 = rEnded == 0 || rWait < 0 ? -1 : rWaits[(int) Math.ceil(0.90 * rEnded) - 1];
    // the thread-held parts of the async requests that ended in the window
    long hEnded = 0, hWait = 0, hHeld = 0;
    for (long k = Math.max(0, heldRequests - LOG); k < heldRequests; k++) {
      int i = (int) (k & (LOG - 1));
      if (heldEndMs[i] >= from && heldEndMs[i] < to) {
        hEnded++;
        hWait = hWait < 0 || heldWaitNs[i] < 0 ? -1 : hWait + heldWaitNs[i];
        hHeld += heldNs[i];
      }
    }
    return "STATS " + arrived + " " + ended + " " + wait + " " + service + " " + req + " " + p99
        + " " + rStarted + " " + rEnded + " " + rWait + " " + rService + " " + rP99 + " " + rP90
        + " " + hEnded + " " + hWait + " " + hHeld;
  }

  /** The server's pool sizes through its own API, for {@code sizes} (set by the server's main). */
  static volatile java.util.function.Supplier<String> sizes = () -> "?";

  /** Requests in {@link #work} now, and the most at once since the last {@code peak}. */
  private static final java.util.concurrent.atomic.AtomicInteger
      IN_WORK = new java.util.concurrent.atomic.AtomicInteger(),
      PEAK = new java.util.concurrent.atomic.AtomicInteger();

  /** Prints {@code PORT p PID q} and serves commands until {@code quit}. */
  void serve(int port, Runnable stop) throws Exception {
    System.out.println("PORT " + port + " PID " + ProcessHandle.current().pid());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      String[] w = line.trim().split(" ");
      if (w[0].equals("stats")) {
        System.out.println(stats(Long.parseLong(w[1]), Long.parseLong(w[2])));
      } else if (w[0].equals("count")) {
        synchronized (this) {
          System.out.println(
              "COUNT " + requests + " " + Runtime.getRuntime().availableProcessors());
        }
      } else if (w[0].equals("parked")) {
        // every thread of the pool (named w[1]...) waits for work inside getTask
        ParkedWorkersScenario.awaitAllParkedInGetTask(w[1], 0);
        System.out.println("PARKED");
      } else if (w[0].equals("rejected")) {
        synchronized (this) {
          System.out.println("REJECTED " + rejected);
        }
      } else if (w[0].equals("sizes")) {
        System.out.println("SIZES " + sizes.get());
      } else if (w[0].equals("peak")) {
        // the most requests handled at once since the last peak; the next count starts from now
        System.out.println("PEAK " + PEAK.getAndSet(IN_WORK.get()));
      } else if (w[0].equals("cpu")) {
        System.out.println("CPU " + cpuMs());
      } else if (w[0].equals("quit")) {
        break;
      }
      System.out.flush();
    }
    stop.run();
    System.out.println("BYE");
    System.out.flush();
  }

  private static final AtomicLong SINK = new AtomicLong();
  private static final AtomicLong CPU_NANOS = new AtomicLong(), CPU_RUNS = new AtomicLong();

  /** Mean duration of the CPU part of {@link #work} (after its sleep), in ms. */
  static double cpuMs() {
    long n = CPU_RUNS.get();
    return n == 0 ? 0 : CPU_NANOS.get() / 1e6 / n;
  }

  /**
   * A request's work: {@code sleepMicros} of waiting on "another system", then {@code cpu} rounds
   * of a hash.
   */
  static void work(int sleepMicros, int cpu) {
    PEAK.accumulateAndGet(IN_WORK.incrementAndGet(), Math::max);
    try {
      workNow(sleepMicros, cpu);
    } finally {
      IN_WORK.decrementAndGet();
    }
  }

  private static void workNow(int sleepMicros, int cpu) {
    long deadline = System.nanoTime() + sleepMicros * 1000L;
    for (long left; (left = deadline - System.nanoTime()) > 0; ) LockSupport.parkNanos(left);
    long t0 = System.nanoTime();
    long h = 0x9E3779B97F4A7C15L;
    for (int i = 0; i < cpu; i++) {
      h ^= h >>> 31;
      h *= 0xBF58476D1CE4E5B9L;
      h += i;
    }
    SINK.addAndGet(h);
    CPU_NANOS.addAndGet(System.nanoTime() - t0);
    CPU_RUNS.incrementAndGet();
  }

  /** The request's parameters from a query string {@code sleep=US&cpu=N}. */
  static int[] params(String query) {
    int sleep = 0, cpu = 0;
    if (query != null) {
      for (String kv : query.split("&")) {
        String[] p = kv.split("=", 2);
        if (p.length < 2) continue;
        if (p[0].equals("sleep")) sleep = Integer.parseInt(p[1]);
        if (p[0].equals("cpu")) cpu = Integer.parseInt(p[1]);
      }
    }
    return new int[] {sleep, cpu};
  }
}

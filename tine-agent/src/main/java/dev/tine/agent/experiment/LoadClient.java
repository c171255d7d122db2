package dev.tine.agent.experiment;

import dev.tine.agent.demo.LoopbackServer;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-loop clients of {@link LoopbackServer} (Pepperdine's clients: send, wait for the answer,
 * send again), each on its own connection. Records when every request was sent (wall-clock ms), so
 * the arrival rate over any interval can be compared with what the agent saw, and checks every
 * answer.
 */
public final class LoadClient implements AutoCloseable {
  private static final int RING = 1 << 21;
  private final long[] sentAt = new long[RING];
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong answered = new AtomicLong(),
      rejectedReplies = new AtomicLong(),
      wrong = new AtomicLong();
  private final AtomicInteger ids = new AtomicInteger();
  private final List<Thread> threads = new ArrayList<>();
  private final List<Socket> sockets = new ArrayList<>();
  private volatile boolean stop;
  private volatile int sleepMicros, cpuIterations;

  /**
   * @param clients connections, one closed-loop thread each
   * @param sleepMicros per request, the server's sleep (a call to another system)
   * @param cpuIterations per request, the server's CPU work
   */
  public LoadClient(int port, int clients, int sleepMicros, int cpuIterations) throws IOException {
    this.sleepMicros = sleepMicros;
    this.cpuIterations = cpuIterations;
    for (int c = 0; c < clients; c++) {
      Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
      s.setTcpNoDelay(true);
      sockets.add(s);
      Thread t = new Thread(() -> loop(s), "load-client-" + c);
      t.setDaemon(true);
      threads.add(t);
    }
    threads.forEach(Thread::start);
  }

  /** Changes the requests from now on. */
  public void shape(int sleepMicros, int cpuIterations) {
    this.sleepMicros = sleepMicros;
    this.cpuIterations = cpuIterations;
  }

  private void loop(Socket s) {
    try (DataOutputStream out =
            new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
        DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()))) {
      while (!stop) {
        int id = ids.incrementAndGet(), sl = sleepMicros, cpu = cpuIterations;
        long k = sent.getAndIncrement();
        sentAt[(int) (k & (RING - 1))] = System.currentTimeMillis();
        out.writeInt(id);
        out.writeInt(sl);
        out.writeInt(cpu);
        out.flush();
        int rid = in.readInt();
        long r = in.readLong();
        if (r == Long.MIN_VALUE) rejectedReplies.incrementAndGet();
        else if (rid != id || r != LoopbackServer.expected(id, cpu)) wrong.incrementAndGet();
        answered.incrementAndGet();
      }
    } catch (IOException e) {
      // closed
    }
  }

  /** Requests sent within [from, to] (wall-clock ms, inclusive), among the last two million. */
  public long sentBetween(long fromMillis, long toMillis) {
    long n = sent.get(), c = 0;
    for (long i = Math.max(0, n - RING); i < n; i++) {
      long t = sentAt[(int) (i & (RING - 1))];
      if (t >= fromMillis && t <= toMillis) c++;
    }
    return c;
  }

  public long sent() {
    return sent.get();
  }

  public long answered() {
    return answered.get();
  }

  /** {@return answers that said "rejected"} */
  public long rejectedReplies() {
    return rejectedReplies.get();
  }

  /** {@return answers with a wrong id or result (should stay 0)} */
  public long wrong() {
    return wrong.get();
  }

  /** Stops the clients (each finishes the request in flight) and closes the connections. */
  @Override
  public void close() {
    stop = true;
    for (Thread t : threads) {
      try {
        t.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }
}

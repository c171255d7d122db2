package dev.tine.bench.experiments;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Pepperdine's article's server, on 127.0.0.1: each request is one byte (its kind) and an int (its
 * size); the work runs on the given pool; the answer is a long. Kinds: {@link #CPU} computes √2 to
 * {@code size} digits (CPU work), {@link #SLEEP} sleeps {@code size} ms (a call to an external
 * system). A malformed request (unknown kind, negative or huge size) or a client that vanishes
 * closes that connection only; the server keeps serving.
 */
public final class RequestServer implements AutoCloseable {
  public static final byte CPU = 1, SLEEP = 2;
  static final int MAX_DIGITS = 100_000, MAX_SLEEP_MS = 60_000;

  private final ServerSocket server;
  private final ExecutorService pool;
  private final Thread acceptor;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicLong malformed = new AtomicLong();

  public RequestServer(ExecutorService pool) throws IOException {
    this.pool = pool;
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
    this.acceptor = Thread.ofPlatform().daemon().name("request-server").start(this::acceptLoop);
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Connections closed because of malformed requests. */
  public long malformedRequests() {
    return malformed.get();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        open.add(s);
        Thread.ofVirtual().start(() -> serve(s));
      } catch (IOException e) {
        if (server.isClosed()) return;
      }
    }
  }

  /** The work itself: √2 to {@code digits} digits, or a sleep. Public for calibration. */
  public static long work(byte kind, int size) throws InterruptedException {
    if (kind == CPU) {
      BigDecimal r = BigDecimal.TWO.sqrt(new MathContext(size));
      return r.unscaledValue().longValue();
    }
    Thread.sleep(size);
    return size;
  }

  private void serve(Socket s) {
    try (s;
        DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
        DataOutputStream out =
            new DataOutputStream(new BufferedOutputStream(s.getOutputStream()))) {
      for (; ; ) {
        byte kind;
        try {
          kind = in.readByte();
        } catch (EOFException eof) {
          return; // the client is done
        }
        int size = in.readInt();
        if ((kind != CPU && kind != SLEEP)
            || size < 0
            || (kind == CPU && size > MAX_DIGITS)
            || (kind == SLEEP && size > MAX_SLEEP_MS)) {
          malformed.incrementAndGet();
          return; // close this connection, keep serving others
        }
        Future<Long> f = pool.submit(() -> work(kind, size));
        long answer = f.get();
        out.writeLong(answer);
        out.flush();
      }
    } catch (IOException e) {
      // abrupt close or reset: only this connection ends
    } catch (java.util.concurrent.RejectedExecutionException
        | java.util.concurrent.ExecutionException e) {
      // the pool refused or the work failed: close this connection
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      open.remove(s);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
    try {
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

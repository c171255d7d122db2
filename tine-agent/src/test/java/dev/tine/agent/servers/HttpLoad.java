package dev.tine.agent.servers;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-loop HTTP/1.1 clients on 127.0.0.1: each sends {@code GET /work?sleep=..&cpu=..}, reads
 * the whole answer, and sends the next. With {@code close} each request is on a new connection
 * ({@code Connection: close}), so each is one task of the server's pool; otherwise connections are
 * kept alive. Bounded: stops at {@link #close}, and a client that fails stops.
 */
final class HttpLoad implements AutoCloseable {
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean running = true;
  final AtomicLong answered = new AtomicLong(),
      wrong = new AtomicLong(),
      refused = new AtomicLong();
  private final List<Socket> open = java.util.Collections.synchronizedList(new ArrayList<>());

  HttpLoad(int port, int clients, int sleepMicros, int cpu, boolean close) {
    this(port, clients, sleepMicros, cpu, close, false);
  }

  /**
   * With {@code refusals}, a connection the server closes unanswered (it refused the work) is
   * counted in {@link #refused} and the client connects again.
   */
  HttpLoad(int port, int clients, int sleepMicros, int cpu, boolean close, boolean refusals) {
    byte[] request =
        ("GET /work?sleep="
                + sleepMicros
                + "&cpu="
                + cpu
                + " HTTP/1.1\r\nHost: 127.0.0.1:"
                + port
                + "\r\n"
                + (close ? "Connection: close\r\n" : "")
                + "\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    for (int c = 0; c < clients; c++) {
      Thread t =
          new Thread(
              () -> {
                Socket s = null;
                InputStream in = null;
                while (running) {
                  try {
                    while (running) {
                      if (s == null) {
                        s = new Socket(InetAddress.getLoopbackAddress(), port);
                        s.setTcpNoDelay(true);
                        open.add(s);
                        in = new BufferedInputStream(s.getInputStream());
                      }
                      OutputStream out = s.getOutputStream();
                      out.write(request);
                      out.flush();
                      int answer = readAnswer(in);
                      ((answer & OK) != 0 ? answered : wrong).incrementAndGet();
                      if (close || (answer & CLOSED) != 0) { // servers end keep-alive now and then
                        open.remove(s);
                        s.close();
                        s = null;
                      }
                    }
                  } catch (IOException e) {
                    if (running && !refusals) {
                      wrong.incrementAndGet();
                      running = false; // a failed client stops the load
                    } else if (running) {
                      refused.incrementAndGet();
                    }
                  } finally {
                    if (s != null) {
                      open.remove(s);
                      try {
                        s.close();
                      } catch (IOException e) {
                        // closing
                      }
                      s = null;
                    }
                  }
                }
              },
              "http-load-" + c);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  private static final int OK = 1, CLOSED = 2;

  /**
   * Exactly {@code connections × each} requests: {@code connections} keep-alive clients at once,
   * each sending {@code each} one after the other. Returns how many were answered 200 "ok"; throws
   * if a client failed.
   */
  static long exactly(int port, int connections, int each, int sleepMicros, int cpu)
      throws Exception {
    byte[] request =
        ("GET /work?sleep="
                + sleepMicros
                + "&cpu="
                + cpu
                + " HTTP/1.1\r\nHost: 127.0.0.1:"
                + port
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    AtomicLong ok = new AtomicLong();
    List<Throwable> failed = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Thread> clients = new ArrayList<>();
    for (int c = 0; c < connections; c++) {
      Thread t =
          new Thread(
              () -> {
                Socket s = null;
                InputStream in = null;
                try {
                  for (int i = 0; i < each; i++) {
                    if (s == null) {
                      s = new Socket(InetAddress.getLoopbackAddress(), port);
                      s.setTcpNoDelay(true);
                      in = new BufferedInputStream(s.getInputStream());
                    }
                    s.getOutputStream().write(request);
                    s.getOutputStream().flush();
                    int answer = readAnswer(in);
                    if ((answer & OK) != 0) ok.incrementAndGet();
                    if ((answer & CLOSED) != 0) {
                      s.close();
                      s = null;
                    }
                  }
                } catch (IOException e) {
                  failed.add(e);
                } finally {
                  try {
                    if (s != null) s.close();
                  } catch (IOException e) {
                    // closing
                  }
                }
              },
              "http-exact-" + c);
      t.setDaemon(true);
      clients.add(t);
      t.start();
    }
    for (Thread t : clients) t.join(120_000);
    if (!failed.isEmpty()) throw new IOException("clients failed: " + failed);
    return ok.get();
  }

  /**
   * Reads one answer (status line, headers, Content-Length body): {@link #OK} if it is 200 "ok",
   * plus {@link #CLOSED} if the server closes the connection after it.
   */
  private static int readAnswer(InputStream in) throws IOException {
    String status = line(in);
    int length = -1, closed = 0;
    for (String h; !(h = line(in)).isEmpty(); ) {
      int colon = h.indexOf(':');
      if (colon <= 0) continue;
      String name = h.substring(0, colon).trim(), value = h.substring(colon + 1).trim();
      if (name.equalsIgnoreCase("content-length")) length = Integer.parseInt(value);
      if (name.equalsIgnoreCase("connection") && value.equalsIgnoreCase("close")) closed = CLOSED;
    }
    if (length < 0) throw new IOException("no Content-Length: " + status);
    byte[] body = in.readNBytes(length);
    boolean ok =
        status.contains(" 200") && new String(body, StandardCharsets.US_ASCII).equals("ok");
    return (ok ? OK : 0) | closed;
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int b; (b = in.read()) != '\n'; ) {
      if (b < 0) throw new IOException("connection closed");
      if (b != '\r') sb.append((char) b);
    }
    return sb.toString();
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    synchronized (open) {
      for (Socket s : open) {
        try {
          s.close();
        } catch (IOException e) {
          // closing
        }
      }
    }
    for (Thread t : threads) t.join(10_000);
  }
}

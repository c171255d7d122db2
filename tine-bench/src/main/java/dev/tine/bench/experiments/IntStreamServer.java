package dev.tine.bench.experiments;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.SplittableRandom;

/**
 * The thread-pool blog post's server: on 127.0.0.1, every connection receives {@code count} random
 * ints in 1..10 (big-endian, as DataOutputStream writes them), then the server closes it. A client
 * that goes away early only ends its own connection.
 */
public final class IntStreamServer implements AutoCloseable {
  private final ServerSocket server;
  private final Thread acceptor;
  private final int count;
  private final long seed;

  public IntStreamServer(int count, long seed) throws IOException {
    this.count = count;
    this.seed = seed;
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    this.acceptor = Thread.ofPlatform().daemon().name("int-stream-server").start(this::acceptLoop);
  }

  public int port() {
    return server.getLocalPort();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        Thread.ofVirtual().start(() -> serve(s));
      } catch (IOException e) {
        if (server.isClosed()) return; // closed: stop
      }
    }
  }

  private void serve(Socket s) {
    try (s;
        DataOutputStream out =
            new DataOutputStream(new BufferedOutputStream(s.getOutputStream()))) {
      SplittableRandom r = new SplittableRandom(seed);
      for (int i = 0; i < count; i++) {
        out.writeInt(1 + r.nextInt(10));
      }
      out.flush();
    } catch (IOException e) {
      // the client went away: only this connection ends
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    try {
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package dev.tine.bench.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.executor.MeasuredExecutor;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The experiment servers survive malformed and vanishing clients; the experiments run end to end.
 */
@Timeout(60)
class ServersTest {

  static long request(Socket s, byte kind, int size) throws Exception {
    DataOutputStream out = new DataOutputStream(s.getOutputStream());
    out.writeByte(kind);
    out.writeInt(size);
    out.flush();
    return new DataInputStream(s.getInputStream()).readLong();
  }

  @Test
  void requestServerSurvivesMalformedAndAbruptClients() throws Exception {
    try (MeasuredExecutor ex =
            MeasuredExecutor.builder().poolSize(2).registerMXBean(false).build();
        RequestServer server = new RequestServer(ex)) {
      InetAddress lo = InetAddress.getLoopbackAddress();
      // malformed: unknown kind -> that connection is closed
      try (Socket bad = new Socket(lo, server.port())) {
        DataOutputStream out = new DataOutputStream(bad.getOutputStream());
        out.writeByte(99);
        out.writeInt(1);
        out.flush();
        assertEquals(-1, bad.getInputStream().read(), "server closed the malformed connection");
      }
      // malformed: absurd size
      try (Socket bad = new Socket(lo, server.port())) {
        DataOutputStream out = new DataOutputStream(bad.getOutputStream());
        out.writeByte(RequestServer.SLEEP);
        out.writeInt(-5);
        out.flush();
        assertEquals(-1, bad.getInputStream().read());
      }
      // abrupt: half a request, then gone
      try (Socket abrupt = new Socket(lo, server.port())) {
        abrupt.getOutputStream().write(RequestServer.CPU);
        abrupt.setSoLinger(true, 0); // reset on close
      }
      // abrupt: request sent, client vanishes before the answer
      try (Socket gone = new Socket(lo, server.port())) {
        DataOutputStream out = new DataOutputStream(gone.getOutputStream());
        out.writeByte(RequestServer.SLEEP);
        out.writeInt(50);
        out.flush();
        gone.setSoLinger(true, 0);
      }
      assertEquals(2, server.malformedRequests());
      // the server still serves well-formed clients
      try (Socket good = new Socket(lo, server.port())) {
        assertEquals(3, request(good, RequestServer.SLEEP, 3));
        assertTrue(request(good, RequestServer.CPU, 100) != 0);
      }
    }
  }

  @Test
  void intStreamServerSendsTheInts() throws Exception {
    try (IntStreamServer server = new IntStreamServer(1000, 1)) {
      // a client that leaves after 10 ints does not stop the server
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
        DataInputStream in = new DataInputStream(s.getInputStream());
        for (int i = 0; i < 10; i++) in.readInt();
      }
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
        DataInputStream in = new DataInputStream(s.getInputStream());
        for (int i = 0; i < 1000; i++) {
          int v = in.readInt();
          assertTrue(v >= 1 && v <= 10, "value " + v);
        }
        assertEquals(-1, in.read(), "exactly 1000 ints");
      }
    }
  }

  @Test
  void poolVsThreadsRunsEveryStrategy() throws Exception {
    List<PoolVsThreads.Result> rs = new PoolVsThreads(100).run(null);
    assertEquals(8, rs.size());
    for (PoolVsThreads.Result r : rs) {
      assertTrue(r.elapsedMs() >= r.submitMs(), r.toString());
    }
    PoolVsThreads.Result seq = rs.get(0), seed = rs.get(2);
    assertEquals("sequential", seq.strategy());
    assertEquals(1, seed.maxThreads(), "the seed's pool never grows past its core thread");
    assertTrue(seq.elapsedMs() >= 100, "100 sleeps of at least 1 ms each: " + seq);
  }

  @Test
  void poolSizingRecordsAreComplete() throws Exception {
    PoolSizing exp = new PoolSizing(Duration.ofMillis(200), Duration.ofMillis(300), 200, 2, 0.5);
    List<PoolSizing.Result> rs = exp.run(new int[] {2}, List.of("2", "adaptive"), null);
    assertEquals(2, rs.size());
    for (PoolSizing.Result r : rs) {
      assertTrue(r.completed() > 0, r.toString());
      assertTrue(r.littlesL() > 0 && r.littlesL() <= 2.5, "2 closed-loop clients: L <= 2: " + r);
      var m = r.toMap();
      for (String k :
          List.of("clients", "pool_size", "throughput_rps", "littles_l", "dead_time_ratio")) {
        assertTrue(m.containsKey(k), k);
      }
    }
    assertEquals("adaptive", rs.get(1).toMap().get("pool_size"));
    assertEquals(2, rs.get(0).toMap().get("pool_size"));
  }
}

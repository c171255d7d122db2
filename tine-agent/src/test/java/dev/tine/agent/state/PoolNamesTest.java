package dev.tine.agent.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PoolNamesTest {
  @Test
  void commonPrefixWithoutCounterAndSeparators() {
    assertEquals(
        "pool-3-thread", PoolNames.commonPrefix(List.of("pool-3-thread-1", "pool-3-thread-2")));
    assertEquals(
        "pool-3-thread", PoolNames.commonPrefix(List.of("pool-3-thread-1", "pool-3-thread-12")));
    assertEquals("http-nio-8080-exec", PoolNames.commonPrefix(List.of("http-nio-8080-exec-7")));
    assertEquals(
        "ForkJoinPool-1-worker",
        PoolNames.commonPrefix(List.of("ForkJoinPool-1-worker-1", "ForkJoinPool-1-worker-3")));
    assertEquals(
        "RMI TCP Connection",
        PoolNames.commonPrefix(
            List.of("RMI TCP Connection(2)-127.0.0.1", "RMI TCP Connection(5)-127.0.0.1")));
  }

  @Test
  void noUsablePrefix() {
    assertNull(PoolNames.commonPrefix(List.of()));
    assertNull(PoolNames.commonPrefix(List.of("alpha", "beta")));
    assertNull(PoolNames.commonPrefix(List.of("t-1", "t-2")));
  }

  /** The pools a JMX client's connection brings are neither shown by default nor scraped. */
  @Test
  void aJmxConnectionsOwnPoolsAreMachinery() {
    String rmi =
        PoolNames.commonPrefix(
            List.of("RMI TCP Connection(2)-127.0.0.1", "RMI TCP Connection(5)-127.0.0.1"));
    assertTrue(PoolNames.jmxMachinery(rmi, ""));
    assertTrue(PoolNames.jmxMachinery("ThreadPoolExecutor#4", "TCPTransport.<clinit>"));
    assertTrue(PoolNames.jmxMachinery("JMX server connection timeout 25", null));
    assertFalse(PoolNames.jmxMachinery("pool-1-thread", ""));
    assertFalse(PoolNames.jmxMachinery("http-nio-8080-exec", "Server.main(Server.java:42)"));
  }
}

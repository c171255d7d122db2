package dev.tine.agent.servers;

/**
 * A class whose initializer blocks for 30 ms: a virtual thread that initializes it cannot unmount
 * (class initialization pins its carrier), so the JDK records one {@code jdk.VirtualThreadPinned}
 * event. Never initialized as itself: {@link PinningCopies#pinFor30Ms} defines a fresh hidden copy
 * each time.
 */
final class Pinning {
  static {
    try {
      Thread.sleep(30);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Pinning() {}
}

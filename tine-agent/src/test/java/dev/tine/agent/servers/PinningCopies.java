package dev.tine.agent.servers;

/**
 * Fresh copies of {@link Pinning} (not initializing {@code Pinning} itself, which would pin too).
 */
final class PinningCopies {
  private PinningCopies() {}

  private static final byte[] BYTES;

  static {
    try (var in = PinningCopies.class.getResourceAsStream("Pinning.class")) {
      BYTES = in.readAllBytes();
    } catch (java.io.IOException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Initializes a fresh copy of {@link Pinning} on the calling thread (30 ms, pinned). */
  static void pinFor30Ms() throws IllegalAccessException {
    java.lang.invoke.MethodHandles.lookup().defineHiddenClass(BYTES, true);
  }
}

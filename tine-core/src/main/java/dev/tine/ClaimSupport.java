package dev.tine;

/**
 * Whether this JVM keeps the fence that claims rely on (see {@link LatentClaims}): asked once, when
 * the first worker is built.
 */
final class ClaimSupport {
  private ClaimSupport() {}

  /**
   * -XX:+UseSystemMemoryBarrier makes HotSpot drop the fence this protocol relies on (it uses an
   * OS-wide barrier from the VM's side instead); the claim is then not safe, so it is off.
   */
  static final boolean SUPPORTED = !systemMemoryBarrierMayBeOn();

  /**
   * Asks the running VM, not its command line: the flag also arrives through {@code -XX:Flags=}
   * files, {@code -XX:VMOptionsFile=}, {@code JAVA_TOOL_OPTIONS} and {@code JDK_JAVA_OPTIONS}, and
   * HotSpot turns it back off where the OS lacks the barrier. The safe direction when the VM cannot
   * answer (no diagnostic bean, a value we do not recognise) is "on": claims off, which costs only
   * the progress they add, whereas claiming without the fence could let the owner and a claimer
   * take the same fork. An option the VM does not know is an answer: a VM without it (older, or not
   * HotSpot) does not drop the fence for it, and a locked (experimental) one is hidden only while
   * it cannot be set.
   */
  static boolean systemMemoryBarrierMayBeOn() {
    try {
      com.sun.management.HotSpotDiagnosticMXBean vm =
          java.lang.management.ManagementFactory.getPlatformMXBean(
              com.sun.management.HotSpotDiagnosticMXBean.class);
      if (vm == null) {
        return true;
      }
      String value;
      try {
        value = vm.getVMOption("UseSystemMemoryBarrier").getValue();
      } catch (IllegalArgumentException noSuchOption) {
        return false;
      }
      return !"false".equals(value);
    } catch (RuntimeException | Error cannotTell) {
      return true;
    }
  }
}

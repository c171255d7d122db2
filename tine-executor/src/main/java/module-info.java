/**
 * Tine's measured executor: {@code MeasuredExecutor} (Little's-law figures, percentiles,
 * self-sizing) and {@code PoolSizeAdvisor}. Only {@code dev.tine.executor} is API.
 *
 * <p>HdrHistogram's jar declares no module name, so it is required by the name the JDK derives from
 * its file name, {@code HdrHistogram}: put {@code HdrHistogram-<version>.jar} on the module path
 * under that file name (Maven and Gradle do).
 */
module dev.tine.executor {
  requires transitive java.management; // MeasuredExecutor.mxBeanName() returns an ObjectName
  requires jdk.management; // com.sun.management.OperatingSystemMXBean: process CPU time
  requires HdrHistogram;
  requires dev.tine; // dev.tine.platform: MXBean and Flight Recorder registration, shared
  requires static jdk.jfr; // Flight Recorder events: used when present, never loaded before JFR

  // starts

  exports dev.tine.executor;
}

/** Tine: a work-stealing fork/join runtime. Only {@code dev.tine} is API. */
@SuppressWarnings("module") // dev.tine.executor is not built when tine-core is built alone
module dev.tine {
  requires transitive java.management; // WorkStealingPool.mxBeanName() returns an ObjectName
  requires jdk.management; // HotSpotDiagnosticMXBean: is -XX:+UseSystemMemoryBarrier on (claims)?
  requires static jdk.jfr; // Flight Recorder events: used when present, never loaded before JFR

  // starts

  exports dev.tine;
  // registration with the MBean server and Flight Recorder, shared with the measured executor
  exports dev.tine.platform to
      dev.tine.executor;
}

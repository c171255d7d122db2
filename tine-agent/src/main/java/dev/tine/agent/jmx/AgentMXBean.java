package dev.tine.agent.jmx;

/** The agent itself: {@code dev.tine.agent:type=Agent}. */
public interface AgentMXBean {
  String getVersion();

  /** {@return "premain" (-javaagent) or "attach" (loaded into the running JVM)} */
  String getStartedBy();

  long getStartedAtMillis();

  /** {@return ticks done (the figures are refreshed at each, about once a second)} */
  long getTicks();

  int getPools();

  /** {@return pools not measured because the agent's maxPools were measured already} */
  int getRefusedPools();

  int getRecorders();

  int getProcessors();

  /**
   * {@return failures inside the agent since it started (each one swallowed; the application went
   * on)}
   */
  long getFailures();

  String getLastFailure();

  String[] getInstrumentedClasses();

  /**
   * {@return Pepperdine's system view: Little's L summed over the pools, against the processors}
   */
  double getTotalLittlesL();

  /** {@return process CPU over the agent's last tick, 0..1 of all processors, or -1} */
  double getProcessCpuLoad();

  String getConfiguration();

  /** Undoes the instrumentation, unregisters the MXBeans and stops the agent's thread. */
  void stop();
}

package dev.tine.agent.jmx;

/** The agent itself: {@code dev.tine.agent:type=Agent}. */
public interface AgentMXBean {
  String getVersion();

  /** "premain" (-javaagent) or "attach" (loaded into the running JVM). */
  String getStartedBy();

  long getStartedAtMillis();

  /** Ticks done (the figures are refreshed at each, about once a second). */
  long getTicks();

  int getPools();

  /** Pools not measured because the agent's maxPools were measured already. */
  int getRefusedPools();

  int getRecorders();

  int getProcessors();

  /** Failures inside the agent since it started (each one swallowed; the application went on). */
  long getFailures();

  String getLastFailure();

  String[] getInstrumentedClasses();

  /** Seed 004's system view: Little's L summed over the pools, against the processors. */
  double getTotalLittlesL();

  /** Process CPU over the agent's last tick, 0..1 of all processors, or -1. */
  double getProcessCpuLoad();

  String getConfiguration();

  /** The sliding window the rates, times and percentiles cover (seconds). */
  double getWindowSeconds();

  /** How often the figures are refreshed (seconds). */
  double getTickSeconds();

  /** Pools measured at most (the agent's cap; {@link #getRefusedPools()} counts the others). */
  int getMaxPools();

  /** The Prometheus endpoint's URL, or "" when there is none. */
  String getPrometheusUrl();

  /** Undoes the instrumentation, unregisters the MXBeans and stops the agent's thread. */
  void stop();
}

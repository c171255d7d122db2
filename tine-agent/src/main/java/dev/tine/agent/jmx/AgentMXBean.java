package dev.tine.agent.jmx;

/** The agent itself: {@code dev.tine.agent:type=Agent}. */
public interface AgentMXBean {
  /** {@return the agent's version} */
  String getVersion();

  /** {@return "premain" (-javaagent) or "attach" (loaded into the running JVM)} */
  String getStartedBy();

  /** {@return when the agent started (epoch milliseconds)} */
  long getStartedAtMillis();

  /** {@return ticks done (the figures are refreshed at each, about once a second)} */
  long getTicks();

  /** {@return pools measured now} */
  int getPools();

  /** {@return pools not measured because the agent's maxPools were measured already} */
  int getRefusedPools();

  /** {@return per-thread recorders held now, over all pools} */
  int getRecorders();

  /** {@return the processors available to the JVM} */
  int getProcessors();

  /**
   * {@return failures inside the agent since it started (each one swallowed; the application went
   * on)}
   */
  long getFailures();

  /** {@return the last failure inside the agent, or null if none} */
  String getLastFailure();

  /** {@return the classes whose bytecode the agent changed} */
  String[] getInstrumentedClasses();

  /**
   * {@return Pepperdine's system view: Little's L summed over the pools, against the processors}
   */
  double getTotalLittlesL();

  /** {@return process CPU over the agent's last tick, 0..1 of all processors, or -1} */
  double getProcessCpuLoad();

  /** {@return the agent's settings (window, sampling, limits), as {@code AgentConfig[...]}} */
  String getConfiguration();

  /** {@return the sliding window the rates, times and percentiles cover (seconds)} */
  double getWindowSeconds();

  /** {@return how often the figures are refreshed (seconds)} */
  double getTickSeconds();

  /**
   * {@return pools measured at most (the agent's cap; {@link #getRefusedPools()} counts the
   * others)}
   */
  int getMaxPools();

  /** {@return the Prometheus endpoint's URL, or "" when there is none} */
  String getPrometheusUrl();

  /** Undoes the instrumentation, unregisters the MXBeans and stops the agent's thread. */
  void stop();
}

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

  /**
   * Sets one pool's effective size (what {@code tine top --resize} calls): the maximum of a pool
   * whose queue hands over or is bounded, the core size of one whose unbounded queue makes the
   * maximum meaningless (a fixed pool's core and maximum together), a server's own setting ({@code
   * maxThreads}). The first change records the pool's original sizes for {@link #restore}.
   *
   * @param pool the pool's name as {@code tine top} shows it, {@code #id}, or a unique prefix
   * @param size the new effective size, 1 to {@code ResizeResult.MAX_SIZE}
   * @param requestedBy who asks (shown in the log line, the JFR event and {@code LastResizedBy})
   * @param why the reason, in a few words
   * @return {@code dev.tine.agent.resize.ResizeResult}'s one-line encoding
   */
  String resize(String pool, int size, String requestedBy, String why);

  /**
   * As {@link #resize(String, int, String, String)}; with {@code force}, also a pool that another
   * tool resized (whose change the agent then takes as the new starting point) or a single-thread
   * pool.
   *
   * @param pool the pool's name, {@code #id}, or a unique prefix
   * @param size the new effective size
   * @param requestedBy who asks
   * @param why the reason
   * @param force whether to override the refusals that are judgements
   * @return {@code ResizeResult}'s one-line encoding
   */
  String resize(String pool, int size, String requestedBy, String why, boolean force);

  /**
   * Puts back the sizes a pool had before the agent first changed it.
   *
   * @param pool a pool as for {@link #resize}, or {@code "*"} / {@code "all"}: every pool the agent
   *     changed
   * @return one {@code ResizeResult} encoding per pool, one per line
   */
  String restore(String pool);

  /**
   * As {@link #restore(String)}; with {@code force}, also a pool another tool resized since.
   *
   * @param pool a pool, or {@code "*"} / {@code "all"}
   * @param force whether to put back a pool another tool resized since
   * @return one {@code ResizeResult} encoding per pool, one per line
   */
  String restore(String pool, boolean force);

  /**
   * As {@link #restore(String, boolean)}, saying who asks and why (the log line, the event).
   *
   * @param pool a pool, or {@code "*"} / {@code "all"}
   * @param force whether to put back a pool another tool resized since
   * @param requestedBy who asks
   * @param why the reason
   * @return one {@code ResizeResult} encoding per pool, one per line
   */
  String restore(String pool, boolean force, String requestedBy, String why);

  /** Undoes the instrumentation, unregisters the MXBeans and stops the agent's thread. */
  void stop();
}

package dev.tine.agent.state;

/** The kinds of pool the agent measures. */
public enum Kind {
  /**
   * {@code java.util.concurrent.ThreadPoolExecutor} and its subclasses (Executors' fixed, cached,
   * single).
   */
  THREAD_POOL("ThreadPoolExecutor"),
  /** {@code ScheduledThreadPoolExecutor}: wait counts from the time a task was due. */
  SCHEDULED("ScheduledThreadPoolExecutor"),
  /** {@code ForkJoinPool}, the common pool included: external submissions are timed. */
  FORK_JOIN("ForkJoinPool"),
  /** Tine's {@code dev.tine.WorkStealingPool}: arrivals counted, the rest from its public stats. */
  TINE("WorkStealingPool"),
  /**
   * A server's request pool of one of the {@link Families} (Tomcat, Jetty, Undertow, Netty): shown
   * with its family's label.
   */
  SERVER("server");

  public final String label;

  Kind(String label) {
    this.label = label;
  }
}

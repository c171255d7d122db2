package dev.tine.agent.state;

import dev.tine.agent.AgentConfig;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent that holds the measured state, as the state sees it: its options, its failure count,
 * its ticker. The agent's runtime implements it; the state and the instrumentation know no more of
 * the runtime than this.
 */
public interface Host {
  /** The agent's options. */
  AgentConfig config();

  /** Counts a failure of the agent's own (the application goes on). */
  void failed(Throwable t);

  /** A pool appeared: the ticker publishes it at its next tick. */
  void wakeTicker();

  /** Recorders held by pool threads, over all pools. */
  AtomicInteger recorders();

  /** Processors of this JVM. */
  int processors();
}

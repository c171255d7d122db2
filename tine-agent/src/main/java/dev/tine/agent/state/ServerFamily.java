package dev.tine.agent.state;

/**
 * What the measured state needs of a server's family (Tomcat, Jetty, Undertow, Netty, virtual
 * threads): its label, how to read its pool's sizes, and its advice in the server's terms. The
 * families themselves are instrumentation ({@code dev.tine.agent.instrument.Family}).
 */
public interface ServerFamily {
  /** Shown as the pool's kind. */
  String label();

  /** Reads the pool's sizes into {@code f}; returns whether it has terminated. */
  boolean readSizes(Object pool, PoolFigures f) throws Throwable;

  /**
   * The advisor's size in the server's terms: what to set the server's setting to for {@code
   * threads} request threads.
   */
  String advice(int threads, PoolFigures f);

  /** Figures beside λ, S, Wq the family shows even when no size is advised (or ""). */
  String extras();

  /**
   * How the pool's effective size is set at run time, or why it cannot be (see {@link
   * SizeControl}).
   */
  default Sizing sizing(Object pool) {
    return Sizing.refuse(label() + ": its size cannot be set at run time");
  }
}

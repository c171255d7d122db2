package dev.tine.agent.state;

/**
 * One pool's sizes as the agent changed and watched them: the originals (recorded at the agent's
 * first change, put back by a restore), the sizes it last saw or set, and whether someone else
 * changed them since. Written under this record's monitor (the resize and the ticker's watch; no
 * pool thread ever takes it); the volatile fields are read without it by the MXBean.
 */
public final class SizeRecord {
  // what the MXBean shows
  public volatile boolean resizable;
  public volatile String notResizableWhy = "";
  public volatile String setting = "";
  public volatile int currentSize = -1;
  public volatile int resizeCount;
  public volatile String lastResizedBy = "";
  public volatile long lastResizedAtMillis;
  public volatile long externalAtMillis;
  public volatile String external = "";

  // guarded by this
  /** The sizes before the agent's first change; -1 while it has not changed them. */
  public int originalCore = -1, originalMax = -1, originalSize = -1;

  /** The sizes the agent last saw or set; -1 before it first looked. */
  public int seenCore = -1, seenMax = -1;

  /** Whether the agent changed the sizes and has not put them back. */
  public boolean changed() {
    return originalSize >= 0;
  }

  /**
   * {@return the original effective size, or the current one while the agent has not changed it}
   */
  public int originalOrCurrent() {
    int o;
    synchronized (this) {
      o = originalSize;
    }
    return o >= 0 ? o : currentSize;
  }
}

package dev.tine.bench.programs;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fork/join tuning study's program 3 throttle: a fork happens only while a shared counter of
 * live forked tasks is below the multiplicity. The check and the increment are not atomic together,
 * as in the study (which avoided a lock on purpose), so the bound is approximate. Also counts the
 * forks made.
 */
public final class Throttle {
  final AtomicInteger live = new AtomicInteger(1);
  final AtomicLong forks = new AtomicLong();
  final int multiplicity;

  public Throttle(int multiplicity) {
    this.multiplicity = multiplicity;
  }

  /** The study's {@code if (taskCounter.get() < multiplicity) taskCounter.incrementAndGet()}. */
  boolean tryFork() {
    if (live.get() < multiplicity) {
      live.incrementAndGet();
      forks.incrementAndGet();
      return true;
    }
    return false;
  }

  /** A forked task (or the root) has finished. */
  void done() {
    live.decrementAndGet();
  }

  /** Forks made so far. */
  public long forks() {
    return forks.get();
  }
}

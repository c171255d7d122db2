package dev.tine.bench.run;

import dev.tine.PoolStats;

/** Tine's pool counters for one run, or summed over several. */
public record TineCounters(
    long forks,
    long steals,
    long localPops,
    long joins,
    long joinsHelped,
    long joinsBlocked,
    long tasksExecuted,
    long parks) {
  public static final TineCounters ZERO = new TineCounters(0, 0, 0, 0, 0, 0, 0, 0);

  public static TineCounters of(PoolStats s) {
    return new TineCounters(
        s.forks(),
        s.steals(),
        s.localPops(),
        s.joins(),
        s.joinsHelped(),
        s.joinsBlocked(),
        s.tasksExecuted(),
        s.parks());
  }

  public TineCounters plus(TineCounters o) {
    return new TineCounters(
        forks + o.forks,
        steals + o.steals,
        localPops + o.localPops,
        joins + o.joins,
        joinsHelped + o.joinsHelped,
        joinsBlocked + o.joinsBlocked,
        tasksExecuted + o.tasksExecuted,
        parks + o.parks);
  }

  /** Each count divided by {@code runs} (integer division, as the tables print them). */
  public TineCounters perRun(int runs) {
    int n = Math.max(1, runs);
    return new TineCounters(
        forks / n,
        steals / n,
        localPops / n,
        joins / n,
        joinsHelped / n,
        joinsBlocked / n,
        tasksExecuted / n,
        parks / n);
  }
}

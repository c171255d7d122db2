package dev.tine.bench.run;

import dev.tine.bench.Program;
import dev.tine.bench.Workload;
import dev.tine.bench.stats.Bootstrap;
import dev.tine.bench.stats.Ratio;
import java.util.Arrays;

/**
 * One (program, engine, threads) combination and what its timed runs measured. Times are kept by
 * round (NaN for a round whose run failed), so two cells' times in the same round pair up.
 */
public final class Cell {
  public final Program program;
  public final Workload workload;
  public final Engine engine;
  public final int threads;
  private final double[] roundMs;
  private boolean verified = true;
  private String failure;
  private GcSnapshot gc = new GcSnapshot(0, 0, 0, 0);
  private TineCounters counters = TineCounters.ZERO;
  private long jdkSteals;

  public Cell(Program program, Workload workload, Engine engine, int threads, int rounds) {
    this.program = program;
    this.workload = workload;
    this.engine = engine;
    this.threads = threads;
    this.roundMs = new double[rounds];
    Arrays.fill(roundMs, Double.NaN);
  }

  void fail(String why) {
    verified = false;
    failure = why;
  }

  void addRun(int round, long nanos, GcSnapshot g, TineCounters c, long steals) {
    roundMs[round] = nanos / 1e6;
    gc = gc.plus(g);
    counters = counters.plus(c);
    jdkSteals += steals;
  }

  /** Timed runs that finished. */
  public int runs() {
    return known().length;
  }

  /** The timed runs' times in milliseconds by round; NaN for a round whose run failed. */
  public double[] timesMs() {
    return roundMs.clone();
  }

  private double[] known() {
    return Arrays.stream(roundMs).filter(Double::isFinite).sorted().toArray();
  }

  public String failure() {
    return failure;
  }

  /** GC counts and times summed over the timed runs. */
  public GcSnapshot gc() {
    return gc;
  }

  /** Tine's counters summed over the timed runs (zero for other engines). */
  public TineCounters counters() {
    return counters;
  }

  /** The JDK pool's steal count summed over the timed runs (zero for other engines). */
  public long jdkSteals() {
    return jdkSteals;
  }

  public double medianMillis() {
    double[] a = known();
    if (a.length == 0) return Double.NaN;
    return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2.0;
  }

  public double minMillis() {
    double[] a = known();
    return a.length == 0 ? Double.NaN : a[0];
  }

  public double maxMillis() {
    double[] a = known();
    return a.length == 0 ? Double.NaN : a[a.length - 1];
  }

  public boolean verified() {
    return verified;
  }

  /**
   * This cell's time over {@code other}'s time in the same round: the median over rounds, with its
   * 95% bootstrap interval ({@link Bootstrap#pairedRatio}).
   */
  public Ratio ratioTo(Cell other) {
    return Bootstrap.pairedRatio(roundMs, other.roundMs);
  }

  public String label() {
    return engine == Engine.SEQ ? "seq" : engine.id + " p=" + threads;
  }
}

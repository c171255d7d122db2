package dev.tine.bench.run;

import dev.tine.bench.Program;
import dev.tine.bench.Workload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** One (program, engine, threads) combination and what its timed runs measured. */
public final class Cell {
  public final Program program;
  public final Workload workload;
  public final Engine engine;
  public final int threads;
  private final List<Long> nanos = new ArrayList<>();
  private boolean verified = true;
  private String failure;
  private GcSnapshot gc = new GcSnapshot(0, 0, 0, 0);
  private TineCounters counters = TineCounters.ZERO;
  private long jdkSteals;

  public Cell(Program program, Workload workload, Engine engine, int threads) {
    this.program = program;
    this.workload = workload;
    this.engine = engine;
    this.threads = threads;
  }

  void fail(String why) {
    verified = false;
    failure = why;
  }

  void addRun(long dt, GcSnapshot g, TineCounters c, long steals) {
    nanos.add(dt);
    gc = gc.plus(g);
    counters = counters.plus(c);
    jdkSteals += steals;
  }

  public int runs() {
    return nanos.size();
  }

  /** The timed runs' times in nanoseconds, in round order. */
  public List<Long> nanos() {
    return Collections.unmodifiableList(nanos);
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

  private long[] sorted() {
    long[] a = nanos.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(a);
    return a;
  }

  public double medianMillis() {
    long[] a = sorted();
    if (a.length == 0) return Double.NaN;
    return (a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2.0) / 1e6;
  }

  public double minMillis() {
    long[] a = sorted();
    return a.length == 0 ? Double.NaN : a[0] / 1e6;
  }

  public double maxMillis() {
    long[] a = sorted();
    return a.length == 0 ? Double.NaN : a[a.length - 1] / 1e6;
  }

  public boolean verified() {
    return verified;
  }

  /** Median over rounds of this cell's time divided by {@code other}'s time in the same round. */
  public double pairedRatio(Cell other) {
    int n = Math.min(nanos.size(), other.nanos.size());
    if (n == 0) return Double.NaN;
    double[] r = new double[n];
    for (int i = 0; i < n; i++) r[i] = (double) nanos.get(i) / other.nanos.get(i);
    Arrays.sort(r);
    return n % 2 == 1 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
  }

  public String label() {
    return engine == Engine.SEQ ? "seq" : engine.id + " p=" + threads;
  }
}

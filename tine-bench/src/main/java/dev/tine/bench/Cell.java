package dev.tine.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** One (program, runtime, threads) combination and what its timed runs measured. */
public final class Cell {
  public final Program program;
  public final Workload workload;
  public final Runtime runtime;
  public final int threads;
  final List<Long> nanos = new ArrayList<>();
  boolean verified = true;
  String failure;
  GcSnapshot gc = new GcSnapshot(0, 0, 0, 0);
  /** Tine counters summed over the timed runs (forks, steals, ...), or JDK steals. */
  long forks, steals, localPops, joins, joinsHelped, joinsBlocked, executed, parks;
  long jdkSteals;

  Cell(Program program, Workload workload, Runtime runtime, int threads) {
    this.program = program;
    this.workload = workload;
    this.runtime = runtime;
    this.threads = threads;
  }

  public int runs() {
    return nanos.size();
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
    return runtime == Runtime.SEQ ? "seq" : runtime.id + " p=" + threads;
  }
}

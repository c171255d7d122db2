package dev.tine.spark;

import dev.tine.spark.programs.Fib;
import dev.tine.spark.programs.Uts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The paper model of docs/design/distributed.md: what the driver's cut and Spark's dynamic
 * scheduling would give on E executors of c cores, fed by figures measured here.
 *
 * <p>For each cluster and pieces-per-core k it makes the real cut (the same {@link Cut} a job
 * makes) of the real tree and takes each piece's exact size (UTS: its node count, counted here;
 * fib: its number of calls; uts-est: UTS cut by Knuth's size estimate), scales the sizes so that
 * the job is {@code --core-hours} of one core's work, and simulates the job: a free task slot takes
 * the next piece in shipping order after {@code --task-overhead} seconds; the pieces running on one
 * executor share its c cores (Tine's pool: a piece left alone at the end gets every idle core of
 * its executor), or, to compare, run on one core each (a plain Spark task). It prints the
 * makespan's efficiency (work / (cores × makespan)) with and without the start-up cost.
 *
 * <pre>
 * --startup S          seconds from submit to executors up (measured: local-cluster start-up)
 * --task-overhead T    seconds a task slot is lost per piece (measured: a warm small job)
 * --core-hours H       the job's work, in core-hours (default 16: an hour on one 16-core box)
 * --uts-depth D        the tree whose shape is cut (default 13, seed 4: 111,451,846 nodes)
 * --uts-probes P       paths per part of the estimated cut (uts-est; default 1024)
 * </pre>
 */
public final class ClusterModel {
  private ClusterModel() {}

  /**
   * Cuts UTS (level by level and by estimated size) and fib for 2, 10 and 100 executors of 16 cores
   * at 1, 4 and 16 pieces per core, simulates each job and prints one line per cut.
   *
   * @param args the options listed above (and {@code --seed S}, the UTS seed, default 4), each
   *     followed by its value
   * @throws IllegalArgumentException for an unknown option
   */
  public static void main(String[] args) {
    double startup = 20, overhead = 0.01, coreHours = 16;
    int utsDepth = 13;
    long seed = 4;
    int probes = 1024;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--startup" -> startup = Double.parseDouble(args[i + 1]);
        case "--task-overhead" -> overhead = Double.parseDouble(args[i + 1]);
        case "--core-hours" -> coreHours = Double.parseDouble(args[i + 1]);
        case "--uts-depth" -> utsDepth = Integer.parseInt(args[i + 1]);
        case "--seed" -> seed = Long.parseLong(args[i + 1]);
        case "--uts-probes" -> probes = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    double work = coreHours * 3600;
    System.out.printf(
        "model: job of %.1f core-hours, start-up %.1f s, %.3f s per piece lost per slot%n",
        coreHours, startup, overhead);
    System.out.printf(
        "%-8s %-9s %3s %7s %5s %9s %9s %9s %9s %9s%n",
        "program",
        "cluster",
        "k",
        "pieces",
        "depth",
        "max/mean",
        "job-eff",
        "1core-eff",
        "with-start",
        "makespan");
    Uts uts = new Uts(4, utsDepth, 8);
    Uts.Node root = Uts.root(seed);
    Map<Uts.Node, Long> sizes = new HashMap<>(); // subtree sizes of the top levels, counted once
    size(uts, root, sizes);
    Uts estimated = uts.withEstimates(probes);
    for (int executors : new int[] {2, 10, 100}) {
      int cores = 16;
      for (int k : new int[] {1, 4, 16}) {
        int target = k * executors * cores;
        Cut<Uts.Node> cu = Cut.expand(uts, root, target, 64, true);
        double[] su = new double[cu.pieces.size()];
        for (int i = 0; i < su.length; i++) {
          su[i] = size(uts, cu.pieces.get(i).problem, sizes);
        }
        row("uts", executors, cores, k, cu.depth, su, work, startup, overhead);
        Cut<Uts.Node> ce = Cut.expand(estimated, root, target, 64, true);
        double[] se = new double[ce.pieces.size()];
        for (int i = 0; i < se.length; i++) {
          se[i] = size(uts, ce.pieces.get(i).problem, sizes);
        }
        row("uts-est", executors, cores, k, ce.depth, se, work, startup, overhead);
        Cut<Integer> cf = Cut.expand(new Fib(), 60, target, 64, true);
        double[] sf = new double[cf.pieces.size()];
        for (int i = 0; i < sf.length; i++) {
          sf[i] = 2.0 * Fib.exact(cf.pieces.get(i).problem + 1) - 1; // calls of fib(m)
        }
        row("fib", executors, cores, k, cf.depth, sf, work, startup, overhead);
      }
    }
  }

  /** The node count of n's subtree, remembered for nodes of the top 9 levels (cuts stay there). */
  private static long size(Uts uts, Uts.Node n, Map<Uts.Node, Long> sizes) {
    Long known = sizes.get(n);
    if (known != null) return known;
    long c;
    if (n.level() < 9) {
      c = 1;
      for (Uts.Node child : uts.split(n)) c += size(uts, child, sizes);
      sizes.put(n, c);
    } else {
      c = uts.countSequentially(n);
    }
    return c;
  }

  private static void row(
      String program,
      int executors,
      int cores,
      int k,
      int depth,
      double[] sizes,
      double work,
      double startup,
      double overhead) {
    double total = 0, max = 0;
    for (double s : sizes) {
      total += s;
      max = Math.max(max, s);
    }
    double[] t = new double[sizes.length];
    for (int i = 0; i < t.length; i++) t[i] = sizes[i] / total * work; // core-seconds
    double shared = makespan(t, executors, cores, overhead, true);
    double alone = makespan(t, executors, cores, overhead, false);
    int slots = executors * cores;
    System.out.printf(
        "%-8s %3dx%-5d %3d %7d %5d %9.1f %8.0f%% %8.0f%% %8.0f%% %8.0fs%n",
        program,
        executors,
        cores,
        k,
        sizes.length,
        depth,
        max / (total / sizes.length),
        100 * work / (slots * shared),
        100 * work / (slots * alone),
        100 * work / (slots * (shared + startup)),
        shared);
  }

  /**
   * Simulates the job: pieces handed out in order to free slots (Spark's dynamic scheduling); a
   * piece of t core-seconds runs at the rate of its share of its executor's cores (shared pool) or
   * at one core (alone). Returns the time the last piece ends.
   */
  static double makespan(
      double[] pieces, int executors, int cores, double overhead, boolean sharedPool) {
    // per executor: the remaining work of its running pieces; time advances event to event
    List<List<double[]>> running = new ArrayList<>();
    for (int e = 0; e < executors; e++) running.add(new ArrayList<>());
    int next = 0;
    double now = 0;
    // a slot that finished a piece is free again after the overhead: (time, executor, slot).
    // Slots free at the same time are taken round-robin over the executors, as Spark's
    // scheduler hands out offers (one task per executor per round), not executor by executor.
    PriorityQueue<double[]> freeing =
        new PriorityQueue<>((a, b) ->
            a[0] != b[0]
                ? Double.compare(a[0], b[0])
                : a[2] != b[2] ? Double.compare(a[2], b[2]) : Double.compare(a[1], b[1]));
    for (int e = 0; e < executors; e++) {
      for (int c = 0; c < cores; c++) freeing.add(new double[] {overhead, e, c});
    }
    while (true) {
      // earliest piece end at current rates
      double soonest = Double.POSITIVE_INFINITY;
      for (int e = 0; e < executors; e++) {
        List<double[]> r = running.get(e);
        if (r.isEmpty()) continue;
        double rate = sharedPool ? (double) cores / r.size() : 1;
        for (double[] p : r) soonest = Math.min(soonest, now + p[0] / rate);
      }
      double slot = freeing.isEmpty() ? Double.POSITIVE_INFINITY : freeing.peek()[0];
      double until = Math.min(soonest, next < pieces.length ? slot : Double.POSITIVE_INFINITY);
      if (until == Double.POSITIVE_INFINITY) {
        return now;
      }
      // advance
      double dt = until - now;
      for (int e = 0; e < executors; e++) {
        List<double[]> r = running.get(e);
        if (r.isEmpty()) continue;
        double rate = sharedPool ? (double) cores / r.size() : 1;
        for (double[] p : r) p[0] -= dt * rate;
        for (int i = r.size() - 1; i >= 0; i--) {
          if (r.get(i)[0] <= 1e-9) {
            double[] done = r.remove(i);
            freeing.add(new double[] {until + overhead, e, done[1]});
          }
        }
      }
      now = until;
      while (next < pieces.length && !freeing.isEmpty() && freeing.peek()[0] <= now + 1e-12) {
        double[] free = freeing.poll();
        running.get((int) free[1]).add(new double[] {pieces[next++], free[2]});
      }
      if (next >= pieces.length && running.stream().allMatch(List::isEmpty)) {
        return now;
      }
    }
  }
}

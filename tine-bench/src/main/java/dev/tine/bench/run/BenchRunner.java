package dev.tine.bench.run;

import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;

/**
 * Runs programs on each engine at several thread counts in one JVM: warm-up rounds, then timed
 * rounds in which every cell runs once, in an order rotated each round (so slow drift of a noisy
 * box spreads evenly), with the two-thread ceiling measured once per round too.
 */
public final class BenchRunner {
  public record Options(
      List<Program> programs,
      List<Engine> engines,
      List<Integer> threads,
      Size size,
      Map<String, Map<String, String>> overrides,
      int warmup,
      int repeat,
      boolean tineStatsOff,
      PrintStream progress) {}

  private final Options o;
  private final List<Cell> cells = new ArrayList<>();
  private final Map<Integer, List<Double>> ceilings = new TreeMap<>();
  private final Map<Engine, Map<Integer, WorkStealingPool>> tinePools = new EnumMap<>(Engine.class);
  private final Map<Integer, ForkJoinPool> jdkPools = new TreeMap<>();

  public BenchRunner(Options o) {
    this.o = o;
  }

  public BenchResult run() throws InterruptedException {
    for (Program p : o.programs) {
      Workload w = p.workload(o.size, o.overrides.getOrDefault(p.name(), Map.of()));
      if (o.engines.contains(Engine.SEQ)) {
        cells.add(new Cell(p, w, Engine.SEQ, 1, o.repeat));
      }
      for (int t : o.threads) {
        for (Engine e : o.engines) {
          if (e != Engine.SEQ && (e != Engine.JDK_BUILTIN || w.jdkBuiltinForm() != null)) {
            cells.add(new Cell(p, w, e, t, o.repeat));
          }
        }
      }
    }
    for (int t : o.threads) {
      for (Engine e : o.engines) {
        if (e.isTine()) tinePools.computeIfAbsent(e, k -> new TreeMap<>()).put(t, tinePool(e, t));
      }
      if (o.engines.contains(Engine.JDK) || o.engines.contains(Engine.JDK_BUILTIN)) {
        jdkPools.put(t, new ForkJoinPool(t));
      }
    }
    Ceiling ceiling = Ceiling.calibrate(150);
    Progress progress = new Progress(o.progress, (o.warmup + o.repeat) * cells.size());
    try {
      for (int round = 0; round < o.warmup + o.repeat; round++) {
        boolean timed = round >= o.warmup;
        for (int k = 0; k < cells.size(); k++) {
          Cell c = cells.get((k + round) % cells.size());
          progress.step(c, timed ? "round " + (round - o.warmup + 1) + "/" + o.repeat : "warm-up");
          runOnce(c, timed ? round - o.warmup : -1);
        }
        if (timed) {
          for (int t : ceilingThreads()) {
            ceilings.computeIfAbsent(t, k -> new ArrayList<>()).add(ceiling.measureOnce(t));
          }
        }
        progress.roundDone(round, o.warmup, o.repeat, o.programs.size());
      }
    } finally {
      progress.done();
      tinePools.values().forEach(m -> m.values().forEach(WorkStealingPool::close));
      jdkPools.values().forEach(ForkJoinPool::shutdownNow);
    }
    Map<Integer, List<Double>> cs = new TreeMap<>();
    ceilings.forEach((t, l) -> cs.put(t, List.copyOf(l)));
    return new BenchResult(List.copyOf(cells), cs, o.size, Machine.current());
  }

  /** 2 always (the two-thread ceiling every run reports), and every larger thread count run. */
  private List<Integer> ceilingThreads() {
    java.util.TreeSet<Integer> ts = new java.util.TreeSet<>(List.of(2));
    for (int t : o.threads) if (t > 2) ts.add(t);
    return List.copyOf(ts);
  }

  private WorkStealingPool tinePool(Engine e, int t) {
    var b = WorkStealingPool.builder().parallelism(t).name("bench-" + e.id + "-" + t);
    return switch (e) {
      case TINE -> b.recordStats(!o.tineStatsOff).threadContentionMonitoring(true).build();
      case TINE_NOSTATS -> b.recordStats(false).build();
      case TINE_EAGER -> b.eagerForks(true).build();
      default -> throw new IllegalArgumentException(e.id);
    };
  }

  /** One run of a cell; {@code round} is the timed round, or -1 in warm-up. */
  private void runOnce(Cell c, int round) {
    c.workload.prepare();
    WorkStealingPool tp = c.engine.isTine() ? tinePools.get(c.engine).get(c.threads) : null;
    ForkJoinPool jp =
        c.engine == Engine.JDK || c.engine == Engine.JDK_BUILTIN ? jdkPools.get(c.threads) : null;
    if (tp != null) tp.resetStats();
    long jdkStealsBefore = jp != null ? jp.getStealCount() : 0;
    GcSnapshot g0 = GcSnapshot.now();
    long t0 = System.nanoTime();
    Object result;
    try {
      result =
          switch (c.engine) {
            case SEQ -> c.workload.sequential();
            case TINE, TINE_NOSTATS, TINE_EAGER -> c.workload.tine(tp);
            case JDK -> c.workload.jdk(jp);
            case JDK_BUILTIN -> jp.submit(c.workload::jdkBuiltin).get();
          };
    } catch (ExecutionException e) {
      c.fail(e.getCause().toString());
      return;
    } catch (RuntimeException | Error | InterruptedException e) {
      c.fail(e.toString());
      return;
    }
    long dt = System.nanoTime() - t0;
    GcSnapshot g = GcSnapshot.now().minus(g0);
    if (!c.workload.verify(result)) {
      c.fail("wrong result: " + abbreviate(result));
    }
    if (round < 0) return;
    TineCounters counters =
        tp != null && c.engine.countsTasks() ? TineCounters.of(tp.stats()) : TineCounters.ZERO;
    c.addRun(round, dt, g, counters, jp != null ? jp.getStealCount() - jdkStealsBefore : 0);
  }

  private static String abbreviate(Object r) {
    String s = String.valueOf(r);
    return s.length() > 60 ? s.substring(0, 60) + "..." : s;
  }
}

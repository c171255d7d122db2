package dev.tine.agent.tune;

import dev.tine.agent.resize.ResizeResult;
import dev.tine.agent.state.PoolNames;
import dev.tine.agent.top.AttachClient;
import dev.tine.agent.top.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tine tune <pid> [POOL…] --min N --max M}: resizes pools of a running JVM from the agent's
 * own windows, with guard rails ({@link Tuner}); a dry run until {@code --apply}.
 */
@Command(
    name = "tune",
    mixinStandardHelpOptions = true,
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:done (--count reached, interrupted, or the target exited)",
      "1:lost the connection to the target",
      "2:bad input, e.g. --min above --max (one line on stderr; nothing changed)",
      "3:no process with that pid",
      "4:the process belongs to another user",
      "5:the process is not a Java virtual machine",
      "8:a POOL named matches no pool of the agent's (or several)",
      "10:no agent runs in the target (tune loads none; nothing changed)"
    },
    description = {
      "Resizes the thread pools of a running JVM from the agent's own figures",
      "(Pepperdine's third step: measure, compute, set), with guard rails.",
      "",
      "Per pool and per settled window of the agent's (a whole window after the",
      "last change), it asks the advisor of 'tine advise' for the size that keeps",
      "the p90 queue wait ≤ the target (max(1 ms, S) unless --target-wait-ms);",
      "a server's pool is sized from its requests, not its pool tasks. It changes",
      "a size only when two settled windows in a row agree, at most once a window;",
      "never above --max, never below --min or the threads busy now, never beyond",
      "what the CPUs serve for CPU-bound work (Goetz's N from the pool's own CPU",
      "time); it grows only where the wait target was missed and shrinks only by",
      "more than 20%% where it was met; it reverses a change only four settled",
      "windows after it. After each change it checks the two settled windows that",
      "follow: if throughput fell or the p99 wait rose beyond the windows' own",
      "noise, it puts the original size back and stops tuning that pool; a growth",
      "that helped neither is stepped back. A pool someone else resizes meanwhile",
      "is left alone, with one line.",
      "",
      "Dry run until --apply: it prints what it would do. On exit (Ctrl-C, --count)",
      "with --apply it keeps the sizes that passed their check, puts back the size",
      "before a change still being checked, or with --restore-on-exit puts back",
      "every original size. It never loads the agent: start the target with",
      "-javaagent, or run 'tine top' on it first.",
      ""
    })
public final class TuneCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "PID", description = "Process id of the JVM to tune.")
  long pid;

  @Parameters(
      index = "1..*",
      paramLabel = "POOL",
      description =
          "Pools to tune: a name as top shows it, a unique prefix, or #id (default: all).")
  List<String> pools = new ArrayList<>();

  @Option(names = "--min", paramLabel = "N", description = "Smallest size to set (default: 1).")
  int min = 1;

  @Option(names = "--max", paramLabel = "M", required = true, description = "Largest size to set.")
  int max;

  @Option(
      names = "--target-wait-ms",
      paramLabel = "X",
      description = "Bound on the p90 queue wait, ms (default: max(1 ms, S), the advisor's).")
  double targetWaitMs = Double.NaN;

  @Option(names = "--apply", description = "Resize (without it: print what it would do).")
  boolean apply;

  @Option(
      names = "--restore-on-exit",
      description = "On exit, put back every pool's original size (default: keep checked sizes).")
  boolean restoreOnExit;

  @Option(
      names = "--interval",
      paramLabel = "SECONDS",
      description = "Seconds between readings of the agent (default: 1).")
  double interval = 1;

  @Option(
      names = "--count",
      paramLabel = "N",
      description = "Stop after N readings (default: until interrupted).")
  int count = -1;

  @Option(names = "--json", description = "One JSON object per decision (one line each).")
  boolean json;

  @Option(
      names = "--verbose",
      description = "Also a line for each settled window that changed nothing, and why.")
  boolean verbose;

  @Option(names = "--all", description = "Also tune the RMI/JMX pools tune's own connection uses.")
  boolean all;

  @Option(
      names = "--agent-jar",
      paramLabel = "FILE",
      hidden = true,
      description = "Unused: tune never loads the agent.")
  Path agentJar;

  private final Object lock = new Object();
  private Tuner tuner;
  private AgentActuator actuator;
  private final Map<String, PoolWindow> lastWindow = new LinkedHashMap<>();
  private boolean finished;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut(), err = spec.commandLine().getErr();
    Tuner.Options options;
    try {
      String bad = ResizeResult.checkSize(max);
      if (bad != null) throw new IllegalArgumentException("--max: " + bad);
      options = new Tuner.Options(min, max, targetWaitMs, apply);
      if (!(interval > 0)) throw new IllegalArgumentException("--interval must be positive");
      if (restoreOnExit && !apply)
        throw new IllegalArgumentException("--restore-on-exit goes with --apply");
    } catch (IllegalArgumentException e) {
      err.println("tine tune: " + e.getMessage() + " (nothing changed)");
      return 2;
    }
    AttachClient client;
    try {
      client =
          AttachClient.attach(
              pid, agentJar != null ? agentJar : Path.of("."), null, AttachClient.Mode.EXISTING);
    } catch (AttachClient.AttachProblem e) {
      err.println("tine tune: " + e.getMessage());
      return e.exitCode;
    }
    try (client) {
      Map<String, Object> agent = client.agent();
      int cores = (int) PoolWindow.num(agent.get("Processors"));
      double tick = PoolWindow.num(agent.get("TickSeconds"));
      double window = PoolWindow.num(agent.get("WindowSeconds"));
      List<Map<String, Object>> first = chosen(client.pools());
      // A pool the agent has not seen yet (a JVM just started; attached, a pool appears at its
      // next task) may come within a window: wait that long before saying it does not exist.
      long seenBy =
          System.nanoTime()
              + (long)
                  (((Double.isNaN(window) ? 5 : window) + 3 * (Double.isNaN(tick) ? 1 : tick))
                      * 1e9);
      while (first == null
          && unknownPool.startsWith("no pool named")
          && System.nanoTime() < seenBy) {
        Thread.sleep(200);
        first = chosen(client.pools());
      }
      if (first == null) {
        err.println("tine tune: " + unknownPool + " (nothing changed)");
        return ResizeResult.NO_SUCH_POOL;
      }
      tuner = new Tuner(options, Math.round((Double.isNaN(tick) ? 1 : tick) * 1000));
      tuner.explain(verbose);
      actuator = new AgentActuator(client, System.currentTimeMillis());
      err.println(
          String.format(
              Locale.ROOT,
              "tine tune: %s pid %d: %s; sizes %d..%d; target p90 wait %s; the agent's window %.0f s",
              apply ? "tuning" : "dry run (nothing changes until --apply) of",
              pid,
              names(first),
              min,
              max,
              Double.isNaN(targetWaitMs) ? "≤ max(1 ms, S)" : "≤ " + targetWaitMs + " ms",
              window));
      err.flush();
      Thread hook = new Thread(() -> finish(out, err), "tine-tune-exit");
      Runtime.getRuntime().addShutdownHook(hook);
      int readings = 0;
      try {
        while (count < 0 || readings < count) {
          List<Map<String, Object>> pools = chosen(client.pools());
          double targetLoad = PoolWindow.num(client.agent().get("ProcessCpuLoad"));
          synchronized (lock) {
            if (finished) break;
            tuner.otherCpuCores(others.add(machineLoad(), targetLoad, cores, window));
            tuner.loadAverage(
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                    .getSystemLoadAverage());
            for (Map<String, Object> p : pools) {
              PoolWindow w = PoolWindow.fromAttributes(p, cores);
              actuator.read(w.id(), p);
              lastWindow.put(w.pool(), w);
              for (Decision d : tuner.observe(w, actuator, System.currentTimeMillis()))
                print(out, d);
            }
          }
          readings++;
          if (count >= 0 && readings >= count) break;
          Thread.sleep((long) (interval * 1000));
          if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            err.println("tine tune: pid " + pid + " has exited");
            return 0;
          }
        }
        finish(out, err);
        return 0;
      } catch (InterruptedException e) {
        finish(out, err); // stopped from within (a test, an embedding): as on Ctrl-C
        return 0;
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // shutting down: the hook runs
        }
      }
    } catch (IOException | UncheckedIOException e) {
      if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        err.println("tine tune: pid " + pid + " has exited");
        return 0;
      }
      err.println("tine tune: lost the connection to pid " + pid + ": " + e.getMessage());
      return 1;
    }
  }

  private String unknownPool;

  private final OtherLoad others = new OtherLoad();

  /**
   * The cores other processes than the target kept busy, averaged over the agent's window: the
   * machine's CPU load (read here: tune runs on the target's machine, attach is local) less the
   * target's.
   */
  static final class OtherLoad {
    private final java.util.ArrayDeque<double[]> samples = new java.util.ArrayDeque<>();

    double add(double machine, double target, int cores, double windowSeconds) {
      long now = System.nanoTime();
      if (machine >= 0 && target >= 0)
        samples.addLast(new double[] {now, Math.max(0, machine - target) * cores});
      while (!samples.isEmpty() && now - samples.peekFirst()[0] > windowSeconds * 1e9)
        samples.removeFirst();
      if (samples.isEmpty()) return Double.NaN;
      double sum = 0;
      for (double[] s : samples) sum += s[1];
      return sum / samples.size();
    }
  }

  private static double machineLoad() {
    var os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean o ? o.getCpuLoad() : -1;
  }

  /**
   * The pools asked for (all visible ones by default), or null if a name matches none (or a prefix
   * several): {@link #unknownPool} says which.
   */
  private List<Map<String, Object>> chosen(List<Map<String, Object>> pools) {
    List<Map<String, Object>> visible = new ArrayList<>();
    for (Map<String, Object> p : pools) {
      if (!all
          && PoolNames.jmxMachinery(
              String.valueOf(p.get("Name")), String.valueOf(p.get("CreatedAt")))) continue;
      visible.add(p);
    }
    if (this.pools.isEmpty()) return visible;
    List<Map<String, Object>> out = new ArrayList<>();
    for (String q : this.pools) {
      List<Map<String, Object>> exact = new ArrayList<>(), prefix = new ArrayList<>();
      for (Map<String, Object> p : visible) {
        String n = String.valueOf(p.get("Name"));
        if (n.equals(q) || q.equals("#" + p.get("Id"))) exact.add(p);
        else if (n.startsWith(q)) prefix.add(p);
      }
      List<Map<String, Object>> hits = exact.isEmpty() ? prefix : exact;
      if (hits.size() != 1) {
        if (tuner != null) continue; // gone since tune began: nothing to do for it
        StringBuilder names = new StringBuilder();
        for (Map<String, Object> p : visible)
          names.append(names.isEmpty() ? "" : ", ").append(p.get("Name"));
        unknownPool =
            (hits.isEmpty() ? "no pool named '" + q + "'" : "'" + q + "' names several pools")
                + " (pools: "
                + names
                + ")";
        return null;
      }
      if (!out.contains(hits.get(0))) out.add(hits.get(0));
    }
    return out;
  }

  private static String names(List<Map<String, Object>> pools) {
    if (pools.isEmpty()) return "no pools yet";
    StringBuilder sb = new StringBuilder();
    for (Map<String, Object> p : pools)
      sb.append(sb.isEmpty() ? "" : ", ")
          .append(p.get("Name"))
          .append(" (")
          .append(p.get("Kind"))
          .append(")");
    return sb.toString();
  }

  private void print(PrintWriter out, Decision d) {
    out.println(json ? Json.write(d.toMap()) : d.line());
    out.flush();
  }

  /**
   * On exit with {@code --apply}: keeps the sizes that passed their check, puts back the size
   * before a change still on probation (the data has not yet supported it), or with {@code
   * --restore-on-exit} every original size. Runs once (the loop's end, or the shutdown hook).
   */
  private void finish(PrintWriter out, PrintWriter err) {
    synchronized (lock) {
      if (finished || tuner == null) return;
      finished = true;
      if (!apply) return;
      for (var e : tuner.changed().entrySet()) {
        String pool = e.getKey();
        int original = e.getValue()[0], passed = e.getValue()[1], current = e.getValue()[2];
        PoolWindow w = lastWindow.get(pool);
        if (w == null) continue;
        long now = System.currentTimeMillis();
        try {
          if (restoreOnExit || passed == original) {
            Actuator.Outcome o =
                actuator.restore(
                    w, "tine tune exits" + (restoreOnExit ? " (--restore-on-exit)" : ""));
            print(
                out,
                new Decision(
                    now,
                    pool,
                    o.done() ? Decision.Action.RESTORED : Decision.Action.REFUSED,
                    current,
                    o.done() ? original : -1,
                    (restoreOnExit
                            ? "on exit, as --restore-on-exit asks"
                            : "on exit: no change passed its check")
                        + (o.done() ? "" : "; " + o.message())));
          } else if (passed != current) {
            Actuator.Outcome o =
                actuator.resize(w, passed, "tine tune exits: the last change was not yet checked");
            print(
                out,
                new Decision(
                    now,
                    pool,
                    Decision.Action.STEPPED_BACK,
                    current,
                    passed,
                    "on exit: the last change was still being checked; the last checked size is back"
                        + (o.done() ? "" : "; " + o.message())));
          } else {
            print(
                out,
                new Decision(
                    now,
                    pool,
                    Decision.Action.KEPT,
                    original,
                    current,
                    "on exit: the size passed its check and stays (tine top --restore "
                        + pool
                        + " puts back "
                        + original
                        + ")"));
          }
        } catch (RuntimeException ex) {
          err.println("tine tune: on exit, " + pool + ": " + ex.getMessage());
        }
      }
    }
  }
}

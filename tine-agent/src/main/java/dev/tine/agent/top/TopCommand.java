package dev.tine.agent.top;

import dev.tine.agent.resize.ResizeResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tine top <pid>}: loads the agent into a running JVM and shows its thread pools, refreshed
 * every second, as top does.
 */
@Command(
    name = "top",
    mixinStandardHelpOptions = true,
    description = {
      "Shows the thread pools of a running JVM (same user), refreshed like top.",
      "",
      "Columns: POOL, its name (the common prefix of its threads' names);",
      "KIND; THREADS c/m/a = core size / maximum size (∞: unbounded) / threads",
      "running a task now; λ/s, arrivals per second; S ms, mean service time;",
      "Wq p50/p99 ms, queue wait percentiles; L = λ·(Wq+S), Little's law, the",
      "mean tasks in the pool (queued and running); DEAD%%, the share of a task's",
      "time spent waiting; REJ, rejections; CPU%%, the pool threads' CPU (100 =",
      "one core); ADVICE (ADV), PoolSizeAdvisor's size for this load. Figures",
      "cover the agent's window (5 s by default). Below the pools: the whole",
      "JVM's ΣL against its cores. Fits the terminal (--width): under 110",
      "columns KIND and CPU%% go and ADVICE shrinks to the advised size.",
      "A server's request pool (Tomcat, KIND marked *) is shown per request:",
      "λ requests/s, S a request's handling, Wq from its connection being handed",
      "to the pool to its handling; --tasks adds a row of its pool tasks.",
      "",
      "It reads the agent if the JVM runs one (-javaagent:tine-agent.jar, the",
      "production way, which JEP 451 asks for: it works where loading agents at",
      "run time is disabled), over the JDK's local JMX connector (started if",
      "needed; that loads no agent). Otherwise it checks that the target runs",
      "Java 21+ and has the heap headroom, and loads the agent with the Attach",
      "API (JDK 21+ then prints a warning in the target; JEP 451 will disallow",
      "it by default). The agent stays after top exits; --stop-agent ends it.",
      "",
      "--resize POOL=N sets a pool's effective size (the threads that may run",
      "its tasks: a fixed pool's core and maximum, a handing-over or bounded",
      "pool's maximum, Tomcat's and Jetty's maxThreads, Undertow's workerThreads),",
      "says from what to what and how to undo it, and exits. --restore POOL (or",
      "all) puts back the sizes from before the agent's first change; so does",
      "--stop-agent. They never load the agent. Refused, with the reason: a",
      "ForkJoinPool, a Netty group, virtual threads, a WorkStealingPool, a",
      "self-sizing MeasuredExecutor, a single-thread pool or one whose maximum is",
      "unbounded (newCachedThreadPool: a bound makes its execute throw) unless",
      "--force, and a pool another tool resized since the agent last looked",
      "(unless --force). --resize and --restore go in separate commands.",
      "The target logs each change (System.getLogger(\"dev.tine.agent\"): its",
      "java.util.logging, by default on its stderr) and records a JFR event",
      "dev.tine.agent.PoolResized; its MXBeans and Prometheus show the current",
      "and original sizes.",
      ""
    })
public final class TopCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "PID", description = "Process id of the JVM to look into.")
  long pid;

  @Option(names = "--once", description = "Print one refresh and exit.")
  boolean once;

  @Option(
      names = "--json",
      description = "One JSON document per refresh (one line; one record per pool), for scripts.")
  boolean json;

  @Option(
      names = "--interval",
      paramLabel = "SECONDS",
      description = "Seconds between refreshes (default: 1).")
  double interval = 1;

  @Option(
      names = "--count",
      paramLabel = "N",
      description = "Stop after N refreshes (default: until interrupted).")
  int count = -1;

  @Option(
      names = "--width",
      paramLabel = "COLUMNS",
      description = "Fit the table to this many columns (default: the terminal's; none if piped).")
  int width = -1;

  @Option(
      names = "--tasks",
      description =
          "Under each server pool (shown per request), a row with its pool tasks' figures.")
  boolean tasks;

  @Option(
      names = "--all",
      description = "Also show the RMI/JMX pools that top's own connection uses.")
  boolean all;

  @Option(
      names = "--agent-jar",
      paramLabel = "FILE",
      description = "The agent jar (default: found beside this one).")
  Path agentJar;

  @Option(
      names = "--agent-options",
      paramLabel = "K=V,...",
      description =
          "Options for the agent when it is loaded now (window, tick, maxPools, prometheus, ...).")
  String agentOptions;

  @Option(
      names = "--stop-agent",
      description =
          "Stop the agent in the target (the pools it resized and the original bytecode back)"
              + " and exit.")
  boolean stopAgent;

  @Option(
      names = "--resize",
      paramLabel = "POOL=N",
      description =
          "Set the pool's size to N and exit (POOL as top names it, #id, or a unique prefix);"
              + " may repeat. Never loads the agent.")
  List<String> resize = new ArrayList<>();

  @Option(
      names = "--restore",
      paramLabel = "POOL",
      description =
          "Put back the pool's original size (all: every pool the agent resized) and exit; may"
              + " repeat.")
  List<String> restore = new ArrayList<>();

  @Option(
      names = "--force",
      description =
          "With --resize/--restore: also a pool another tool resized, a single-thread pool, or"
              + " one whose maximum is unbounded.")
  boolean force;

  @Option(
      names = "--why",
      paramLabel = "TEXT",
      description = "With --resize/--restore: the reason, for the target's log and JFR event.")
  String why;

  private long attachStart, attachMillis, agentReady;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut(), err = spec.commandLine().getErr();
    if (!(interval > 0)) {
      err.println("tine top: --interval must be positive, was " + interval);
      return 2;
    }
    if (once) count = 1;
    boolean resizing = !resize.isEmpty() || !restore.isEmpty();
    List<String[]> sizes = new ArrayList<>();
    for (String r : resize) {
      int eq = r.lastIndexOf('=');
      String bad = null;
      if (eq <= 0) bad = "--resize wants POOL=N, was '" + r + "'";
      else {
        try {
          long n = Long.parseLong(r.substring(eq + 1).trim());
          bad = ResizeResult.checkSize(n);
          if (bad != null) bad = r.substring(0, eq) + ": " + bad;
        } catch (NumberFormatException e) {
          bad = "--resize " + r + ": the size is not a whole number";
        }
      }
      if (bad != null) {
        err.println("tine top: " + bad + " (nothing changed)");
        return ResizeResult.BAD_INPUT;
      }
      sizes.add(new String[] {r.substring(0, eq), r.substring(eq + 1).trim()});
    }
    if (resizing && stopAgent) {
      err.println("tine top: --resize/--restore and --stop-agent: one at a time (nothing changed)");
      return ResizeResult.BAD_INPUT;
    }
    // picocli keeps each option's values apart, not their order on the line: run together, a
    // restore would follow every resize whatever was written first
    if (!resize.isEmpty() && !restore.isEmpty()) {
      err.println("tine top: --resize and --restore: one at a time (nothing changed)");
      return ResizeResult.BAD_INPUT;
    }
    if (force && !resizing) {
      err.println("tine top: --force goes with --resize or --restore");
      return ResizeResult.BAD_INPUT;
    }
    Path jar;
    try {
      jar = AgentJar.locate(agentJar);
    } catch (IOException e) {
      err.println("tine top: " + e.getMessage());
      return 2;
    }
    long t0 = System.nanoTime();
    attachStart = t0;
    AttachClient client;
    try {
      client =
          AttachClient.attach(
              pid,
              jar,
              agentOptions,
              stopAgent || resizing ? AttachClient.Mode.EXISTING : AttachClient.Mode.LOAD);
    } catch (AttachClient.AttachProblem e) {
      err.println("tine top: " + e.getMessage());
      // stopping an agent that does not run is done
      return stopAgent && e.exitCode == ResizeResult.NO_AGENT ? 0 : e.exitCode;
    }
    attachMillis = client.attachMillis;
    agentReady = client.agentReadyNanos;
    try (client) {
      if (resizing) return resize(client, sizes, out, err);
      if (stopAgent) {
        for (ResizeResult r :
            client.restoreAll("all", false, "tine top --stop-agent", "the agent stops")) {
          if (r.changed() || !r.ok()) (r.ok() ? out : err).println(r.message());
        }
        client.stopAgent();
        err.println("tine top: agent in pid " + pid + " stopped");
        return 0;
      }
      if (!client.loadedNow && !json && "premain".equals(client.agent().get("StartedBy"))) {
        err.println(
            "tine top: reading the agent pid " + pid + " started with -javaagent (none loaded)");
      }
      if (client.loadedNow && !json) {
        err.println(
            "tine top: agent loaded into pid "
                + pid
                + " in "
                + client.attachMillis
                + " ms. JDK 21+ notes in that process's output that an agent was loaded"
                + " dynamically; -XX:+EnableDynamicAgentLoading silences it."
                + " What the target pays (10 µs pool tasks, process CPU per task, paired runs):"
                + " once, 0.1-0.3 s of CPU while its JIT compiles the agent (the first 2 s);"
                + " then threads started after the attach pay about what -javaagent costs"
                + " (+1% to +3%),"
                + " and each pool thread that was already running pays 0.2-0.7 µs more per"
                + " task (+3 to +8 points at 10 µs) for as long as it lives: HotSpot never"
                + " compiles its task loop again once the pool's class has been redefined.");
      }
      boolean tty = System.console() != null && !json;
      int shown = 0;
      long next = System.nanoTime();
      while (count < 0 || shown < count) {
        if (shown == 0) {
          if (once) waitForSettledWindow(client, err);
          else waitForFirstFigures(client, client.agentReadyNanos);
        }
        Map<String, Object> agent = client.agent();
        List<Map<String, Object>> pools = TopTable.visible(client.pools(), all);
        if (json) {
          out.println(Json.write(document(agent, pools)));
        } else {
          if (tty) out.print("\033[H\033[2J");
          out.print(
              TopTable.render(
                  pid, agent, pools, width > 0 ? width : tty ? terminalWidth() : 0, tasks));
          if (!tty && count != 1) out.println();
        }
        out.flush();
        shown++;
        if (count >= 0 && shown >= count) break;
        if (shown == 1)
          next = System.nanoTime(); // the first refresh waited for the agent's first tick
        next += (long) (interval * 1e9);
        long sleep = next - System.nanoTime();
        if (sleep > 0) Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
        if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
          err.println("tine top: pid " + pid + " has exited");
          return 0;
        }
      }
      return 0;
    } catch (IOException e) {
      if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        err.println("tine top: pid " + pid + " has exited");
        return 0;
      }
      err.println("tine top: lost the connection to pid " + pid + ": " + e.getMessage());
      return 1;
    }
  }

  /**
   * {@code --resize} (or {@code --restore}), in the order given: one line each (what changed on
   * standard output, a refusal on standard error); the exit code is the first refusal's.
   */
  private int resize(AttachClient client, List<String[]> sizes, PrintWriter out, PrintWriter err)
      throws IOException {
    String by =
        "tine top (pid "
            + ProcessHandle.current().pid()
            + ", user "
            + System.getProperty("user.name")
            + ")";
    int code = 0;
    List<ResizeResult> results = new ArrayList<>();
    for (String[] r : sizes)
      results.add(
          client.resize(
              r[0],
              Integer.parseInt(r[1]),
              by,
              why != null ? why : "--resize " + r[0] + "=" + r[1],
              force));
    for (String p : restore)
      results.addAll(client.restoreAll(p, force, by, why != null ? why : "--restore " + p));
    for (ResizeResult r : results) {
      (r.ok() ? out : err).println((r.ok() ? "" : "tine top: ") + r.message());
      if (!r.ok() && code == 0) code = r.exitCode();
    }
    out.flush();
    err.flush();
    return code;
  }

  /**
   * A refresh right after the agent arrived would show rates over a few milliseconds: wait for the
   * agent's first tick (a second of measuring), but not past 2.8 s after the agent was loaded, so
   * the first figures come within 3 s of it.
   */
  private void waitForFirstFigures(AttachClient client, long agentReady)
      throws IOException, InterruptedException {
    long deadline = agentReady + 2_800_000_000L;
    while (System.nanoTime() < deadline) {
      if (client.agent().get("Ticks") instanceof Number n && n.longValue() >= 1) return;
      Thread.sleep(50);
    }
  }

  /**
   * {@code --once} shows one refresh, so it should be a settled one: wait until the agent has
   * measured for a whole window (plus a tick), which an agent loaded long ago has already done.
   */
  private void waitForSettledWindow(AttachClient client, PrintWriter err)
      throws IOException, InterruptedException {
    Map<String, Object> a = client.agent();
    double window = TopTable.num(a.get("WindowSeconds")), tick = TopTable.num(a.get("TickSeconds"));
    if (Double.isNaN(window) || Double.isNaN(tick)) return;
    double left = window + tick - TopTable.agentAgeSeconds(a);
    if (left > 0) waitForAgentWindow(client, err, window, tick, left);
    // A pool the agent first saw after it started (attached: at the pool's next task; on a loaded
    // machine seconds later) has a shorter window of its own: wait for it too, at most a window
    // and three ticks, so that the one refresh --once shows covers a whole window for every pool.
    long deadline = System.nanoTime() + (long) ((window + 3 * tick) * 1e9);
    while (System.nanoTime() < deadline && !everyWindowFull(client.pools(), window, tick)) {
      Thread.sleep(100);
    }
  }

  private void waitForAgentWindow(
      AttachClient client, PrintWriter err, double window, double tick, double left)
      throws IOException, InterruptedException {
    if (!json) {
      err.printf(
          java.util.Locale.ROOT,
          "tine top: waiting %.1f s for the agent's first full %.0f s window%n",
          left,
          window);
      err.flush();
    }
    // A full window has passed once the agent has ticked window/tick + 1 times.
    long wanted = (long) Math.ceil(window / tick) + 1;
    long deadline = System.nanoTime() + (long) ((left + 3 * tick) * 1e9);
    while (System.nanoTime() < deadline
        && client.agent().get("Ticks") instanceof Number n
        && n.longValue() < wanted) {
      Thread.sleep(100);
    }
  }

  private static boolean everyWindowFull(
      List<Map<String, Object>> pools, double window, double tick) {
    for (Map<String, Object> p : pools) {
      double w = TopTable.num(p.get("WindowSeconds"));
      if (!Double.isNaN(w) && w < window - tick / 10) return false;
    }
    return true;
  }

  private Map<String, Object> document(Map<String, Object> agent, List<Map<String, Object>> pools) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("time", Instant.now().toString());
    d.put("pid", pid);
    d.put("attach_ms", attachMillis);
    d.put("since_agent_loaded_ms", (long) (TopTable.agentAgeSeconds(agent) * 1000));
    d.put("agent_started_by", agent.get("StartedBy"));
    d.put("since_attach_began_ms", (System.nanoTime() - attachStart) / 1_000_000);
    d.put("jvm", TopTable.jvm(agent, pools));
    List<Map<String, Object>> rs = new ArrayList<>();
    for (Map<String, Object> p : pools) rs.add(TopTable.record(p));
    d.put("pools", rs);
    return d;
  }

  /** $COLUMNS, else what {@code stty size} says of the terminal, else 80. */
  private static int terminalWidth() {
    String c = System.getenv("COLUMNS");
    try {
      if (c != null) return Integer.parseInt(c.trim());
    } catch (NumberFormatException e) {
      // fall through
    }
    try {
      Process p =
          new ProcessBuilder("sh", "-c", "stty size < /dev/tty").redirectErrorStream(true).start();
      String outText = new String(p.getInputStream().readAllBytes()).trim();
      if (p.waitFor() == 0) {
        String[] rc = outText.split("\\s+");
        if (rc.length == 2) return Integer.parseInt(rc[1]);
      }
    } catch (IOException | NumberFormatException e) {
      // no terminal to ask
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 80;
  }
}

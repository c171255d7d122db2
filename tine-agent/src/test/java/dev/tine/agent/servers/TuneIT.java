package dev.tine.agent.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.servers.ServerHarness.Mode;
import dev.tine.agent.servers.ServerHarness.ServerProcess;
import dev.tine.agent.top.AttachClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code tine tune --apply} on real servers under loopback clients, judged by the server's own
 * request log (its p90 request wait over a window before tuning and one after), not by the agent's
 * figures tune decides from. The agent runs with a 3 s window. Long (about a minute a server on 2
 * cores): behind {@code -Ptune} ({@code mvn verify -Ptune -pl tine-agent -am}).
 */
@Tag("tune")
class TuneIT {
  /** The server's own figures over a window: requests/s, p90 and p99 request wait (ms). */
  record Truth(double rate, double p90, double p99, long requests) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%.0f requests/s, p90 wait %.2f ms, p99 wait %.2f ms (%d requests)",
          rate,
          p90,
          p99,
          requests);
    }
  }

  static Truth truth(ServerProcess server, long from, long to) throws Exception {
    String[] st = server.ask("stats " + from + " " + to, "STATS").split(" ");
    long ended = Long.parseLong(st[8]);
    return new Truth(
        ended * 1000.0 / (to - from),
        Long.parseLong(st[12]) / 1e6,
        Long.parseLong(st[11]) / 1e6,
        ended);
  }

  /** The server's log over the {@code seconds} from now (after a short settling pause). */
  static Truth measure(ServerProcess server, int seconds) throws Exception {
    long from = System.currentTimeMillis() + 200;
    Thread.sleep(seconds * 1000L + 400);
    return truth(server, from, from + seconds * 1000L);
  }

  static Map<String, Object> pool(AttachClient agent, String prefix) throws Exception {
    for (Map<String, Object> p : agent.pools())
      if (String.valueOf(p.get("Name")).startsWith(prefix)) return p;
    throw new AssertionError("no pool " + prefix + " in " + agent.pools());
  }

  /**
   * Runs tune --apply until it has made a change that passed its check and then changed nothing for
   * three windows in a row (bounded by its --count); returns its lines.
   */
  static List<String> tuneUntilSettled(TuneRun tune) throws Exception {
    long quietSince = System.nanoTime();
    boolean kept = false;
    long deadline = System.nanoTime() + 150_000_000_000L;
    while (System.nanoTime() < deadline) {
      String l = tune.next(" ", 1);
      if (l != null) {
        if (l.contains(" resized ") || l.contains(" restored ") || l.contains(" stepped back "))
          quietSince = System.nanoTime();
        if (l.contains(" kept ")) kept = true;
        if (l.contains(" restored ") || l.contains(" backs off ")) break;
      }
      if (kept && System.nanoTime() - quietSince > 10_000_000_000L) break;
    }
    return new ArrayList<>(tune.lines);
  }

  /**
   * The undersized server scenario on one server: {@code maxThreads} request threads, 16 keep-alive
   * clients in a closed loop, a 5 ms handler. Returns a line for the report.
   */
  static String undersized(
      Class<?> main, List<String> args, String poolPrefix, boolean close, int clients)
      throws Exception {
    try (ServerProcess server = new ServerProcess(Mode.AT_START, main, args)) {
      String[] hello = server.expect("PORT", 60).split(" ");
      int port = Integer.parseInt(hello[1]);
      long pid = Long.parseLong(hello[3]);
      try (HttpLoad load = new HttpLoad(port, clients, 5_000, 2_000, close);
          AttachClient agent =
              AttachClient.attach(
                  pid, ServerHarness.agentJar(), null, AttachClient.Mode.EXISTING)) {
        while (load.answered.get() < 500) Thread.sleep(20);
        Truth untuned = measure(server, 4);
        int before = ((Number) pool(agent, poolPrefix).get("CurrentSize")).intValue();
        List<String> lines;
        try (TuneRun tune =
            new TuneRun(
                Long.toString(pid), poolPrefix, "--max", "64", "--apply", "--count", "200")) {
          lines = tuneUntilSettled(tune);
          Truth tuned = measure(server, 4);
          Map<String, Object> p = pool(agent, poolPrefix);
          int after = ((Number) p.get("CurrentSize")).intValue();
          String report =
              String.format(
                  Locale.ROOT,
                  "%s %s: %d → %d threads; untuned %s; tuned %s; p90 wait %.1f× lower; the agent's"
                      + " advice now %s (%s)",
                  main.getSimpleName(),
                  p.get("Name"),
                  before,
                  after,
                  untuned,
                  tuned,
                  untuned.p90() / Math.max(tuned.p90(), 1e-3),
                  p.get("RecommendedSize"),
                  p.get("Recommendation"));
          System.out.println(report);
          tune.close();
          assertEquals(0, tune.waitFor(30), "tune's exit code; stderr " + tune.err);
          String all = String.join("\n", tune.lines);
          assertEquals(0, load.wrong.get(), "wrong answers");
          assertTrue(
              lines.stream().anyMatch(l -> l.contains(" resized ")),
              "tune resized nothing:\n" + all);
          assertTrue(
              lines.stream().noneMatch(l -> l.contains(" restored ") || l.contains(" backs off ")),
              "tune gave up:\n" + all);
          assertTrue(after > before, report + "\n" + all);
          assertTrue(
              all.contains(" kept ") && all.contains("on exit: the size passed its check"),
              "the size kept on exit:\n" + all);
          // the figure: the p90 request wait, from the server's own log, 5× lower
          assertTrue(untuned.p90() >= 5 * tuned.p90(), report + "\n" + all);
          // a later tune session goes on from the size this one kept (its own tool's), rather
          // than backing off as from another tool's
          try (TuneRun again =
              new TuneRun(
                  Long.toString(pid), poolPrefix, "--max", "64", "--apply", "--count", "4")) {
            assertEquals(0, again.waitFor(60), "stderr " + again.err);
            assertEquals(List.of(), again.with(" backs off "), "" + again.lines);
          }
          return report + "\n" + all;
        }
      }
    }
  }

  @Test
  void anUndersizedTomcatIsGrownUntilItsRequestsWaitFiveTimesLess() throws Exception {
    undersized(TomcatServer.class, List.of("2"), "tomcat-exec", false, 16);
  }

  @Test
  void anUndersizedJettyQueuedThreadPoolIsGrownToo() throws Exception {
    undersized(JettyServer.class, List.of("6"), "jetty-qtp", false, 16);
  }

  @Test
  void anUndersizedUndertowWorkerPoolIsGrownToo() throws Exception {
    undersized(UndertowServer.class, List.of("2"), "XNIO-1 task", true, 16);
  }

  /** The target's CPU time so far (ms), from /proc (Linux): utime + stime at 100 ticks a second. */
  static long processCpuMs(long pid) throws Exception {
    String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", "" + pid, "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
  }

  /** The CPU-bound pool's throughput over {@code seconds}: per second, and per CPU-second. */
  static double[] cpuThroughput(ServerProcess server, long pid, int seconds) throws Exception {
    long from = System.currentTimeMillis() + 200;
    Thread.sleep(200);
    long cpu0 = processCpuMs(pid);
    Thread.sleep(seconds * 1000L);
    long cpu1 = processCpuMs(pid);
    Thread.sleep(300);
    Truth t = truth(server, from, from + seconds * 1000L);
    return new double[] {t.rate(), t.requests() * 1000.0 / Math.max(1, cpu1 - cpu0), t.p99()};
  }

  /**
   * 64 threads on the machine's 2 cores, 64 CPU-bound tasks circulating: tune shrinks the pool to
   * what the CPUs serve, and the throughput (the pool's own log, per second of CPU the process got,
   * since the box is shared) stays within 5% or improves.
   */
  @Test
  void anOversizedCpuBoundPoolIsShrunkAndKeepsItsThroughput() throws Exception {
    try (ServerProcess server =
        new ServerProcess(Mode.AT_START, CpuPoolServer.class, List.of("64", "64", "300000"))) {
      long pid = Long.parseLong(server.expect("PORT", 60).split(" ")[3]);
      try (AttachClient agent =
          AttachClient.attach(pid, ServerHarness.agentJar(), null, AttachClient.Mode.EXISTING)) {
        Thread.sleep(2000);
        // two windows before and two after: their spread is the noise the bound allows for
        double[] b1 = cpuThroughput(server, pid, 4), b2 = cpuThroughput(server, pid, 4);
        List<String> lines;
        try (TuneRun tune =
            new TuneRun(
                Long.toString(pid), "cpu-pool", "--max", "64", "--apply", "--count", "200")) {
          lines = tuneUntilSettled(tune);
          double[] a1 = cpuThroughput(server, pid, 4), a2 = cpuThroughput(server, pid, 4);
          int size = ((Number) pool(agent, "cpu-pool").get("CurrentSize")).intValue();
          double before = (b1[1] + b2[1]) / 2, after = (a1[1] + a2[1]) / 2;
          double noise = Math.abs(b1[1] - b2[1]) + Math.abs(a1[1] - a2[1]);
          String report =
              String.format(
                  Locale.ROOT,
                  "CPU-bound pool: 64 → %d threads; before %.0f and %.0f tasks/s, %.0f and %.0f per"
                      + " CPU-second; after %.0f and %.0f tasks/s, %.0f and %.0f per CPU-second"
                      + " (%.3f× per CPU-second, %.3f× raw; spread of the windows %.0f)",
                  size,
                  b1[0],
                  b2[0],
                  b1[1],
                  b2[1],
                  a1[0],
                  a2[0],
                  a1[1],
                  a2[1],
                  after / before,
                  (a1[0] + a2[0]) / (b1[0] + b2[0]),
                  noise);
          System.out.println(report);
          tune.close();
          assertEquals(0, tune.waitFor(30), "stderr " + tune.err);
          String all = String.join("\n", tune.lines);
          assertTrue(lines.stream().anyMatch(l -> l.contains(" resized cpu-pool 64 → ")), all);
          assertTrue(size < 64, report + "\n" + all);
          // within 5%, or within the windows' own spread on a machine other processes load
          assertTrue(after >= 0.95 * before - noise, report + "\n" + all);
        }
      }
    }
  }

  /**
   * Tomcat with 4 threads, 2 clients always and 14 more in bursts of 6 s every 12 s, five times:
   * tune grows the pool for the bursts and does not shrink it in each lull and grow it again (no
   * flapping): its changes are listed; at most one change of direction, no more changes than
   * bursts.
   */
  @Test
  void burstyLoadDoesNotMakeTheSizeFlap() throws Exception {
    try (ServerProcess server =
        new ServerProcess(Mode.AT_START, TomcatServer.class, List.of("4"))) {
      String[] hello = server.expect("PORT", 60).split(" ");
      int port = Integer.parseInt(hello[1]);
      long pid = Long.parseLong(hello[3]);
      try (HttpLoad base = new HttpLoad(port, 2, 5_000, 2_000, false);
          TuneRun tune =
              new TuneRun(
                  Long.toString(pid), "tomcat-exec", "--max", "64", "--apply", "--count", "200")) {
        List<Truth> bursts = new ArrayList<>(), lulls = new ArrayList<>();
        for (int b = 0; b < 5; b++) {
          try (HttpLoad burst = new HttpLoad(port, 14, 5_000, 2_000, false)) {
            bursts.add(measure(server, 6));
          }
          lulls.add(measure(server, 6));
        }
        tune.close();
        assertEquals(0, tune.waitFor(30), "stderr " + tune.err);
        List<int[]> changes = new ArrayList<>();
        for (String l : tune.lines) {
          java.util.regex.Matcher m =
              java.util.regex.Pattern.compile(
                      " (resized|restored|stepped back) tomcat-exec (\\d+) → (\\d+)")
                  .matcher(l);
          if (m.find())
            changes.add(new int[] {Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))});
        }
        int reversals = 0;
        for (int i = 1; i < changes.size(); i++) {
          int d0 = Integer.signum(changes.get(i - 1)[1] - changes.get(i - 1)[0]);
          int d1 = Integer.signum(changes.get(i)[1] - changes.get(i)[0]);
          if (d0 != d1) reversals++;
        }
        String all = String.join("\n", tune.lines);
        System.out.println("bursts: " + bursts + "\nlulls: " + lulls + "\nchanges:\n" + all);
        assertEquals(0, base.wrong.get());
        assertTrue(changes.size() <= 5, "more changes than bursts:\n" + all);
        assertTrue(reversals <= 1, reversals + " changes of direction:\n" + all);
      }
    }
  }

  /**
   * Refusals, each in one line, nothing changed: Netty's event-executor group (its nThreads is
   * fixed), a ForkJoinPool (its parallelism), and a pool another thread of the application resizes
   * while tune runs (tune backs off and says so).
   */
  @Test
  void refusesNettyAndForkJoinPoolsAndBacksOffAPoolSomeoneElseResizes() throws Exception {
    try (ServerProcess netty = new ServerProcess(Mode.AT_START, NettyServer.class, List.of("2"))) {
      String[] hello = netty.expect("PORT", 60).split(" ");
      long pid = Long.parseLong(hello[3]);
      try (HttpLoad load = new HttpLoad(Integer.parseInt(hello[1]), 8, 5_000, 2_000, false);
          TuneRun tune =
              new TuneRun(
                  Long.toString(pid), "netty-app", "--max", "64", "--apply", "--count", "8")) {
        assertEquals(0, tune.waitFor(60), "stderr " + tune.err);
        String all = String.join("\n", tune.lines);
        assertEquals(1, tune.with(" leaves netty-app").size(), all);
        assertEquals(0, tune.with(" resized ").size(), all);
      }
    }
    try (ServerProcess app = new ServerProcess(Mode.AT_START, RefusalScenario.class, List.of())) {
      long pid = Long.parseLong(app.expect("PORT", 60).split(" ")[3]);
      try (AttachClient agent =
              AttachClient.attach(pid, ServerHarness.agentJar(), null, AttachClient.Mode.EXISTING);
          TuneRun tune =
              new TuneRun(Long.toString(pid), "--max", "64", "--apply", "--count", "40")) {
        assertTrue(tune.next(" leaves ForkJoinPool", 30) != null, "FJP: " + tune.lines + tune.err);
        Thread.sleep(4000);
        app.ask("resize 11", "RESIZED");
        String off = tune.next(" backs off busy-pool", 30);
        assertTrue(off != null, "no back-off: " + tune.lines);
        int at = tune.lines.indexOf(off);
        Thread.sleep(8000);
        tune.close();
        tune.waitFor(30);
        String all = String.join("\n", tune.lines);
        System.out.println(all);
        for (String l : tune.lines.subList(at + 1, tune.lines.size()))
          assertTrue(!l.contains("busy-pool"), "tune acted after backing off:\n" + all);
        assertEquals(11, ((Number) pool(agent, "busy-pool").get("CurrentSize")).intValue(), all);
      }
    }
  }

  /**
   * The best-case reference for the undersized Tomcat: the same server, load and handler with a
   * self-sizing {@code MeasuredExecutor} (2 to 64 threads) as its executor, which sizes itself
   * every tick. Its p90 request wait from the server's own log, once it has sized itself (its size
   * the same in two readings 4 s apart), against its first seconds at 2 threads.
   */
  @Test
  void aSelfSizingMeasuredExecutorTomcatIsTheBestCaseReference() throws Exception {
    try (ServerProcess server =
        new ServerProcess(Mode.ATTACHED, SelfSizingTomcatServer.class, List.of("2", "64"))) {
      String[] hello = server.expect("PORT", 60).split(" ");
      int port = Integer.parseInt(hello[1]);
      try (HttpLoad load = new HttpLoad(port, 16, 5_000, 2_000, false)) {
        while (load.answered.get() < 50) Thread.sleep(5);
        Truth first = measure(server, 1);
        String size = "";
        Truth settled = null;
        for (int i = 0; i < 10; i++) {
          Truth t = measure(server, 4);
          String now = server.ask("sizes", "SIZES").split(" ")[1];
          if (now.equals(size)) {
            settled = t;
            break;
          }
          size = now;
        }
        String history = server.ask("sizes", "SIZES");
        String report =
            String.format(
                Locale.ROOT,
                "self-sizing MeasuredExecutor Tomcat: first second %s; settled at %s threads: %s;"
                    + " p90 wait %.1f× lower; sizes per tick %s",
                first,
                size,
                settled,
                settled == null ? Double.NaN : first.p90() / Math.max(settled.p90(), 1e-3),
                history);
        System.out.println(report);
        assertEquals(0, load.wrong.get());
        assertTrue(settled != null && Integer.parseInt(size) > 2, report);
      }
    }
  }
}

package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.resize.ResizeResult;
import dev.tine.agent.top.AttachClient;
import dev.tine.agent.top.TopCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code tine top --resize/--restore} on a JVM started with the agent: what the application counts
 * (tasks running at once, its pools' own getters), what the target shows (the log line on its
 * standard error, the JFR event, the MXBean, the Prometheus scrape), and the refusals and bad input
 * that change nothing.
 */
class ResizeIT {
  record Run(int code, String out, String err) {}

  /** {@code tine top ARGS} in this JVM (the command the agent jar and the tine CLI run). */
  static Run top(String... args) {
    StringWriter out = new StringWriter(), err = new StringWriter();
    CommandLine cl = new CommandLine(new TopCommand());
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  static String ask(ChildJvm app, String command, String answer) throws Exception {
    app.send(command);
    return app.expect(answer, 60);
  }

  static String sizes(ChildJvm app) throws Exception {
    return ask(app, "sizes", "SIZES ");
  }

  /** Asks until the pool runs {@code n} tasks at once; the last answer if it never does. */
  static int awaitRunning(ChildJvm app, String pool, int n) throws Exception {
    int r = -1;
    for (int i = 0; i < 600 && r != n; i++) {
      if (i > 0) Thread.sleep(50);
      String l = ask(app, "running " + pool, "RUNNING " + pool);
      r = Integer.parseInt(l.substring(l.lastIndexOf(' ') + 1));
    }
    return r;
  }

  static Map<String, Object> pool(AttachClient c, String name) throws Exception {
    for (Map<String, Object> p : c.pools()) if (name.equals(p.get("Name"))) return p;
    return null;
  }

  /** Waits until the agent has named every pool (its first ticks). */
  static void awaitPools(AttachClient c, String... names) throws Exception {
    for (int i = 0; i < 600; i++) {
      boolean all = true;
      for (String n : names) all &= pool(c, n) != null && pool(c, n).get("CurrentSize") != null;
      if (all && ((Number) pool(c, names[0]).get("MeasuredAtMillis")).longValue() > 0) return;
      Thread.sleep(50);
    }
    throw new AssertionError("the agent did not name " + List.of(names) + ": " + c.pools());
  }

  @Test
  void resizeRestoreAndRefusalsOnTheJdksPools() throws Exception {
    List<String> jvm =
        List.of("-Xmx128m", "-javaagent:" + ChildJvm.agentJar() + "=prometheus=127.0.0.1:0");
    try (ChildJvm app =
        ChildJvm.java(jvm, FleetIT.TEST_CLASSES, ResizeScenario.class.getName(), "jfr")) {
      long pid = Long.parseLong(app.expect("READY", 60).split(" ")[1]);
      String p = Long.toString(pid);
      try (AttachClient c =
          AttachClient.attach(pid, ChildJvm.agentJar(), null, AttachClient.Mode.EXISTING)) {
        awaitPools(c, "fixed", "other", "single", "handoff", "fj", "brittle");
        String before = sizes(app);
        assertEquals("SIZES fixed=2/2 other=2/2 handoff=1/2 fj=2", before);
        Map<String, Object> fixed = pool(c, "fixed");
        assertEquals(true, fixed.get("Resizable"), fixed.toString());
        assertEquals(2, fixed.get("CurrentSize"));
        assertEquals(2, fixed.get("OriginalSize"));
        assertEquals(0, fixed.get("ResizeCount"));

        // Bad input and refusals: one line on stderr, the documented code, nothing changed.
        List<String> lines = new ArrayList<>();
        Object[][] bad = {
          {new String[] {p, "--resize", "nosuch=4"}, ResizeResult.NO_SUCH_POOL, "no pool named"},
          {new String[] {p, "--resize", "f=4"}, ResizeResult.NO_SUCH_POOL, "names 2 pools"},
          {new String[] {p, "--resize", "fixed=0"}, ResizeResult.BAD_INPUT, "at least 1"},
          {new String[] {p, "--resize", "fixed=-3"}, ResizeResult.BAD_INPUT, "at least 1"},
          {new String[] {p, "--resize", "fixed=abc"}, ResizeResult.BAD_INPUT, "not a whole"},
          {new String[] {p, "--resize", "fixed"}, ResizeResult.BAD_INPUT, "POOL=N"},
          {new String[] {p, "--resize", "fixed=20000"}, ResizeResult.BAD_INPUT, "above 10000"},
          {new String[] {p, "--resize", "fj=4"}, ResizeResult.NOT_RESIZABLE, "ForkJoinPool"},
          {new String[] {p, "--resize", "single=3"}, ResizeResult.NOT_RESIZABLE, "single-thread"},
        };
        for (Object[] b : bad) {
          Run r = top((String[]) b[0]);
          String what = String.join(" ", (String[]) b[0]) + ": " + r;
          assertEquals((int) b[1], r.code(), what);
          assertEquals("", r.out(), what);
          assertEquals(1, r.err().strip().lines().count(), "one line: " + what);
          assertTrue(r.err().contains((String) b[2]), what);
          lines.add(
              "tine top "
                  + String.join(" ", (String[]) b[0])
                  + " -> "
                  + r.code()
                  + ": "
                  + r.err().strip());
        }
        assertEquals(before, sizes(app), "nothing changed");

        // --force resizes the single-thread pool (inside its wrapper) all the same, and back
        Run single = top(p, "--resize", "single=3", "--force");
        assertEquals(0, single.code(), single.toString());
        assertTrue(
            single.out().startsWith("single: pool size (core = maximum) 1 → 3"), single.toString());
        assertEquals(3, pool(c, "single").get("CurrentSize"));
        assertEquals(1, pool(c, "single").get("OriginalSize"));
        assertEquals(false, pool(c, "single").get("Resizable"), "not by tune: a judgement");
        Run singleBack = top(p, "--restore", "single");
        assertEquals(0, singleBack.code(), singleBack.toString());
        assertEquals(1, pool(c, "single").get("CurrentSize"));

        // A setter that throws halfway (the maximum raised, the core refused): put back, exit 1.
        Run brittle = top(p, "--resize", "brittle=5");
        assertEquals(ResizeResult.FAILED, brittle.code(), brittle.toString());
        assertTrue(
            brittle.err().contains("planted: no core above 3")
                && brittle.err().contains("left at 2 (read back)"),
            brittle.toString());
        assertEquals("BRITTLE 2/2", ask(app, "brittle", "BRITTLE"), "as it was");
        assertEquals(0, pool(c, "brittle").get("ResizeCount"));
        lines.add(
            "tine top "
                + p
                + " --resize brittle=5 -> "
                + brittle.code()
                + ": "
                + brittle.err().strip());
        assertEquals(0, pool(c, "fixed").get("ResizeCount"));

        // Another tool resizes 'other': the agent notices at a tick, and refuses it.
        ask(app, "external other 5", "EXTERNAL");
        for (int i = 0; i < 600; i++) {
          if (((Number) pool(c, "other").get("ExternallyResizedAtMillis")).longValue() > 0) break;
          Thread.sleep(50);
        }
        Map<String, Object> other = pool(c, "other");
        assertTrue(
            String.valueOf(other.get("ExternalResize")).startsWith("resized by another tool at "),
            other.toString());
        Run ext = top(p, "--resize", "other=4");
        assertEquals(ResizeResult.RESIZED_BY_ANOTHER, ext.code(), ext.toString());
        assertTrue(ext.err().contains("resized by another tool"), ext.toString());
        lines.add(
            "tine top " + p + " --resize other=4 -> " + ext.code() + ": " + ext.err().strip());
        String afterExternal = sizes(app);
        assertEquals("SIZES fixed=2/2 other=2/5 handoff=1/2 fj=2", afterExternal);

        // The real resize, by the jar's own command line: 8 tasks held on 2 threads, then 6 run.
        ask(app, "block fixed 8", "BLOCKED");
        assertEquals(2, awaitRunning(app, "fixed", 2));
        String out;
        try (ChildJvm cli = TopIT.top(p, "--resize", "fixed=6", "--why", "queue wait p90 40 ms")) {
          assertEquals(0, cli.waitFor(120), "stdout " + cli.all + " stderr " + cli.err);
          out = String.join("\n", cli.all);
        }
        assertEquals(
            "fixed: pool size (core = maximum) 2 → 6 (original 2; undo: tine top "
                + p
                + " --restore fixed)",
            out);
        assertEquals(6, awaitRunning(app, "fixed", 6), "tasks running at once after the resize");
        assertEquals("SIZES fixed=6/6 other=2/5 handoff=1/2 fj=2", sizes(app));
        fixed = pool(c, "fixed");
        assertEquals(6, fixed.get("CurrentSize"), fixed.toString());
        assertEquals(2, fixed.get("OriginalSize"));
        assertEquals(1, fixed.get("ResizeCount"));
        assertTrue(
            String.valueOf(fixed.get("LastResizedBy")).contains("tine top")
                && String.valueOf(fixed.get("LastResizedBy")).contains("queue wait p90 40 ms"),
            fixed.toString());
        assertEquals(0L, fixed.get("ExternallyResizedAtMillis"), "its own change is not another's");
        // the scrape shows the current and the original size
        String url = String.valueOf(c.agent().get("PrometheusUrl"));
        String scrape = get(url);
        String labels = "{name=\"fixed\",type=\"ThreadPoolExecutor\"}";
        long eff = -1;
        for (int i = 0; i < 100 && eff != 6; i++) {
          if (i > 0) Thread.sleep(100);
          scrape = get(url);
          eff = FleetIT.value(scrape, "executor_effective_size_threads" + labels);
        }
        assertEquals(6, eff, scrape);
        assertEquals(2, FleetIT.value(scrape, "executor_original_size_threads" + labels), scrape);
        assertEquals(
            -1,
            FleetIT.value(
                scrape, "executor_effective_size_threads{name=\"fj\",type=\"ForkJoinPool\"}"),
            scrape);

        // visible in the target: its log line (the JDK's default: standard error) and JFR event
        String event = awaitLine(app.all, "EVENT pool=fixed from=2");
        assertEquals(
            "EVENT pool=fixed from=2 to=6 original=2 why=queue wait p90 40 ms requestedBy=",
            event.substring(0, event.indexOf("requestedBy=") + 12));
        assertTrue(event.contains("tine top (pid "), event);
        String log = awaitLine(app.err, "INFO: tine-agent: pool fixed:");
        assertTrue(
            log.contains("pool size (core = maximum) 2 -> 6 (original 2), requested by tine top")
                && log.contains(": queue wait p90 40 ms; undo: tine top " + p + " --restore fixed"),
            log);

        // A hand-off pool: its maximum.
        Run h = top(p, "--resize", "handoff=4");
        assertEquals(0, h.code(), h.toString());
        assertTrue(h.out().startsWith("handoff: maximum pool size 2 → 4"), h.toString());
        assertEquals("SIZES fixed=6/6 other=2/5 handoff=1/4 fj=2", sizes(app));

        // --restore all: both back, the held tasks keep running and all end.
        Run back = top(p, "--restore", "all");
        assertEquals(0, back.code(), back.toString());
        assertTrue(
            back.out().contains("fixed: pool size (core = maximum) 6 → 2 (restored"),
            back.toString());
        assertTrue(
            back.out().contains("handoff: maximum pool size 4 → 2 (restored"), back.toString());
        assertEquals("SIZES fixed=2/2 other=2/5 handoff=1/2 fj=2", sizes(app));
        assertEquals(2, pool(c, "fixed").get("OriginalSize"));
        assertEquals(2, pool(c, "fixed").get("CurrentSize"));
        ask(app, "release fixed", "RELEASED");
        assertEquals(0, awaitRunning(app, "fixed", 0));
        String restored = awaitLine(app.all, "EVENT pool=fixed from=6");
        assertTrue(restored.startsWith("EVENT pool=fixed from=6 to=2 original=2"), restored);
        // nothing left to restore
        Run again = top(p, "--restore", "fixed");
        assertEquals(0, again.code(), again.toString());
        assertTrue(again.out().contains("nothing to restore"), again.toString());

        // --force takes over from the other tool; --stop-agent puts back its sizes as found
        Run forced = top(p, "--resize", "other=3", "--force");
        assertEquals(0, forced.code(), forced.toString());
        assertTrue(
            forced
                .out()
                .startsWith(
                    "other: core pool size (an unbounded queue: the maximum is unused) 2 → 3"),
            forced.toString());
        assertEquals("SIZES fixed=2/2 other=3/5 handoff=1/2 fj=2", sizes(app));
        Run stop = top(p, "--stop-agent");
        assertEquals(0, stop.code(), stop.toString());
        assertTrue(
            stop.out()
                .contains(
                    "other: core pool size (an unbounded queue: the maximum is unused) 3 → 2 (restored"),
            stop.toString());
        assertEquals("SIZES fixed=2/2 other=2/5 handoff=1/2 fj=2", sizes(app));
        System.out.println("ResizeIT: real output");
        System.out.println("$ tine top " + p + " --resize fixed=6 --why 'queue wait p90 40 ms'");
        System.out.println(out);
        System.out.println("$ tine top " + p + " --resize handoff=4\n" + h.out().strip());
        System.out.println("$ tine top " + p + " --restore all\n" + back.out().strip());
        System.out.println(
            "$ tine top " + p + " --stop-agent\n" + stop.out().strip() + "\n" + stop.err().strip());
        System.out.println("target's stderr: " + log);
        System.out.println("JFR: " + event);
        for (String l : lines) System.out.println(l);
      }
      // The agent stopped: --resize finds none, loads none, changes nothing.
      Run none = top(p, "--resize", "fixed=4");
      assertEquals(ResizeResult.NO_AGENT, none.code(), none.toString());
      assertTrue(none.err().contains("no tine agent runs in pid " + p), none.toString());
      assertEquals("SIZES fixed=2/2 other=2/5 handoff=1/2 fj=2", sizes(app));
      System.out.println(
          "tine top " + p + " --resize fixed=4 -> " + none.code() + ": " + none.err().strip());
      app.send("quit");
      assertEquals(0, app.waitFor(60));
    }
  }

  /**
   * Tine's own pools: a fixed {@code MeasuredExecutor} is set through its own {@code setPoolSize};
   * a self-sizing one and a {@code WorkStealingPool} refuse, saying why.
   */
  @Test
  void tinesOwnPools() throws Exception {
    List<String> cp = new ArrayList<>(List.of(FleetIT.TEST_CLASSES));
    for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator))
      if (e.matches(".*(tine-core|tine-executor|HdrHistogram).*")) cp.add(e);
    try (ChildJvm app =
        ChildJvm.java(
            List.of("-Xmx128m", "-javaagent:" + ChildJvm.agentJar()),
            String.join(java.io.File.pathSeparator, cp),
            OwnPoolsScenario.class.getName())) {
      long pid = Long.parseLong(app.expect("READY", 60).split(" ")[1]);
      String p = Long.toString(pid);
      try (AttachClient c =
          AttachClient.attach(pid, ChildJvm.agentJar(), null, AttachClient.Mode.EXISTING)) {
        awaitPools(c, "me-fixed", "me-self", "wsp");
        assertEquals("SIZES me-fixed=2 me-self-selfSizing=true wsp=2", sizes(app));
        Run self = top(p, "--resize", "me-self=3");
        assertEquals(ResizeResult.NOT_RESIZABLE, self.code(), self.toString());
        assertTrue(self.err().contains("sizes itself"), self.toString());
        Run wsp = top(p, "--resize", "wsp=4");
        assertEquals(ResizeResult.NOT_RESIZABLE, wsp.code(), wsp.toString());
        assertTrue(wsp.err().contains("WorkStealingPool's parallelism is fixed"), wsp.toString());
        assertEquals(false, pool(c, "wsp").get("Resizable"));
        assertEquals("SIZES me-fixed=2 me-self-selfSizing=true wsp=2", sizes(app));
        Run fixed = top(p, "--resize", "me-fixed=3");
        assertEquals(0, fixed.code(), fixed.toString());
        assertTrue(
            fixed.out().startsWith("me-fixed: pool size (MeasuredExecutor.setPoolSize) 2 → 3"),
            fixed.toString());
        assertEquals("SIZES me-fixed=3 me-self-selfSizing=true wsp=2", sizes(app));
        Run back = top(p, "--restore", "me-fixed");
        assertEquals(0, back.code(), back.toString());
        assertEquals("SIZES me-fixed=2 me-self-selfSizing=true wsp=2", sizes(app));
        System.out.println(fixed.out().strip());
        System.out.println(self.err().strip());
        System.out.println(wsp.err().strip());
      }
      app.send("quit");
      assertEquals(0, app.waitFor(60));
    }
  }

  /** A target that never had the agent: --resize loads none and changes nothing. */
  @Test
  void aTargetWithoutTheAgentIsNotChanged() throws Exception {
    try (ChildJvm app =
        ChildJvm.java(List.of("-Xmx64m"), FleetIT.TEST_CLASSES, ResizeScenario.class.getName())) {
      long pid = Long.parseLong(app.expect("READY", 60).split(" ")[1]);
      String before = sizes(app);
      Run r = top(Long.toString(pid), "--resize", "fixed=4");
      assertEquals(ResizeResult.NO_AGENT, r.code(), r.toString());
      assertEquals(1, r.err().strip().lines().count(), r.toString());
      Run s = top(Long.toString(pid), "--restore", "all");
      assertEquals(ResizeResult.NO_AGENT, s.code(), s.toString());
      assertEquals(before, sizes(app));
      app.send("quit");
      assertEquals(0, app.waitFor(60));
      assertFalse(String.join("\n", app.err).contains("tine-agent"), "no agent loaded: " + app.err);
    }
  }

  /** The first line starting with {@code prefix} the child has printed, waiting up to 30 s. */
  static String awaitLine(List<String> lines, String prefix) throws InterruptedException {
    for (int i = 0; i < 600; i++) {
      synchronized (lines) {
        for (String l : lines) if (l.startsWith(prefix)) return l;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no line starting with '" + prefix + "': " + lines);
  }

  static String get(String url) throws Exception {
    return HttpClient.newHttpClient()
        .send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }
}

package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.top.AttachClient;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The agent's figures against the application's own timings of the same tasks ({@link
 * TruthScenario}), attached into pools whose threads were idle: a reused task object (Wq), tasks
 * that throw (S), µs tasks (S), and λ and L = λ·(Wq + S) for each.
 *
 * <p>Tolerances a loaded machine cannot break: the agent's window (15 s) holds each mode's whole
 * run (9 s) with quiet edges, every task is timed ({@code timedRate} above the load), so the agent
 * and the application count the same tasks; and the application reads the clock around the very
 * calls where the agent reads it, so the agent's mean S and Wq must lie between bounds from those
 * readings, however long a thread was descheduled anywhere. (The test compared with the tasks' own
 * start and end within 10-20% before; on a loaded CI machine a µs task's S read +27.5%: the agent's
 * interval holds the pool's calls around the task, and a stall there counts in it.)
 */
class FiguresIT {
  static final String TEST_CLASSES = System.getProperty("it.test.classes", "target/test-classes");

  /** The agent's window: longer than a mode's run and the wait for its last tick. */
  static final int WINDOW_SECONDS = 15;

  @Test
  void attachedFiguresMatchTheApplicationsOwnTimings() throws Exception {
    StringBuilder report = new StringBuilder();
    List<String> wrong = new java.util.ArrayList<>();
    try (ChildJvm app =
        ChildJvm.java(List.of("-Xmx256m"), TEST_CLASSES, TruthScenario.class.getName())) {
      long pid = Long.parseLong(app.expect("READY", 60).split(" ")[1]);
      // READY comes once every pool thread is parked in getTask (TruthScenario waits for it)
      try (AttachClient agent =
          AttachClient.attach(
              pid,
              ChildJvm.agentJar(),
              "window=" + WINDOW_SECONDS + ",quiet=true,timedRate=100000000")) {
        for (String mode : List.of("reuse", "throwing", "micro")) {
          long runFrom = System.currentTimeMillis();
          app.send("run " + mode + " 9");
          app.expect("DONE " + mode, 60);
          // every task has ended and is recorded (under CPU hogs the queue of the throwing tasks
          // drained up to 3.7 s after the last submission: the tasks still queued were counted as
          // arrivals by the agent and not by the truth, λ +23.6%)
          long drainBy = System.nanoTime() + 120_000_000_000L;
          for (; ; ) {
            app.send("pending " + mode);
            String pending = app.expect("PENDING", 30);
            if (pending.equals("PENDING 0")) break;
            if (System.nanoTime() > drainBy) throw new AssertionError(mode + ": " + pending);
            Thread.sleep(200);
          }
          long doneAt = System.currentTimeMillis();
          // a tick at least 1.5 s after the last task ended: the agent has recorded every one
          Map<String, Object> p;
          do {
            Thread.sleep(200);
            p = pool(agent, mode);
          } while (((Number) p.get("MeasuredAtMillis")).longValue() < doneAt + 1_500);
          long to = ((Number) p.get("MeasuredAtMillis")).longValue();
          double secs = ((Number) p.get("WindowSeconds")).doubleValue();
          // a pool's window starts with its first arrival, or WINDOW_SECONDS before its last tick
          if (secs >= WINDOW_SECONDS - 0.5 && to - secs * 1000 > runFrom)
            wrong.add(mode + ": the agent's window does not hold the whole run");
          app.send("truth " + mode + " " + secs);
          Map<String, Double> t = truth(app.expect("TRUTH", 30));
          double s = num(p.get("ServiceMillis")), wq = num(p.get("WaitMillis"));
          double lambda = num(p.get("ArrivalRate")), l = num(p.get("LittlesL"));
          String line =
              String.format(
                  Locale.ROOT,
                  "%-8s agent λ=%.2f/s S=%.4g ms Wq=%.4g ms L=%.4f | application λ=%.2f/s S=%.4g ms"
                      + " Wq=%.4g ms (%d tasks); bounds from its clock at the agent's points:"
                      + " S %.4g..%.4g ms, Wq %.4g..%.4g ms (%d tasks)",
                  mode,
                  lambda,
                  s,
                  wq,
                  l,
                  t.get("rate"),
                  t.get("service_ms"),
                  t.get("wait_ms"),
                  t.get("tasks").longValue(),
                  t.get("s_lo"),
                  t.get("s_hi"),
                  t.get("w_lo"),
                  t.get("w_hi"),
                  t.get("tasks").longValue());
          line +=
              String.format(
                  Locale.ROOT,
                  "; agent Wq p50/p99/max %.4g/%.4g/%.4g ms",
                  num(p.get("WaitP50Millis")),
                  num(p.get("WaitP99Millis")),
                  num(p.get("WaitMaxMillis")));
          report.append(line).append('\n');
          System.out.println(line);
          // the same tasks: λ exact but for the window's length in ms
          within(wrong, mode + " λ", lambda, t.get("rate"), 0.005, 0, line);
          between(wrong, mode + " S", s, t.get("s_lo"), t.get("s_hi"), line);
          // A reused task object: a pool thread that was parked in getTask at the attach returns
          // from the method as it was; its task starts at beforeExecute, where it takes its own
          // arrival (none left behind to match a later start one submission behind)
          between(wrong, mode + " Wq", wq, t.get("w_lo"), t.get("w_hi"), line);
          // L = λ·(Wq + S): between λ times the bounds
          between(
              wrong,
              mode + " L",
              l,
              t.get("rate") * (t.get("w_lo") + t.get("s_lo")) / 1000,
              t.get("rate") * (t.get("w_hi") + t.get("s_hi")) / 1000,
              line);
        }
      }
      app.send("quit");
      app.waitFor(30);
    }
    System.out.println(report);
    assertTrue(wrong.isEmpty(), String.join("\n", wrong) + "\n" + report);
  }

  /**
   * Adds to {@code wrong} unless {@code lo <= agent <= hi}, give or take the printed figures'
   * rounding (0.1%: the MXBean's doubles are exact, the bounds are printed with 6 decimals).
   */
  static void between(
      List<String> wrong, String what, double agent, double lo, double hi, String line) {
    double slack = 0.001 * Math.abs(hi) + 2e-6;
    if (!(agent >= lo - slack && agent <= hi + slack))
      wrong.add(
          String.format(
              Locale.ROOT,
              "%s: agent %.6f outside the application's bounds %.6f..%.6f: %s",
              what,
              agent,
              lo,
              hi,
              line));
  }

  /** Adds to {@code wrong} if the agent's figure is off the application's by more than allowed. */
  static void within(
      List<String> wrong,
      String what,
      double agent,
      double truth,
      double rel,
      double abs,
      String line) {
    double err = Math.abs(agent - truth);
    if (!(err <= Math.max(rel * Math.abs(truth), abs)))
      wrong.add(
          String.format(
              Locale.ROOT,
              "%s: agent %.5f, application %.5f (%+.1f%%): %s",
              what,
              agent,
              truth,
              100 * (agent - truth) / truth,
              line));
  }

  static Map<String, Object> pool(AttachClient agent, String prefix) throws Exception {
    for (Map<String, Object> p : agent.pools()) {
      if (String.valueOf(p.get("Name")).equals(prefix)) return p;
    }
    throw new AssertionError("no pool " + prefix + " in " + agent.pools());
  }

  static Map<String, Double> truth(String line) {
    Map<String, Double> m = new HashMap<>();
    for (String kv : line.substring("TRUTH ".length()).split(" ")) {
      String[] p = kv.split("=");
      m.put(p[0], Double.parseDouble(p[1]));
    }
    return m;
  }

  static double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : Double.NaN;
  }
}

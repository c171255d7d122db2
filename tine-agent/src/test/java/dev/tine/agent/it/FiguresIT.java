package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.top.AttachClient;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The agent's figures against the application's own timings of the same tasks over the agent's
 * window ({@link TruthScenario}), attached into pools whose threads were idle: a reused task object
 * (Wq), tasks that throw (S), µs tasks (S), and λ and L = λ·(Wq + S) for each.
 */
class FiguresIT {
  static final String TEST_CLASSES = System.getProperty("it.test.classes", "target/test-classes");

  @Test
  void attachedFiguresMatchTheApplicationsOwnTimings() throws Exception {
    StringBuilder report = new StringBuilder();
    List<String> wrong = new java.util.ArrayList<>();
    try (ChildJvm app =
        ChildJvm.java(List.of("-Xmx256m"), TEST_CLASSES, TruthScenario.class.getName())) {
      long pid = Long.parseLong(app.expect("READY", 60).split(" ")[1]);
      // READY comes once every pool thread is parked in getTask (TruthScenario waits for it)
      try (AttachClient agent =
          AttachClient.attach(pid, ChildJvm.agentJar(), "window=4,quiet=true")) {
        for (String mode : List.of("reuse", "throwing", "micro")) {
          app.send("run " + mode + " 9");
          Thread.sleep(7_000);
          Map<String, Object> p = pool(agent, mode);
          long to = ((Number) p.get("MeasuredAtMillis")).longValue();
          long from = to - Math.round(((Number) p.get("WindowSeconds")).doubleValue() * 1000);
          app.send("truth " + from + " " + to);
          Map<String, Double> t = truth(app.expect("TRUTH", 30));
          app.expect("DONE " + mode, 30);
          double s = num(p.get("ServiceMillis")), wq = num(p.get("WaitMillis"));
          double lambda = num(p.get("ArrivalRate")), l = num(p.get("LittlesL"));
          String line =
              String.format(
                  Locale.ROOT,
                  "%-8s agent λ=%.1f/s S=%.4g ms Wq=%.4g ms L=%.3f | application λ=%.1f/s S=%.4g ms"
                      + " Wq=%.4g ms λ·(Wq+S)=%.3f, time average %.3f (%d tasks)",
                  mode,
                  lambda,
                  s,
                  wq,
                  l,
                  t.get("rate"),
                  t.get("service_ms"),
                  t.get("wait_ms"),
                  t.get("rate") * (t.get("wait_ms") + t.get("service_ms")) / 1000,
                  t.get("l"),
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
          within(wrong, mode + " λ", lambda, t.get("rate"), 0.05, 0, line);
          within(
              wrong,
              mode + " S",
              s,
              t.get("service_ms"),
              mode.equals("micro") ? 0.20 : 0.10,
              mode.equals("micro") ? 0 : 0.2,
              line);
          within(
              wrong,
              mode + " Wq",
              wq,
              t.get("wait_ms"),
              0.10,
              mode.equals("micro") ? 0.01 : 0.2,
              line);
          // L = λ·(Wq + S) from the application's own λ, Wq and S. (Its time average of tasks in
          // the pool over the same few seconds, printed as the time average, is Little's law only
          // when the
          // window is steady; on a loaded box a stall at its edge moves it by tens of percent.)
          double lApp = t.get("rate") * (t.get("wait_ms") + t.get("service_ms")) / 1000;
          within(wrong, mode + " L", l, lApp, 0.10, 0.01, line);
        }
      }
      app.send("quit");
      app.waitFor(30);
    }
    System.out.println(report);
    assertTrue(wrong.isEmpty(), String.join("\n", wrong) + "\n" + report);
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

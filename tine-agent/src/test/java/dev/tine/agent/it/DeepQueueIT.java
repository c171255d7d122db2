package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.top.AttachClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Wq and L in deep queues ({@link DeepQueueScenario}): bursts of 5,000 and 50,000 tasks queued at
 * once in a FIFO pool, attached while the pools' threads were idle; the agent's figures over its
 * window against the tasks' own log of the same window. The pending table holds 1,024 arrivals a
 * pool; beyond, the arrival curve takes them (the longest waits are the ones a table would drop).
 */
class DeepQueueIT {
  @Test
  void waitAndLittlesLInBurstsOf5000And50000QueuedMatchTheTasksOwnLog() throws Exception {
    StringBuilder report = new StringBuilder();
    List<String> wrong = new ArrayList<>();
    try (ChildJvm app =
        ChildJvm.java(
            List.of("-Xmx512m"), FiguresIT.TEST_CLASSES, DeepQueueScenario.class.getName())) {
      long pid = Long.parseLong(app.expect("READY", 60).split(" ")[1]);
      try (AttachClient agent =
          AttachClient.attach(pid, ChildJvm.agentJar(), "window=4,quiet=true")) {
        // pool, depth, period between bursts (ms): each burst drains in about 0.3 s (5,000) and 3
        // s (50,000) on 4 threads, so the queue is that deep at each burst's end; every 4 s window
        // holds a burst
        for (Object[] run : new Object[][] {{"five", 5_000, 700}, {"fifty", 50_000, 3_500}}) {
          String pool = (String) run[0];
          int depth = (int) run[1];
          app.send("run " + pool + " " + depth + " " + run[2] + " 14");
          for (int read = 0; read < 2; read++) {
            Thread.sleep(read == 0 ? 9_000 : 4_500);
            Map<String, Object> p = FiguresIT.pool(agent, pool);
            long to = ((Number) p.get("MeasuredAtMillis")).longValue();
            long from = to - Math.round(((Number) p.get("WindowSeconds")).doubleValue() * 1000);
            app.send("truth " + from + " " + to);
            Map<String, Double> t = FiguresIT.truth(app.expect("TRUTH", 60));
            double s = FiguresIT.num(p.get("ServiceMillis")),
                wq = FiguresIT.num(p.get("WaitMillis"));
            double lambda = FiguresIT.num(p.get("ArrivalRate")),
                l = FiguresIT.num(p.get("LittlesL"));
            double lApp = t.get("rate") * (t.get("wait_ms") + t.get("service_ms")) / 1000;
            String line =
                String.format(
                    Locale.ROOT,
                    "%-5s window %d: agent λ=%.1f/s S=%.4g ms Wq=%.4g ms (p99 %.4g, max %.4g) L=%.2f"
                        + " | tasks' log λ=%.1f/s S=%.4g ms Wq=%.4g ms (max %.4g) λ·(Wq+S)=%.2f,"
                        + " time average %.2f (%d tasks, queue up to %d)",
                    pool,
                    read,
                    lambda,
                    s,
                    wq,
                    FiguresIT.num(p.get("WaitP99Millis")),
                    FiguresIT.num(p.get("WaitMaxMillis")),
                    l,
                    t.get("rate"),
                    t.get("service_ms"),
                    t.get("wait_ms"),
                    t.get("max_wait_ms"),
                    lApp,
                    t.get("l"),
                    t.get("tasks").longValue(),
                    t.get("peak_queue").longValue());
            report.append(line).append('\n');
            System.out.println(line);
            // the queue was as deep as claimed (else the test tests nothing)
            if (t.get("peak_queue") < depth * 0.9)
              wrong.add(pool + ": queue only up to " + t.get("peak_queue") + ": " + line);
            FiguresIT.within(wrong, pool + " λ", lambda, t.get("rate"), 0.05, 0, line);
            FiguresIT.within(wrong, pool + " S", s, t.get("service_ms"), 0.10, 0.2, line);
            FiguresIT.within(wrong, pool + " Wq", wq, t.get("wait_ms"), 0.05, 0, line);
            FiguresIT.within(wrong, pool + " L", l, lApp, 0.05, 0, line);
          }
          Thread.sleep(2_000); // the run's end (its DONE line may have been read past)
        }
      }
      app.send("quit");
      app.waitFor(30);
    }
    System.out.println(report);
    assertTrue(wrong.isEmpty(), String.join("\n", wrong) + "\n" + report);
  }
}

package dev.tine.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Against hand-computed M/M/c values: λ = 800/s, S = 10 ms (offered load a = 8). */
class PoolSizeAdvisorTest {
  static final double A = 8.0, S = 10.0;

  @Test
  void erlangCAtTenThreads() {
    assertEquals(0.41, PoolSizeAdvisor.erlangC(10, A), 0.005);
    assertEquals(2.0, PoolSizeAdvisor.meanWait(10, A, S), 0.06);
    assertEquals(7.0, PoolSizeAdvisor.waitPercentile(10, A, S, 0.90), 0.1);
  }

  @Test
  void erlangCAtNineAndTwelveThreads() {
    assertEquals(0.65, PoolSizeAdvisor.erlangC(9, A), 0.005);
    assertEquals(6.5, PoolSizeAdvisor.meanWait(9, A, S), 0.1);
    assertEquals(18.8, PoolSizeAdvisor.waitPercentile(9, A, S, 0.90), 0.1);
    assertEquals(0.14, PoolSizeAdvisor.erlangC(12, A), 0.005);
    assertEquals(0.35, PoolSizeAdvisor.meanWait(12, A, S), 0.01);
    assertEquals(0.84, PoolSizeAdvisor.waitPercentile(12, A, S, 0.90), 0.02);
  }

  @Test
  void singleServerIsMM1() {
    // M/M/1: P(wait) = ρ, E[Wq] = ρ S / (1 − ρ)
    assertEquals(0.5, PoolSizeAdvisor.erlangC(1, 0.5), 1e-12);
    assertEquals(10.0, PoolSizeAdvisor.meanWait(1, 0.5, 10), 1e-9);
  }

  @Test
  void recommendsTenForP90Under10ms() {
    var r =
        PoolSizeAdvisor.advise(
            new PoolSizeAdvisor.Inputs(800, 10, Double.NaN, 2, 0.8, 90, 10, 1000));
    assertEquals(10, r.poolSize());
    String text = r.toString();
    assertTrue(text.startsWith("recommended pool size: 10"), text);
    assertTrue(text.contains("c = 9") && text.contains("18.8"), text);
  }

  @Test
  void utilizationTargetWithoutWaitTarget() {
    var r =
        PoolSizeAdvisor.advise(
            new PoolSizeAdvisor.Inputs(800, 10, Double.NaN, 2, 0.8, Double.NaN, Double.NaN, 1000));
    assertEquals(10, r.poolSize()); // ceil(8 / 0.8)
  }

  @Test
  void goetzAndCpuCheck() {
    // 100/s × 1 ms CPU of a 10 ms service on 2 cores: 0.1 cores of CPU; Goetz 2 × 0.8 × (1 + 9) =
    // 16
    var r =
        PoolSizeAdvisor.advise(
            new PoolSizeAdvisor.Inputs(100, 10, 1, 2, 0.8, Double.NaN, Double.NaN, 1000));
    assertEquals(16.0, (Double) r.figures().get("goetz_size"), 1e-9);
    assertEquals(0.1, (Double) r.figures().get("cpu_demand_cores"), 1e-9);
    // 800/s × 5 ms CPU = 4 cores needed on 2: infeasible at any size
    PoolSizeAdvisor.NoSizeFits e =
        assertThrows(
            PoolSizeAdvisor.NoSizeFits.class,
            () ->
                PoolSizeAdvisor.advise(
                    new PoolSizeAdvisor.Inputs(800, 10, 5, 2, 0.8, Double.NaN, Double.NaN, 1000)));
    assertEquals(PoolSizeAdvisor.NoSizeFits.Limit.CPU_CAPACITY, e.limit(), e.getMessage());
    assertEquals(4.0, e.cpuDemandCores(), 1e-9, e.getMessage());
    assertTrue(e.getMessage().contains("CPU"), e.getMessage());
  }

  @Test
  void badInputIsRejectedWithAMessage() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new PoolSizeAdvisor.Inputs(-1, 10, Double.NaN, 2, 0.8, Double.NaN, Double.NaN, 10));
    assertThrows(
        IllegalArgumentException.class,
        () -> new PoolSizeAdvisor.Inputs(800, 0, Double.NaN, 2, 0.8, Double.NaN, Double.NaN, 10));
    assertThrows(
        IllegalArgumentException.class,
        () -> new PoolSizeAdvisor.Inputs(800, 10, Double.NaN, 2, 0.8, 90, Double.NaN, 10));
    PoolSizeAdvisor.NoSizeFits e =
        assertThrows(
            PoolSizeAdvisor.NoSizeFits.class,
            () ->
                PoolSizeAdvisor.advise(
                    new PoolSizeAdvisor.Inputs(800, 10, Double.NaN, 2, 0.8, 90, 10, 9)));
    assertEquals(PoolSizeAdvisor.NoSizeFits.Limit.WAIT_TARGET, e.limit(), e.getMessage());
    assertTrue(e.getMessage().contains("no pool size up to 9"), e.getMessage());
    // a target of 1 task in flight at ρ ≤ 0.8 needs 10 threads: more than the maximum 9
    PoolSizeAdvisor.NoSizeFits u =
        assertThrows(
            PoolSizeAdvisor.NoSizeFits.class,
            () ->
                PoolSizeAdvisor.advise(
                    new PoolSizeAdvisor.Inputs(
                        800, 10, Double.NaN, 2, 0.8, Double.NaN, Double.NaN, 9)));
    assertEquals(PoolSizeAdvisor.NoSizeFits.Limit.MAX_POOL_SIZE, u.limit(), u.getMessage());
  }

  /**
   * A snapshot as a pool measured it: {@code seconds} long, λ arrivals/s of which λ completed,
   * service S and wait Wq (ms), no CPU figure, and no pool size (a pool without gauges), so that
   * the measured waits cannot be checked against the model at the measured size.
   */
  static ExecutorSnapshot snapshot(double lambda, double serviceMs, double waitMs, int queue) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (var c : ExecutorSnapshot.class.getRecordComponents()) {
      String k = c.getName().replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
      m.put(k, c.getType() == String.class ? "last 10 s" : 0);
    }
    double secs = 10, resp = serviceMs + waitMs;
    m.put("seconds", secs);
    m.put("arrivals", (long) (lambda * secs));
    m.put("completed", (long) (lambda * secs));
    m.put("arrival_rate", lambda);
    m.put("retirement_rate", lambda);
    m.put("avg_service_ms", serviceMs);
    m.put("avg_wait_ms", waitMs);
    m.put("avg_response_ms", resp);
    m.put("littles_l", lambda * resp / 1000);
    m.put("dead_time_ratio", waitMs / resp);
    m.put("cpu_utilization", -1);
    m.put("processors", 2);
    m.put("pool_size", -1);
    m.put("queue_length", queue);
    m.put("pool_cpu_utilization", -1);
    return ExecutorSnapshot.fromMap(m);
  }

  @Test
  void snapshotsRoundTripThroughTheirMap() {
    ExecutorSnapshot s = snapshot(96, 10.4, 89.6, 9);
    assertEquals(s, ExecutorSnapshot.fromMap(s.toMap()));
    Map<String, Object> m = new LinkedHashMap<>(s.toMap());
    m.remove("avg_service_ms");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ExecutorSnapshot.fromMap(m));
    assertTrue(e.getMessage().contains("avg_service_ms"), e.getMessage());
  }

  /**
   * Pepperdine's case: 10 closed-loop clients on a pool of 1, dead time 89.6%. The throughput
   * (96/s) is what one thread let through; the load offered is the ~10 requests present (λ' = L /
   * S), so the answer is about 10 and flagged as a lower bound, not the 2 that the throttled λ
   * gives.
   */
  @Test
  void aSaturatedPoolIsSizedFromItsOfferedLoadAsALowerBound() {
    ExecutorSnapshot s = snapshot(96, 10.4, 89.6, 9);
    var throttled =
        PoolSizeAdvisor.advise(
            PoolSizeAdvisor.Inputs.fromSnapshot(
                s, 0.8, 90, 10.4, PoolSizeAdvisor.DEFAULT_MAX_POOL_SIZE));
    var r = PoolSizeAdvisor.adviseSnapshot(s);
    assertTrue(r.lowerBound(), r.toString());
    assertEquals(96 * 100 / 10.4, (Double) r.figures().get("estimated_arrival_rate"), 1e-6);
    assertTrue(r.poolSize() >= 10 && r.poolSize() <= 14, r.toString());
    assertTrue(throttled.poolSize() <= 3, "the throttled λ alone says " + throttled.poolSize());
    assertTrue(
        r.toString().startsWith("recommended pool size: at least " + r.poolSize()), r.toString());
    assertTrue(r.toString().contains("Lower bound"), r.toString());
  }

  /** An unsaturated pool gets exactly the plain answer with the default target. */
  @Test
  void anUnsaturatedPoolGetsThePlainAnswer() {
    ExecutorSnapshot s = snapshot(300, 2.9, 0.1, 0);
    var r = PoolSizeAdvisor.adviseSnapshot(s);
    var plain =
        PoolSizeAdvisor.advise(
            PoolSizeAdvisor.Inputs.fromSnapshot(
                s,
                PoolSizeAdvisor.DEFAULT_TARGET_UTILIZATION,
                PoolSizeAdvisor.DEFAULT_PERCENTILE,
                PoolSizeAdvisor.defaultMaxWaitMs(2.9),
                PoolSizeAdvisor.DEFAULT_MAX_POOL_SIZE));
    assertTrue(!r.lowerBound());
    assertEquals(plain.poolSize(), r.poolSize());
    assertEquals(plain.reasoning(), r.reasoning());
  }

  /** With C known, the answer says which of Goetz's figure and the recommendation wins, and why. */
  @Test
  void saysWhetherGoetzOrTheRecommendationWins() {
    var below =
        PoolSizeAdvisor.advise(new PoolSizeAdvisor.Inputs(100, 10, 1, 2, 0.8, 90, 10, 1000));
    assertTrue(
        below.toString().contains("Which wins: " + below.poolSize() + ", for the wait target"),
        below.toString());
    assertTrue(below.toString().contains("Goetz's figure is a ceiling"), below.toString());
    var above = PoolSizeAdvisor.advise(new PoolSizeAdvisor.Inputs(300, 5, 4, 2, 0.8, 90, 1, 1000));
    assertTrue(above.toString().contains("It is more than Goetz's"), above.toString());
    // 60% CPU: the extra threads do not wait for a CPU, and the answer does not say they do
    assertTrue(!above.toString().contains("wait for a CPU"), above.toString());
    var busy = PoolSizeAdvisor.advise(new PoolSizeAdvisor.Inputs(450, 5, 4, 2, 0.8, 90, 1, 1000));
    assertTrue(
        busy.toString().contains("90% busy: the extra threads would mostly wait for a CPU"),
        busy.toString());
  }

  @Test
  void oneThreadIsSingular() {
    var r =
        PoolSizeAdvisor.advise(new PoolSizeAdvisor.Inputs(10, 10, Double.NaN, 2, 0.8, 90, 10, 100));
    assertTrue(r.toString().contains("at least 1 thread."), r.toString());
    assertTrue(!r.toString().contains("1 threads"), r.toString());
  }
}

package dev.tine.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                PoolSizeAdvisor.advise(
                    new PoolSizeAdvisor.Inputs(800, 10, 5, 2, 0.8, Double.NaN, Double.NaN, 1000)));
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
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                PoolSizeAdvisor.advise(
                    new PoolSizeAdvisor.Inputs(800, 10, Double.NaN, 2, 0.8, 90, 10, 9)));
    assertTrue(e.getMessage().contains("no pool size up to 9"), e.getMessage());
  }
}

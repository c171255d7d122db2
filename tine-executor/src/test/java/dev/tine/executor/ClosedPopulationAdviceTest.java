package dev.tine.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The advisor against the pool-sizing experiment's own snapshots: closed-loop runs of 1 and 10
 * clients on pools of 1, 4, 8 and self-sizing, as {@code tine experiment pool-sizing --quick
 * --snapshots DIR} saved them (real measurements on a busy 2-vCPU box, kept as test resources), and
 * an open-loop run of this test's own. Every answer must agree with the wait it measured: at most
 * the measured size when the measured p90 wait met the target there, more when it did not.
 */
class ClosedPopulationAdviceTest {
  static final String[] RUNS = {"1", "4", "8", "adaptive"};

  static ExecutorSnapshot load(String name) throws IOException {
    try (InputStream in =
        ClosedPopulationAdviceTest.class.getResourceAsStream("pool-sizing/" + name + ".json")) {
      if (in == null) throw new IOException("no resource " + name);
      String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      // flat objects of numbers and one string: enough of JSON for a snapshot
      Map<String, Object> m = new LinkedHashMap<>();
      Matcher e = Pattern.compile("\"(\\w+)\"\\s*:\\s*(\"[^\"]*\"|[-0-9.eE+]+)").matcher(json);
      while (e.find()) {
        String v = e.group(2);
        m.put(e.group(1), v.startsWith("\"") ? v.substring(1, v.length() - 1) : Double.valueOf(v));
      }
      return ExecutorSnapshot.fromMap(m);
    }
  }

  /** The measured p90 wait and the answer agree: ≤ the measured size iff the target was met. */
  static void assertAgrees(ExecutorSnapshot s, PoolSizeAdvisor.Recommendation r, String what) {
    double target = PoolSizeAdvisor.defaultMaxWaitMs(s.avgServiceMs());
    if (s.p90WaitMs() <= target)
      assertTrue(
          r.poolSize() <= s.poolSize(),
          what
              + ": measured p90 "
              + s.p90WaitMs()
              + " ms met the target at "
              + s.poolSize()
              + "\n"
              + r);
    else
      assertTrue(
          r.poolSize() > s.poolSize(),
          what
              + ": measured p90 "
              + s.p90WaitMs()
              + " ms missed the target at "
              + s.poolSize()
              + "\n"
              + r);
  }

  /**
   * Closed-loop runs: every row's answer agrees with its measured p90 wait, clients known or not.
   */
  @Test
  void everyClosedLoopRowAgreesWithItsMeasuredWait() throws IOException {
    for (int clients : new int[] {1, 10})
      for (String pool : RUNS) {
        String name = "clients-" + clients + "-pool-" + pool;
        ExecutorSnapshot s = load(name);
        assertAgrees(s, PoolSizeAdvisor.adviseSnapshot(s), name);
        var known = PoolSizeAdvisor.adviseSnapshot(s, clients);
        assertAgrees(s, known, name + " (" + clients + " clients known)");
        assertTrue(known.poolSize() <= clients, name + ": more threads than clients\n" + known);
        assertEquals(true, known.figures().get("closed_population"), known.toString());
      }
  }

  /**
   * One client on a pool of 1 waited 0.1 ms at p90; M/M/c, taking the arrivals for an open stream
   * at ρ = 0.98, predicts 339 ms and 3 threads. The answer is 1, and says why.
   */
  @Test
  void oneClientOnAPoolOfOneNeedsOneThread() throws IOException {
    ExecutorSnapshot s = load("clients-1-pool-1");
    var mmc =
        PoolSizeAdvisor.advise(
            PoolSizeAdvisor.Inputs.fromSnapshot(
                s, 0.8, 90, PoolSizeAdvisor.defaultMaxWaitMs(s.avgServiceMs()), 10_000));
    assertEquals(3, mmc.poolSize(), mmc.toString()); // what the advisor used to answer
    var r = PoolSizeAdvisor.adviseSnapshot(s);
    assertEquals(1, r.poolSize(), r.toString());
    assertFalse(r.lowerBound(), r.toString());
    String text = r.toString();
    assertTrue(text.startsWith("recommended pool size: 1" + System.lineSeparator()), text);
    assertTrue(text.contains("Fewer waits than M/M/c predicts"), text);
    assertTrue(text.contains("closed or throttled"), text);
    assertFalse(text.contains("wait for a CPU"), text); // 31% CPU
    assertEquals(1, PoolSizeAdvisor.adviseSnapshot(s, 1).poolSize());
  }

  /**
   * Ten clients: a closed population never has more than 10 tasks in the pool, so no answer passes
   * 10, and a saturated pool of 1 (dead time 89%) still gets more threads, as its measured 38 ms
   * p90 wait demands.
   */
  @Test
  void tenClientsNeverNeedMoreThanTenThreads() throws IOException {
    for (String pool : RUNS) {
      ExecutorSnapshot s = load("clients-10-pool-" + pool);
      var r = PoolSizeAdvisor.adviseSnapshot(s, 10);
      assertTrue(r.poolSize() <= 10, r.toString());
      assertTrue(r.toString().contains("Closed population: 10 clients"), r.toString());
    }
    var one = PoolSizeAdvisor.adviseSnapshot(load("clients-10-pool-1"));
    assertTrue(one.poolSize() > 1 && one.poolSize() <= 10, one.toString());
    assertTrue(one.lowerBound(), one.toString());
  }

  /**
   * An open stream whose measured waits are what M/M/c predicts gets M/M/c's answer, unchanged: the
   * closed-population path is taken only when the measurement contradicts the model.
   */
  @Test
  void anOpenLoadThatWaitsAsPredictedGetsTheMmcAnswer() {
    // λ = 800/s, S = 10 ms on 9 threads: M/M/c predicts p90 = 18.8 ms, E[Wq] = 6.5 ms; measured so.
    ExecutorSnapshot s = snapshot(800, 10, 6.5, 18.8, 9);
    var r = PoolSizeAdvisor.adviseSnapshot(s);
    assertEquals(10, r.poolSize(), r.toString());
    assertFalse(r.figures().containsKey("closed_population"), r.toString());
    assertAgrees(s, r, "open, as predicted");
    // the same figures, but hardly any wait measured: a throttled load, at most the 9 measured
    ExecutorSnapshot quiet = snapshot(800, 10, 0.2, 0.5, 9);
    var q = PoolSizeAdvisor.adviseSnapshot(quiet);
    assertTrue(q.poolSize() <= 9, q.toString());
    assertEquals(true, q.figures().get("closed_population"), q.toString());
  }

  /**
   * A live open-loop run: Poisson arrivals of tasks that sleep an exponential time, on a pool of 2
   * at ρ ≈ 0.8. Whatever this machine made of it, the answer agrees with the wait it measured.
   */
  @Test
  void aLiveOpenLoopRunGetsAnAnswerThatAgreesWithItsWait() throws Exception {
    try (MeasuredExecutor ex =
        MeasuredExecutor.builder()
            .name("open-loop")
            .registerMXBean(false)
            .poolSize(2)
            .tick(Duration.ofMillis(100))
            .window(Duration.ofMillis(1000))
            .build()) {
      SplittableRandom rnd = new SplittableRandom(31);
      double lambda = 400, serviceMs = 4;
      long start = System.nanoTime(), next = start, end = start + 1_300_000_000L;
      while (next < end) {
        next += (long) (-Math.log(1 - rnd.nextDouble()) / lambda * 1e9);
        long sleepNanos = (long) (-Math.log(1 - rnd.nextDouble()) * serviceMs * 1e6);
        LockSupport.parkNanos(next - System.nanoTime()); // behind schedule: submit at once (open)
        ex.execute(() -> LockSupport.parkNanos(sleepNanos));
      }
      ExecutorSnapshot s = ex.windowSnapshot();
      var r = PoolSizeAdvisor.adviseSnapshot(s);
      assertAgrees(s, r, "open loop, pool 2");
    }
  }

  /**
   * The finite-source queue against what is known of it: two clients on one thread (the other is
   * present with probability S/(Z + S), and then the wait is one service); no wait once every
   * client has a thread; and the open M/M/c as the population grows at a fixed arrival rate.
   */
  @Test
  void theFiniteSourceQueueMatchesItsKnownCases() {
    double s = 4, z = 6;
    assertEquals(s / (z + s), FiniteSourceQueue.waitProbability(2, 1, s, z), 1e-12);
    assertEquals(s / (z + s) * s, FiniteSourceQueue.meanWait(2, 1, s, z), 1e-12);
    // P(W > t) = q·e^{-t/S}: the p90 is S·ln(10 q)
    assertEquals(
        s * Math.log(10 * s / (z + s)), FiniteSourceQueue.waitPercentile(2, 1, s, z, 0.9), 1e-9);
    assertEquals(0, FiniteSourceQueue.meanWait(10, 10, s, z));
    assertEquals(0, FiniteSourceQueue.waitPercentile(10, 10, s, 0, 0.99));
    assertEquals(9 * s, FiniteSourceQueue.meanWait(10, 1, s, 0), 1e-9); // no think time: 9 ahead
    // 2000 clients thinking 2000/800 s: λ ≈ 800/s, S = 10 ms, c = 10 (M/M/c: E[Wq] 2.0, p90 7.0 ms)
    int n = 2000;
    double think = n / 0.8 - 10; // in ms, so that λ·(Z + R) ≈ N
    assertEquals(
        PoolSizeAdvisor.meanWait(10, 8, 10), FiniteSourceQueue.meanWait(n, 10, 10, think), 0.15);
    assertEquals(
        PoolSizeAdvisor.waitPercentile(10, 8, 10, 0.9),
        FiniteSourceQueue.waitPercentile(n, 10, 10, think, 0.9),
        0.4);
  }

  /** A snapshot of a pool of {@code pool} threads: λ, S, mean and p90 wait; no CPU figure. */
  static ExecutorSnapshot snapshot(
      double lambda, double serviceMs, double waitMs, double p90WaitMs, int pool) {
    Map<String, Object> m =
        new LinkedHashMap<>(PoolSizeAdvisorTest.snapshot(lambda, serviceMs, waitMs, 0).toMap());
    m.put("p90_wait_ms", p90WaitMs);
    m.put("pool_size", pool);
    return ExecutorSnapshot.fromMap(m);
  }
}

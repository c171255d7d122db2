package dev.tine.bench.experiments;

import dev.tine.executor.ExecutorSnapshot;
import dev.tine.executor.MeasuredExecutor;
import dev.tine.executor.PoolSizeAdvisor;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Pepperdine's article: a server whose requests either compute (√2 to many digits) or sleep (a call
 * to an external system), run on a {@link MeasuredExecutor}; 1 or 10 closed-loop clients (send,
 * wait for the answer, send again) for a fixed time, against pool sizes 1, 4, 8 and self-sizing.
 * Each run reports Pepperdine's article's figures and what the {@link PoolSizeAdvisor} recommends
 * from them.
 */
public final class PoolSizing {
  /** One run's figures. {@code poolSize} is a number or "adaptive". */
  public record Result(
      int clients,
      String poolSize,
      int finalPoolSize,
      long completed,
      double throughputRps,
      double littlesL,
      double deadTimeRatio,
      double cpuUtilization,
      double p90WaitMs,
      double avgServiceMs,
      String advice,
      ExecutorSnapshot snapshot,
      List<Integer> sizes,
      double settledAfterSec) {
    public Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("clients", clients);
      m.put(
          "pool_size",
          poolSize.equals("adaptive") ? "adaptive" : (Object) Integer.parseInt(poolSize));
      m.put("final_pool_size", finalPoolSize);
      m.put("completed", completed);
      m.put("throughput_rps", throughputRps);
      m.put("littles_l", littlesL);
      m.put("dead_time_ratio", deadTimeRatio);
      m.put("cpu_utilization", cpuUtilization);
      m.put("p90_wait_ms", p90WaitMs);
      m.put("avg_service_ms", avgServiceMs);
      m.put("advice", advice);
      m.put("pool_sizes_per_tick", sizes);
      m.put("settled_after_s", settledAfterSec);
      return m;
    }
  }

  static final Duration TICK = Duration.ofMillis(250);
  private final Duration warmup;
  private final Duration perRun;
  private final int cpuDigits, sleepMs;
  private final double cpuShare;

  /**
   * @param warmup run before measuring, the same for every configuration (self-sizing converges in
   *     it; its convergence time is reported separately)
   * @param perRun measured period after the warm-up
   */
  public PoolSizing(Duration warmup, Duration perRun, int cpuDigits, int sleepMs, double cpuShare) {
    this.warmup = warmup;
    this.perRun = perRun;
    this.cpuDigits = cpuDigits;
    this.sleepMs = sleepMs;
    this.cpuShare = cpuShare;
  }

  public List<Result> run(int[] clientCounts, List<String> sizes, PrintStream progress)
      throws Exception {
    List<Result> out = new ArrayList<>();
    runOne(1, "4", Duration.ZERO, Duration.ofMillis(300)); // JIT the work and the loopback path
    for (int clients : clientCounts) {
      for (String size : sizes) {
        if (progress != null)
          progress.printf(
              "  %d %s, pool %s ...%n", clients, clients == 1 ? "client" : "clients", size);
        out.add(runOne(clients, size, warmup, perRun));
      }
    }
    return out;
  }

  Result runOne(int clients, String size, Duration warm, Duration duration) throws Exception {
    boolean adaptive = size.equals("adaptive");
    MeasuredExecutor.Builder b =
        MeasuredExecutor.builder()
            .name("pool-sizing")
            .registerMXBean(false)
            .tick(TICK)
            .window(duration);
    if (adaptive) {
      b.poolSize(1).selfSizing(1, 64);
    } else {
      b.poolSize(Integer.parseInt(size));
    }
    try (MeasuredExecutor ex = b.build();
        RequestServer server = new RequestServer(ex)) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong answers = new AtomicLong();
      List<Thread> ts = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        long seed = 31L * c + 7;
        ts.add(
            Thread.ofPlatform()
                .daemon()
                .name("client-" + c)
                .start(() -> client(server.port(), seed, stop, answers)));
      }
      // Measure the last `duration`: align the end with a tick so the window holds whole ticks.
      Thread.sleep(warm.toMillis() + duration.toMillis());
      ExecutorSnapshot s = warm.isZero() ? ex.snapshot() : ex.windowSnapshot();
      stop.set(true);
      for (Thread t : ts) t.join(10_000);
      List<Integer> sizes = ex.sizeHistory();
      int fin = sizes.isEmpty() ? ex.poolSize() : sizes.get(sizes.size() - 1);
      int settled = sizes.size();
      while (settled > 0 && Math.abs(sizes.get(settled - 1) - fin) <= 1) settled--;
      double settledAfter = settled * TICK.toMillis() / 1000.0;
      String advice;
      try {
        // the same call, with the same default target, as 'tine advise --snapshot F --clients N'
        var r = PoolSizeAdvisor.adviseSnapshot(s, clients);
        advice = (r.lowerBound() ? "≥" : "") + r.poolSize();
      } catch (IllegalArgumentException e) {
        advice = "n/a: " + e.getMessage();
      }
      return new Result(
          clients,
          size,
          fin,
          s.completed(),
          s.completed() / s.seconds(),
          s.littlesL(),
          s.deadTimeRatio(),
          s.cpuUtilization(),
          s.p90WaitMs(),
          s.avgServiceMs(),
          advice,
          s,
          sizes,
          settledAfter);
    }
  }

  /** A closed-loop client: one request at a time, until told to stop. */
  private void client(int port, long seed, AtomicBoolean stop, AtomicLong answers) {
    SplittableRandom r = new SplittableRandom(seed);
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
        DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()))) {
      while (!stop.get()) {
        boolean cpu = r.nextDouble() < cpuShare;
        out.writeByte(cpu ? RequestServer.CPU : RequestServer.SLEEP);
        out.writeInt(cpu ? cpuDigits : sleepMs);
        out.flush();
        in.readLong();
        answers.incrementAndGet();
      }
    } catch (IOException e) {
      // server closed at the end of the run
    }
  }

  public static void print(List<Result> rs, PrintStream out) {
    out.printf(
        Locale.ROOT,
        "%7s %9s %9s %8s %10s %12s %9s %10s %8s %11s %11s  %s%n",
        "clients",
        "pool",
        "final",
        "settled",
        "completed",
        "throughput/s",
        "Little L",
        "dead time",
        "CPU",
        "p90 wait ms",
        "service ms",
        "advisor");
    for (Result r : rs) {
      out.printf(
          Locale.ROOT,
          "%7d %9s %9d %7.2fs %10d %12.1f %9.2f %9.1f%% %7.0f%% %11.2f %11.2f  %s%n",
          r.clients,
          r.poolSize,
          r.finalPoolSize,
          r.settledAfterSec,
          r.completed,
          r.throughputRps,
          r.littlesL,
          100 * r.deadTimeRatio,
          100 * Math.max(0, r.cpuUtilization),
          r.p90WaitMs,
          r.avgServiceMs,
          r.advice);
    }
  }
}

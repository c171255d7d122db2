package dev.tine.agent.bench;

import dev.tine.agent.top.AttachClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The agent's overhead as a user meets it: the same program (a {@link ThreadPoolExecutor} of one
 * thread running tasks that spin for a given time, 256 in flight) timed in separate JVMs without
 * the agent, with {@code -javaagent}, and with the agent attached after the pool's thread has
 * started and warmed up, run in interleaved pairs (the box is shared and drifts), each variant's
 * wall time per task against the baseline of its own round.
 *
 * <p>{@code -javaagent, read over JMX} connects to an agent started with {@code -javaagent} as
 * {@code tine top} does (the JDK's local JMX connector, started through the Attach API), to
 * separate what that connector costs from what the attach itself costs.
 *
 * <p>A fifth variant, {@code attached (thread renewed)}, attaches the same way and then has the
 * application replace its pool's thread (one task that throws: the pool starts a new worker). It
 * separates what an attach costs in itself from what a thread pays for having been inside {@code
 * ThreadPoolExecutor.runWorker} when the class was retransformed: that frame keeps the method's old
 * version, which HotSpot does not compile again.
 *
 * <pre>
 * java -cp tine-agent/target/test-classes:tine-agent/target/classes:$(cat cp.txt) \
 *     dev.tine.agent.bench.PairedOverhead tine-agent/target/tine-agent.jar [rounds] [taskMicros] [tasks] \
 *     [variants, comma-separated]
 * </pre>
 */
public final class PairedOverhead {
  private PairedOverhead() {}

  /** The measured program: warms up, says READY, waits for a line, times its tasks. */
  public static final class Workload {
    private Workload() {}

    public static void main(String[] args) throws Exception {
      long taskNanos = Long.parseLong(args[0]) * 1000;
      int tasks = Integer.parseInt(args[1]);
      ThreadPoolExecutor pool =
          new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
      Semaphore inFlight = new Semaphore(256);
      Runnable spin =
          () -> {
            long end = System.nanoTime() + taskNanos;
            while (System.nanoTime() < end) Thread.onSpinWait();
            inFlight.release();
          };
      run(pool, inFlight, spin, tasks / 2); // warm up: the JIT, and the pool's thread
      System.out.println("READY " + ProcessHandle.current().pid());
      new BufferedReader(new InputStreamReader(System.in)).readLine();
      if (args.length > 2 && args[2].equals("renew")) {
        // the pool's thread ends (its task throws) and the pool starts a new one
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {});
        pool.execute(() -> {
          throw new IllegalStateException("renew the pool's thread");
        });
      }
      run(pool, inFlight, spin, tasks / 10); // a settled start after an attach
      var os =
          (com.sun.management.OperatingSystemMXBean)
              java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      long c0 = os.getProcessCpuTime(), t0 = System.nanoTime();
      run(pool, inFlight, spin, tasks);
      long t = System.nanoTime() - t0, c = os.getProcessCpuTime() - c0;
      System.out.printf(
          Locale.ROOT,
          "NS_PER_TASK %.1f CPU_NS_PER_TASK %.1f%n",
          (double) t / tasks,
          (double) c / tasks);
      pool.shutdown();
    }

    static void run(ThreadPoolExecutor pool, Semaphore inFlight, Runnable spin, int n)
        throws InterruptedException {
      for (int i = 0; i < n; i++) {
        inFlight.acquire();
        pool.execute(spin);
      }
      inFlight.acquire(256);
      inFlight.release(256);
    }
  }

  public static void main(String[] args) throws Exception {
    Path jar =
        Path.of(args.length > 0 ? args[0] : "tine-agent/target/tine-agent.jar").toAbsolutePath();
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int micros = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    int tasks = args.length > 3 ? Integer.parseInt(args[3]) : 200_000;
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // the workload alone on the class path: the application knows nothing of Tine
    String cp =
        Path.of(Workload.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .toString();
    Map<String, List<Double>> ratios = new LinkedHashMap<>(), cpuRatios = new LinkedHashMap<>();
    List<String> variants =
        List.of(
            "no agent",
            "-javaagent",
            "-javaagent, read over JMX",
            "attached",
            "attached (thread renewed)");
    // a fifth argument picks some ("no agent" always runs): their names, comma-separated
    if (args.length > 4) {
      List<String> picked = new ArrayList<>(List.of("no agent"));
      for (String v : variants) {
        for (String p : args[4].split(",")) {
          if (!v.equals("no agent") && v.equals(p.trim())) picked.add(v);
        }
      }
      variants = picked;
    }
    for (int r = 0; r < rounds; r++) {
      Map<String, Double> ns = new LinkedHashMap<>(), cpu = new LinkedHashMap<>();
      // rotate the order so no variant always runs first in a round
      for (int k = 0; k < variants.size(); k++) {
        String v = variants.get((k + r) % variants.size());
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m"));
        if (v.startsWith("-javaagent")) cmd.add("-javaagent:" + jar + "=quiet=true");
        boolean attach = v.startsWith("attached");
        if (attach) cmd.add("-XX:+EnableDynamicAgentLoading");
        cmd.addAll(
            List.of(
                "-cp",
                cp,
                Workload.class.getName(),
                Integer.toString(micros),
                Integer.toString(tasks),
                v.equals("attached (thread renewed)") ? "renew" : "keep"));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String ready = out.readLine();
        AttachClient c = null;
        long pid = Long.parseLong(ready.split(" ")[1]);
        if (attach) c = AttachClient.attach(pid, jar, "quiet=true");
        // as tine top reads an agent started with -javaagent: the JDK's local JMX connector
        if (v.equals("-javaagent, read over JMX"))
          c = AttachClient.attach(pid, jar, null, AttachClient.Mode.EXISTING);
        OutputStream in = p.getOutputStream();
        in.write('\n');
        in.flush();
        String line = out.readLine();
        if (c != null) c.close();
        p.waitFor();
        String[] w = line.split(" ");
        ns.put(v, Double.parseDouble(w[1]));
        cpu.put(v, Double.parseDouble(w[3]));
      }
      double base = ns.get("no agent");
      double cpuBase = cpu.get("no agent");
      System.out.printf(
          Locale.ROOT, "round %d: wall ns/task %s; process CPU ns/task %s%n", r + 1, ns, cpu);
      for (String v : variants.subList(1, variants.size())) {
        ratios.computeIfAbsent(v, x -> new ArrayList<>()).add(ns.get(v) / base - 1);
        cpuRatios
            .computeIfAbsent(v + " (CPU)", x -> new ArrayList<>())
            .add(cpu.get(v) / cpuBase - 1);
      }
    }
    ratios.putAll(cpuRatios);
    for (var e : ratios.entrySet()) {
      List<Double> l = new ArrayList<>(e.getValue());
      l.sort(null);
      System.out.printf(
          Locale.ROOT,
          "%s vs no agent, %d µs tasks, %d paired rounds: median %+.1f%%, range %+.1f%% .. %+.1f%%%n",
          e.getKey(),
          micros,
          l.size(),
          100 * l.get(l.size() / 2),
          100 * l.get(0),
          100 * l.get(l.size() - 1));
    }
  }
}

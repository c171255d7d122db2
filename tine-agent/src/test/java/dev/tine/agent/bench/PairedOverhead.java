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
 *     [variants, comma- or semicolon-separated] [settle tasks] [windows]
 * </pre>
 *
 * <p>After the attach (or, without one, the same moment) the workload runs {@code settle tasks}
 * untimed (default a tenth of {@code tasks}), then {@code windows} consecutive timed windows of
 * {@code tasks} each (default 1): with several, each window's figures are printed apart, so the
 * one-time cost of an attach (the JIT compiling the agent) shows in the first and what stays shows
 * in the later ones.
 *
 * <p>Each variant's process CPU is also split by the kind of thread that spent it (the submitter,
 * the pool's thread, the JIT compilers, GC, the agent's ticker), from {@code /proc/self/task}. The
 * variants named after a no-op agent load an agent that changes nothing ({@link NoopAgent}): they
 * separate what any agent loaded at run time makes the JVM pay from what the tine agent's advice
 * costs. {@code -Dpaired.jvmArgs="..."} adds JVM options to every variant.
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
      // a settled start after an attach (by default a tenth of the timed tasks)
      run(pool, inFlight, spin, args.length > 3 ? Integer.parseInt(args[3]) : tasks / 10);
      var os =
          (com.sun.management.OperatingSystemMXBean)
              java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      // consecutive timed windows of `tasks` tasks each: how the cost moves after an attach
      int windows = args.length > 4 ? Integer.parseInt(args[4]) : 1;
      for (int w = 0; w < windows; w++) {
        Map<String, Long> th0 = threadCpu();
        long c0 = os.getProcessCpuTime(), t0 = System.nanoTime();
        run(pool, inFlight, spin, tasks);
        long t = System.nanoTime() - t0, c = os.getProcessCpuTime() - c0;
        Map<String, Long> th1 = threadCpu();
        StringBuilder by = new StringBuilder();
        for (var e : th1.entrySet()) {
          double d = (e.getValue() - th0.getOrDefault(e.getKey(), 0L)) / (double) tasks;
          by.append(' ')
              .append(e.getKey())
              .append('=')
              .append(String.format(Locale.ROOT, "%.1f", d));
        }
        System.out.printf(
            Locale.ROOT,
            "NS_PER_TASK %.1f CPU_NS_PER_TASK %.1f THREADS%s%n",
            (double) t / tasks,
            (double) c / tasks,
            by);
      }
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

    /**
     * CPU nanoseconds of this process's threads by kind (Linux: {@code /proc/self/task}), the JVM's
     * own threads included (compilers, GC), which {@code ThreadMXBean} does not list; empty
     * elsewhere.
     */
    static Map<String, Long> threadCpu() {
      Map<String, Long> by = new java.util.TreeMap<>();
      java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
      if (tasks == null) return by;
      for (java.io.File task : tasks) {
        try {
          String name = java.nio.file.Files.readString(task.toPath().resolve("comm")).strip();
          // schedstat's first field: nanoseconds on a CPU
          String[] f =
              java.nio.file.Files.readString(task.toPath().resolve("schedstat")).strip().split(" ");
          by.merge(kind(name), Long.parseLong(f[0]), Long::sum);
        } catch (java.io.IOException | RuntimeException e) {
          // the thread ended between the listing and the read
        }
      }
      return by;
    }

    static String kind(String thread) {
      // the launcher's threads keep its name on Linux: the main thread is "java"
      if (thread.equals("java") || thread.equals("main")) return "submitter";
      if (thread.startsWith("pool-")) return "pool";
      if (thread.startsWith("C1 Compiler") || thread.startsWith("C2 Compiler")) return "jit";
      if (thread.startsWith("GC Thread") || thread.startsWith("G1 ")) return "gc";
      if (thread.equals("VM Thread")) return "vm";
      if (thread.startsWith("tine-")) return "agent";
      return "other";
    }
  }

  /**
   * An agent that changes no class, for telling apart what any agent loaded at run time makes the
   * JVM pay from what the tine agent's advice costs. Its argument: {@code caps} does nothing (the
   * JVM has only granted the agent jar's capabilities), {@code unused} retransforms a class the
   * workload never runs (HotSpot's first redefinition in a JVM whose agent came late throws away
   * every compiled method: the compiler had not recorded what each one inlined), {@code tpe}
   * retransforms {@code ThreadPoolExecutor} and its worker unchanged.
   */
  public static final class NoopAgent {
    private NoopAgent() {}

    public static void premain(String args, java.lang.instrument.Instrumentation inst)
        throws Exception {
      agentmain(args, inst);
    }

    public static void agentmain(String args, java.lang.instrument.Instrumentation inst)
        throws Exception {
      if ("unused".equals(args)) inst.retransformClasses(java.util.zip.Adler32.class);
      if ("tpe".equals(args)) {
        inst.retransformClasses(
            ThreadPoolExecutor.class,
            Class.forName("java.util.concurrent.ThreadPoolExecutor$Worker"));
      }
    }

    /** A jar holding only a manifest that names this class (the class is on the class path). */
    static Path jar() throws java.io.IOException {
      Path jar = java.nio.file.Files.createTempFile("paired-noop-agent-", ".jar");
      jar.toFile().deleteOnExit();
      var mf = new java.util.jar.Manifest();
      var a = mf.getMainAttributes();
      a.put(java.util.jar.Attributes.Name.MANIFEST_VERSION, "1.0");
      a.putValue("Premain-Class", NoopAgent.class.getName());
      a.putValue("Agent-Class", NoopAgent.class.getName());
      a.putValue("Can-Retransform-Classes", "true");
      try (var out =
          new java.util.jar.JarOutputStream(java.nio.file.Files.newOutputStream(jar), mf)) {
        // nothing but the manifest
      }
      return jar;
    }
  }

  static final String NOOP_CAPS = "attached (no-op agent)";
  static final String NOOP_UNUSED = "attached (no-op agent: redefines an unused class)";
  static final String NOOP_TPE = "attached (no-op agent: redefines the pool's classes unchanged)";
  static final String NOOP_FIRST = "no-op -javaagent, then attached";
  static final String NOOP_TPE_RENEWED =
      "attached (no-op agent: redefines the pool's classes unchanged, thread renewed)";

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
    // process CPU per task by the kind of thread that spent it, per variant (ns, one per round)
    Map<String, Map<String, List<Double>>> byThread = new LinkedHashMap<>();
    List<String> variants =
        List.of(
            "no agent",
            "-javaagent",
            "-javaagent, read over JMX",
            "attached",
            "attached (thread renewed)",
            NOOP_CAPS,
            NOOP_UNUSED,
            NOOP_TPE,
            NOOP_TPE_RENEWED,
            NOOP_FIRST);
    if (args.length > 4) {
      List<String> picked = new ArrayList<>(List.of("no agent"));
      for (String v : variants) {
        // ";" where a name holds a comma
        for (String p : args[4].split(args[4].contains(";") ? ";" : ",")) {
          if (!v.equals("no agent") && v.equals(p.trim())) picked.add(v);
        }
      }
      variants = picked;
    } else {
      variants = variants.subList(0, 5); // the variants a user meets
    }
    String settle = args.length > 5 ? args[5] : Integer.toString(tasks / 10);
    int windows = args.length > 6 ? Integer.parseInt(args[6]) : 1;
    // per window: each variant's process CPU per task against no agent's in the same round
    List<Map<String, List<Double>>> windowCpu = new ArrayList<>();
    for (int i = 0; i < windows; i++) windowCpu.add(new LinkedHashMap<>());
    // more JVM options for every variant, e.g. -Dpaired.jvmArgs="-XX:+UnlockDiagnosticVMOptions
    // ..."
    List<String> jvmArgs = new ArrayList<>();
    for (String a : System.getProperty("paired.jvmArgs", "").split(" ")) {
      if (!a.isBlank()) jvmArgs.add(a);
    }
    Path noop = NoopAgent.jar();
    for (int r = 0; r < rounds; r++) {
      Map<String, Double> ns = new LinkedHashMap<>(), cpu = new LinkedHashMap<>();
      Map<String, List<Double>> perWindow = new LinkedHashMap<>();
      // rotate the order so no variant always runs first in a round
      for (int k = 0; k < variants.size(); k++) {
        String v = variants.get((k + r) % variants.size());
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m"));
        cmd.addAll(jvmArgs);
        if (v.startsWith("-javaagent")) cmd.add("-javaagent:" + jar + "=quiet=true");
        if (v.equals(NOOP_FIRST)) cmd.add("-javaagent:" + noop + "=caps");
        boolean attach = v.startsWith("attached") || v.equals(NOOP_FIRST);
        if (attach) cmd.add("-XX:+EnableDynamicAgentLoading");
        cmd.addAll(
            List.of(
                "-cp",
                cp,
                Workload.class.getName(),
                Integer.toString(micros),
                Integer.toString(tasks),
                v.contains("thread renewed") ? "renew" : "keep",
                settle,
                Integer.toString(windows)));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        // lines before (a JVM option's own output, such as JFR's) are not the workload's
        String ready = out.readLine();
        while (ready != null && !ready.startsWith("READY ")) ready = out.readLine();
        AttachClient c = null;
        long pid = Long.parseLong(ready.split(" ")[1]);
        if (v.startsWith("attached (no-op agent")) {
          var vm = com.sun.tools.attach.VirtualMachine.attach(Long.toString(pid));
          vm.loadAgent(
              noop.toString(),
              v.equals(NOOP_CAPS) ? "caps" : v.equals(NOOP_UNUSED) ? "unused" : "tpe"); // NOOP_TPE*
          vm.detach();
        } else if (attach) {
          c = AttachClient.attach(pid, jar, "quiet=true");
        }
        // as tine top reads an agent started with -javaagent: the JDK's local JMX connector
        if (v.equals("-javaagent, read over JMX"))
          c = AttachClient.attach(pid, jar, null, AttachClient.Mode.EXISTING);
        OutputStream in = p.getOutputStream();
        in.write('\n');
        in.flush();
        double nsSum = 0, cpuSum = 0;
        for (int i = 0; i < windows; i++) {
          String line = out.readLine();
          while (line != null && !line.startsWith("NS_PER_TASK ")) line = out.readLine();
          String[] w = line.split(" ");
          nsSum += Double.parseDouble(w[1]);
          cpuSum += Double.parseDouble(w[3]);
          perWindow.computeIfAbsent(v, x -> new ArrayList<>()).add(Double.parseDouble(w[3]));
          for (int j = 5; j < w.length; j++) {
            String[] kv = w[j].split("=");
            byThread
                .computeIfAbsent(
                    windows > 1 ? v + ", window " + (i + 1) : v, x -> new LinkedHashMap<>())
                .computeIfAbsent(kv[0], x -> new ArrayList<>())
                .add(Double.parseDouble(kv[1]));
          }
        }
        if (c != null) c.close();
        p.waitFor();
        ns.put(v, nsSum / windows);
        cpu.put(v, cpuSum / windows);
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
        for (int i = 0; i < windows; i++) {
          windowCpu
              .get(i)
              .computeIfAbsent(v, x -> new ArrayList<>())
              .add(perWindow.get(v).get(i) / perWindow.get("no agent").get(i) - 1);
        }
      }
    }
    if (windows > 1) {
      for (int i = 0; i < windows; i++) {
        StringBuilder b = new StringBuilder();
        for (var e : windowCpu.get(i).entrySet()) {
          List<Double> l = new ArrayList<>(e.getValue());
          l.sort(null);
          b.append(
              String.format(
                  Locale.ROOT,
                  "; %s %+.1f%% (%+.1f .. %+.1f)",
                  e.getKey(),
                  100 * l.get(l.size() / 2),
                  100 * l.get(0),
                  100 * l.get(l.size() - 1)));
        }
        System.out.printf(
            Locale.ROOT, "window %d, process CPU per task vs no agent, medians%s%n", i + 1, b);
      }
    }
    // where each variant's CPU went: median ns per task by kind of thread (Linux only)
    for (var e : byThread.entrySet()) {
      StringBuilder b = new StringBuilder();
      for (var k : e.getValue().entrySet()) {
        List<Double> l = new ArrayList<>(k.getValue());
        l.sort(null);
        b.append(String.format(Locale.ROOT, " %s %.0f", k.getKey(), l.get(l.size() / 2)));
      }
      System.out.printf(Locale.ROOT, "CPU ns/task by thread, medians, %s:%s%n", e.getKey(), b);
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

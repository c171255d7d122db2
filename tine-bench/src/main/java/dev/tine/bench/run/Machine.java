package dev.tine.bench.run;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;

/** The machine a run measured: what a reader needs to judge the numbers. */
public record Machine(
    String cpu, int cores, String jdk, String gc, long maxHeapBytes, int commonPoolParallelism) {
  public static Machine current() {
    return new Machine(
        cpuModel(),
        Runtime.getRuntime().availableProcessors(),
        Runtime.version() + " (" + System.getProperty("java.vm.name", "?") + ")",
        collectors(),
        Runtime.getRuntime().maxMemory(),
        ForkJoinPool.getCommonPoolParallelism());
  }

  /** "model name" from /proc/cpuinfo (Linux), else the OS architecture. */
  static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).trim();
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return System.getProperty("os.arch", "unknown CPU");
  }

  /** The collector in use, from its MXBeans' names: "G1", "Parallel", "Serial", "ZGC", ... */
  static String collectors() {
    Set<String> names = new LinkedHashSet<>();
    for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
      String n = b.getName();
      if (n.startsWith("G1")) names.add("G1");
      else if (n.startsWith("ZGC")) names.add("ZGC");
      else if (n.startsWith("Shenandoah")) names.add("Shenandoah");
      else if (n.equals("PS Scavenge") || n.equals("PS MarkSweep")) names.add("Parallel");
      else if (n.equals("Copy") || n.equals("MarkSweepCompact")) names.add("Serial");
      else if (n.startsWith("Epsilon")) names.add("Epsilon");
      else names.add(n);
    }
    return names.isEmpty() ? "none reported" : String.join("+", names);
  }

  /** From a record's "machine" object (a saved run), or null. */
  public static Machine fromMap(Object o) {
    if (!(o instanceof Map<?, ?> m)) return null;
    return new Machine(
        String.valueOf(m.get("cpu")),
        num(m.get("cores")),
        String.valueOf(m.get("jdk")),
        String.valueOf(m.get("gc")),
        (long) num(m.get("max_heap_mb")) * 1024 * 1024,
        num(m.get("common_pool_parallelism")));
  }

  private static int num(Object o) {
    return o instanceof Number n ? n.intValue() : -1;
  }

  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cpu", cpu);
    m.put("cores", cores);
    m.put("jdk", jdk);
    m.put("gc", gc);
    m.put("max_heap_mb", maxHeapBytes / (1024 * 1024));
    m.put("common_pool_parallelism", commonPoolParallelism);
    return m;
  }

  /** "AMD EPYC, 2 cores, JDK 25.0.3+9-LTS (OpenJDK 64-Bit Server VM), G1, heap up to 5.9 GB". */
  @Override
  public String toString() {
    return String.format(
        java.util.Locale.ROOT,
        "%s, %d %s, JDK %s, %s GC, heap up to %.1f GB",
        cpu,
        cores,
        cores == 1 ? "core" : "cores",
        jdk,
        gc,
        maxHeapBytes / (1024.0 * 1024 * 1024));
  }
}

package dev.tine.spark;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Starts a Spark context for a master URL with what Tine's jobs need: the JVM options of {@link
 * SparkJvmOptions} for the executors, the web UI off, and for {@code local-cluster[n,c,m]} (two or
 * more executor JVMs on this machine, Spark's own test cluster) the Spark distribution in {@code
 * SPARK_HOME}, the class path of Tine and the program for the executors, and a wait until every
 * executor has registered (the first job would otherwise run on the first executor alone).
 *
 * <p>On a real cluster, {@code spark-submit} makes the context's configuration (see the README);
 * pass the context to {@link TreeJob#run(JavaSparkContext)}.
 */
public final class SparkContexts {
  private static final Pattern LOCAL =
      Pattern.compile("local\\[(\\*|\\d+)(?:\\s*,\\s*(\\d+))?]|local");
  private static final Pattern LOCAL_CLUSTER =
      Pattern.compile("local-cluster\\[\\s*(\\d+)\\s*,\\s*(\\d+)\\s*,\\s*(\\d+)\\s*]");

  private SparkContexts() {}

  /**
   * A context for {@code master}; {@code programClasses} name the classes whose jars or folders
   * executors of a {@code local-cluster} must load (the problem's class, say).
   *
   * @param master a Spark master URL
   * @param programClasses classes whose code executors of a {@code local-cluster} need
   * @return a started context; for {@code local-cluster}, with every executor registered
   * @throws IllegalStateException for {@code local-cluster}, if {@code SPARK_HOME} or {@code
   *     SPARK_SCALA_VERSION} is missing or wrong, or the executors do not register within 180 s
   */
  public static JavaSparkContext start(String master, Class<?>... programClasses) {
    SparkConf conf =
        new SparkConf()
            .setMaster(master)
            .setAppName("tine")
            .set("spark.ui.enabled", "false")
            .set("spark.executor.extraJavaOptions", SparkJvmOptions.line());
    if (System.getenv("SPARK_LOCAL_IP") == null) {
      conf.set("spark.driver.host", "127.0.0.1").set("spark.driver.bindAddress", "127.0.0.1");
    }
    Matcher lc = LOCAL_CLUSTER.matcher(master);
    int executors = 0;
    if (lc.matches()) {
      executors = Integer.parseInt(lc.group(1));
      conf.setSparkHome(sparkHome())
          .setExecutorEnv("SPARK_LOCAL_IP", "127.0.0.1")
          .set("spark.executor.extraClassPath", classPath(programClasses));
    }
    JavaSparkContext sc = new JavaSparkContext(conf);
    try {
      if (executors > 0) {
        awaitExecutors(sc, executors, 180_000);
      }
      return sc;
    } catch (RuntimeException e) {
      sc.stop();
      throw e;
    }
  }

  /** Executor cores for a master: local[N], local-cluster[n,c,m], or spark.executor.cores. */
  static int executorCores(SparkConf conf, String master) {
    Matcher l = LOCAL.matcher(master);
    if (l.matches()) {
      return localThreads(l);
    }
    Matcher lc = LOCAL_CLUSTER.matcher(master);
    if (lc.matches()) {
      return Integer.parseInt(lc.group(2));
    }
    return conf.getInt("spark.executor.cores", 0); // 0: each executor counts its own
  }

  /** Task slots in the whole cluster, the number the cut is sized by. */
  static int totalCores(JavaSparkContext sc) {
    String master = sc.master();
    Matcher l = LOCAL.matcher(master);
    if (l.matches()) {
      return localThreads(l);
    }
    Matcher lc = LOCAL_CLUSTER.matcher(master);
    if (lc.matches()) {
      return Integer.parseInt(lc.group(1)) * Integer.parseInt(lc.group(2));
    }
    return sc.sc().defaultParallelism();
  }

  private static int localThreads(Matcher l) {
    String n = l.group(1);
    return n == null || n.equals("*")
        ? Runtime.getRuntime().availableProcessors()
        : Integer.parseInt(n);
  }

  private static String sparkHome() {
    String home = System.getenv("SPARK_HOME");
    if (home == null || home.isBlank()) {
      home = System.getProperty("spark.home");
    }
    String version = org.apache.spark.package$.MODULE$.SPARK_VERSION();
    if (home == null || home.isBlank()) {
      throw new IllegalStateException(
          "local-cluster needs SPARK_HOME: a Spark "
              + version
              + " distribution (export SPARK_HOME=$(scripts/fetch-spark.sh))");
    }
    Path core = Path.of(home, "jars", "spark-core_2.13-" + version + ".jar");
    if (!Files.isRegularFile(core)) {
      throw new IllegalStateException(
          "SPARK_HOME="
              + home
              + " is not a Spark "
              + version
              + " distribution (no "
              + core
              + "); local-cluster executors must run the driver's Spark version");
    }
    // the worker (in this JVM) builds the executor's command line with Spark's launcher, which
    // reads the Scala version from the environment (bin/load-spark-env.sh sets it for
    // spark-submit) and otherwise looks for a source build: executors then fail to start, again
    // and again
    if (System.getenv("SPARK_SCALA_VERSION") == null) {
      throw new IllegalStateException(
          "local-cluster needs SPARK_SCALA_VERSION=2.13 in the environment (the tests' and"
              + " scripts/spark-experiment.sh's set it)");
    }
    if (!Files.isRegularFile(Path.of(home, "RELEASE"))) {
      throw new IllegalStateException(
          "SPARK_HOME="
              + home
              + " has no RELEASE file, so Spark's launcher takes it for a source build and cannot"
              + " start executors (scripts/fetch-spark.sh writes one)");
    }
    return home;
  }

  private static String classPath(Class<?>... programClasses) {
    Set<String> entries = new LinkedHashSet<>();
    entries.add(location(dev.tine.WorkStealingPool.class));
    entries.add(location(SparkContexts.class));
    for (Class<?> c : programClasses) {
      entries.add(location(c));
    }
    return String.join(File.pathSeparator, entries);
  }

  private static String location(Class<?> c) {
    try {
      return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException | NullPointerException e) {
      throw new IllegalArgumentException("cannot find the jar or folder of " + c.getName(), e);
    }
  }

  private static void awaitExecutors(JavaSparkContext sc, int executors, long timeoutMillis) {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    // the driver's block manager is in the map too
    while (sc.sc().getExecutorMemoryStatus().size() < executors + 1) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            executors
                + " executors did not register within "
                + timeoutMillis / 1000
                + " s (registered: "
                + (sc.sc().getExecutorMemoryStatus().size() - 1)
                + "); see the executor logs under SPARK_HOME/work");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for executors", e);
      }
    }
  }
}

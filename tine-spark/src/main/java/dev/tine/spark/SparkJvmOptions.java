package dev.tine.spark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options Spark needs on JDK 21 and later ({@code --add-opens} for the packages Spark and
 * Netty reach into), read from the one file that holds them, {@code spark-jvm.options} beside this
 * class: a java argument file, which surefire's {@code argLine} passes to {@code java} as {@code
 * @file}, and which {@link SparkContexts} puts into the executors' options and {@code
 * scripts/spark-experiment.sh} into the driver's (through {@link #main}).
 *
 * <p>Spark's launcher also opens {@code sun.security.action}, which JDK 24 removed from {@code
 * java.base}; naming it there makes the JVM print "WARNING: package sun.security.action not in
 * java.base". That option lives in {@code spark-jvm-jdk21-23.options} and is added only when this
 * JVM's {@code java.base} has the package (executors are assumed to run the driver's JDK, as
 * {@code local-cluster} and {@code spark-submit} with one {@code JAVA_HOME} do).
 */
public final class SparkJvmOptions {
  private SparkJvmOptions() {}

  /**
   * {@return the options, one per element, comments and blank lines left out}
   *
   * @throws IllegalStateException if an options file is not on the class path
   * @throws java.io.UncheckedIOException if it cannot be read
   */
  public static List<String> list() {
    List<String> out = read("spark-jvm.options");
    if (Object.class.getModule().getPackages().contains("sun.security.action")) {
      out.addAll(read("spark-jvm-jdk21-23.options"));
    }
    return out;
  }

  private static List<String> read(String resource) {
    try (InputStream in = SparkJvmOptions.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is missing from the class path");
      }
      List<String> out = new ArrayList<>();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        String s = line.strip();
        if (!s.isEmpty() && !s.startsWith("#")) {
          out.add(s);
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@return the options as one line, for {@code spark.executor.extraJavaOptions}} */
  public static String line() {
    return String.join(" ", list());
  }

  /**
   * Prints the options for this JVM, one per line (for scripts).
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    list().forEach(System.out::println);
  }
}

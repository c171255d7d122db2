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
 * class: a java argument file, which surefire's {@code argLine} and the scripts pass to {@code
 * java} as {@code @file}, and which {@link SparkContexts} puts into the executors' options.
 */
public final class SparkJvmOptions {
  private SparkJvmOptions() {}

  /**
   * {@return the options, one per element, comments and blank lines left out}
   *
   * @throws IllegalStateException if {@code spark-jvm.options} is not on the class path
   * @throws java.io.UncheckedIOException if it cannot be read
   */
  public static List<String> list() {
    try (InputStream in = SparkJvmOptions.class.getResourceAsStream("spark-jvm.options")) {
      if (in == null) {
        throw new IllegalStateException("spark-jvm.options is missing from the class path");
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
   * Prints the options, one per line (for scripts).
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    list().forEach(System.out::println);
  }
}

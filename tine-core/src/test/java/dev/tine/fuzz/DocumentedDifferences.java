package dev.tine.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The differences from ForkJoinPool that Tine makes on purpose, read from the one table in the
 * README's porting section. The fuzzer's classifier names each difference it can explain by a row's
 * key; a difference whose key has no row (or that has no key) fails the run. Reading the README
 * rather than a list in the test keeps the promise to users and the fuzzer's tolerance the same.
 */
final class DocumentedDifferences {
  /** A row: its stable key, what Tine does, what the JDK does, and why. */
  record Row(String key, String tine, String jdk, String why) {}

  private final Map<String, Row> rows;

  private DocumentedDifferences(Map<String, Row> rows) {
    this.rows = rows;
  }

  boolean has(String key) {
    return rows.containsKey(key);
  }

  Map<String, Row> rows() {
    return rows;
  }

  /** The table in the repository's README.md (the tests run in the module directory). */
  static DocumentedDifferences fromReadme() {
    for (Path p : new Path[] {Path.of("..", "README.md"), Path.of("README.md")}) {
      if (Files.isRegularFile(p)) {
        try {
          return parse(Files.readString(p));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    throw new IllegalStateException("README.md not found from " + Path.of("").toAbsolutePath());
  }

  /**
   * The first table after the "Porting from ForkJoinPool" heading whose header starts with "key".
   */
  static DocumentedDifferences parse(String markdown) {
    int section = markdown.indexOf("Porting from `ForkJoinPool`");
    if (section < 0) {
      throw new IllegalStateException("README has no 'Porting from `ForkJoinPool`' section");
    }
    String[] lines = markdown.substring(section).split("\n", -1);
    Map<String, Row> rows = new LinkedHashMap<>();
    boolean inTable = false;
    for (String raw : lines) {
      String line = raw.strip();
      if (!inTable) {
        inTable = line.startsWith("|") && cells(line)[0].equalsIgnoreCase("key");
        continue;
      }
      if (!line.startsWith("|")) {
        break;
      }
      String[] c = cells(line);
      if (c[0].startsWith("---")) {
        continue;
      }
      if (c.length < 4) {
        throw new IllegalStateException("documented-differences row needs 4 cells: " + line);
      }
      String key = c[0].replace("`", "");
      if (rows.put(key, new Row(key, c[1], c[2], c[3])) != null) {
        throw new IllegalStateException("duplicate documented-difference key " + key);
      }
    }
    if (rows.isEmpty()) {
      throw new IllegalStateException("no documented-differences table in the porting section");
    }
    return new DocumentedDifferences(rows);
  }

  private static String[] cells(String line) {
    String inner = line.substring(1, line.endsWith("|") ? line.length() - 1 : line.length());
    String[] c = inner.split("\\|", -1);
    for (int i = 0; i < c.length; i++) {
      c[i] = c[i].strip();
    }
    return c;
  }
}

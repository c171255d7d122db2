package dev.tine.bench.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Checks, before any work starts, that each file or directory a command will write can be written:
 * a run of several minutes must not be lost to a typo in an output path. Each check tries the real
 * operation (open for writing, create the directory) rather than reading permission bits, which say
 * nothing for root, read-only mounts or /proc; a file it had to create is removed again.
 */
final class OutputPaths {
  private OutputPaths() {}

  /** A file {@code option} will write; null (option not given) passes. */
  static void file(CommandSpec spec, String option, File f) {
    if (f == null || f.getPath().equals("-")) return;
    Path p = f.toPath().toAbsolutePath();
    if (Files.isDirectory(p))
      throw Check.bad(spec, option + " " + f + " is a directory; give a file name");
    Path parent = p.getParent();
    if (parent != null && !Files.isDirectory(parent))
      throw Check.bad(
          spec,
          option
              + " "
              + f
              + ": "
              + (Files.exists(parent) ? "not a directory: " : "no such directory: ")
              + parent);
    boolean existed = Files.exists(p);
    try {
      Files.newOutputStream(p, StandardOpenOption.CREATE, StandardOpenOption.APPEND).close();
      if (!existed) Files.deleteIfExists(p);
    } catch (IOException | SecurityException e) {
      throw Check.bad(spec, option + " " + f + " cannot be written: " + reason(e));
    }
  }

  /** A file {@code option} will write, given as a string ("-" is stdout). */
  static void file(CommandSpec spec, String option, String f) {
    if (f != null) file(spec, option, new File(f));
  }

  /**
   * A directory {@code option} will fill: created now if missing (its parent must exist, as for a
   * file: a typo must not build a tree of directories), and probed with a file.
   */
  static void directory(CommandSpec spec, String option, File d) {
    if (d == null) return;
    Path p = d.toPath().toAbsolutePath();
    if (Files.exists(p) && !Files.isDirectory(p))
      throw Check.bad(spec, option + " " + d + " is a file, not a directory");
    Path parent = p.getParent();
    if (!Files.exists(p) && parent != null && !Files.isDirectory(parent))
      throw Check.bad(
          spec,
          option
              + " "
              + d
              + ": "
              + (Files.exists(parent) ? "not a directory: " : "no such directory: ")
              + parent);
    try {
      Files.createDirectories(p); // at most the last level: its parent exists
      Path probe = Files.createTempFile(p, ".tine-probe", ".tmp");
      Files.delete(probe);
    } catch (IOException | SecurityException e) {
      throw Check.bad(spec, option + " " + d + " cannot be written: " + reason(e));
    }
  }

  /** The OS's reason in words, without the exception's class or the path repeated. */
  private static String reason(Exception e) {
    if (e instanceof AccessDeniedException) return "permission denied";
    if (e instanceof NoSuchFileException n) return "no such file or directory: " + n.getFile();
    if (e instanceof FileSystemException f && f.getReason() != null) return f.getReason();
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }
}

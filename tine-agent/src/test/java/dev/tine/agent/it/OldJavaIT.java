package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code tine top} against a JVM older than the agent's classes (Java 17): one line, exit 6, and
 * nothing written into the target (the agent is never loaded there, so the target prints no {@code
 * UnsupportedClassVersionError} and no {@code java.lang.instrument} assertion).
 */
class OldJavaIT {
  /** A java launcher of a JDK older than 21 on this machine, or null. */
  static Path oldJava() throws IOException {
    List<Path> homes = new ArrayList<>();
    Path jvms = Path.of("/usr/lib/jvm");
    if (Files.isDirectory(jvms)) {
      try (Stream<Path> s = Files.list(jvms)) {
        s.forEach(homes::add);
      }
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path j = Path.of(dir, "java");
      if (Files.isExecutable(j)) homes.add(j.toRealPath().getParent().getParent());
    }
    for (Path home : homes) {
      Path release = home.resolve("release"), java = home.resolve("bin/java");
      if (!Files.isReadable(release) || !Files.isExecutable(java)) continue;
      for (String l : Files.readAllLines(release)) {
        if (l.startsWith("JAVA_VERSION=")) {
          String v = l.substring(14, l.length() - 1);
          int feature = Integer.parseInt(v.replaceFirst("^1\\.", "").split("[.+-]")[0]);
          if (feature < 21) return java;
        }
      }
    }
    return null;
  }

  @Test
  void aJava17TargetIsRefusedInOneLineAndHearsNothing() throws Exception {
    Path java = oldJava();
    Assumptions.assumeTrue(java != null, "no JDK older than 21 on this machine to attach to");
    Path src = Files.createDirectories(Path.of("target", "old-java")).resolve("Idle.java");
    Files.writeString(
        src,
        "public class Idle { public static void main(String[] a) throws Exception {"
            + " System.out.println(\"READY \" + ProcessHandle.current().pid());"
            + " System.out.flush(); System.in.read(); System.out.println(\"BYE\"); } }");
    try (ChildJvm app = new ChildJvm(List.of(java.toString(), src.toAbsolutePath().toString()))) {
      long pid = Long.parseLong(app.expect("READY", 60).split(" ")[1]);
      try (ChildJvm top = TopIT.top(Long.toString(pid), "--once")) {
        assertEquals(6, top.waitFor(60), "stdout " + top.all + " stderr " + top.err);
        String err = String.join("\n", top.err);
        assertEquals(1, top.err.size(), err);
        assertTrue(
            err.matches(
                "tine top: pid "
                    + pid
                    + " runs Java 17(\\.\\S*)?; the agent needs Java 21 or newer.*"),
            err);
        System.out.println(err);
      }
      Thread.sleep(500);
      app.send("");
      app.expect("BYE", 30);
      assertEquals(0, app.waitFor(30));
      assertEquals(List.of(), app.err, "the target's standard error");
      assertEquals(List.of("READY " + pid, "BYE"), app.all, "the target's standard output");
    }
  }
}

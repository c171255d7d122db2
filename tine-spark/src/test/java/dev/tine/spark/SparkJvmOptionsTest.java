package dev.tine.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The Spark JVM options this JVM gets open only packages its {@code java.base} has. */
class SparkJvmOptionsTest {
  private static final String OPEN_JAVA_BASE = "--add-opens=java.base/";

  @Test
  void opensOnlyPackagesThatThisJdkHas() {
    // an --add-opens of a package java.base lacks makes the JVM print "WARNING: package P not in
    // java.base" (sun.security.action on JDK 24+)
    Set<String> javaBase = Object.class.getModule().getPackages();
    List<String> options = SparkJvmOptions.list();
    for (String o : options) {
      if (o.startsWith(OPEN_JAVA_BASE)) {
        String pkg = o.substring(OPEN_JAVA_BASE.length(), o.lastIndexOf('='));
        assertTrue(javaBase.contains(pkg), o + ": java.base has no package " + pkg);
      }
    }
    // Spark's own list opens it; where the JDK has it (21-23), so do we
    assertEquals(
        javaBase.contains("sun.security.action"),
        options.contains("--add-opens=java.base/sun.security.action=ALL-UNNAMED"));
    assertTrue(options.contains("--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"), options::toString);
  }
}

package dev.tine.agent.servers;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.springframework.boot.loader.tools.Library;
import org.springframework.boot.loader.tools.LibraryScope;
import org.springframework.boot.loader.tools.Repackager;

/**
 * {@link SpringServer} as a user ships it: an executable Spring Boot jar ({@code java -jar
 * app.jar}), made by Boot's own repackager (spring-boot-loader-tools, what {@code
 * spring-boot-maven-plugin}'s {@code repackage} goal runs). The test servers' classes go to {@code
 * BOOT-INF/classes}, Spring's and Tomcat's jars (those the flat class path of {@link
 * ServerHarness#classpath} gives SpringServer) to {@code BOOT-INF/lib} as nested jars, and Boot's
 * launcher ({@code JarLauncher}) loads them with its {@code LaunchedClassLoader}: Tomcat's classes
 * are then neither the system class loader's nor read from a file of their own.
 */
final class BootJar {
  private BootJar() {}

  /**
   * Makes {@code target/boot-jar/spring-server.jar} (afresh: the test classes may have changed).
   */
  static synchronized Path make() throws IOException {
    Path dir = Path.of("target", "boot-jar").toAbsolutePath();
    Path app = dir.resolve("spring-server.jar");
    Files.createDirectories(dir);
    Path plain = dir.resolve("spring-server-plain.jar");
    List<File> libs = new ArrayList<>();
    Path classes = null;
    for (String e : ServerHarness.classpath(SpringServer.class).split(File.pathSeparator)) {
      if (e.endsWith("test-classes")) classes = Path.of(e);
      else libs.add(new File(e));
    }
    if (classes == null) throw new IllegalStateException("no test-classes on the class path");
    writeClasses(classes, plain);
    Path tmp = dir.resolve("spring-server.jar.tmp");
    Repackager r = new Repackager(plain.toFile());
    r.setMainClass(SpringServer.class.getName());
    r.repackage(
        tmp.toFile(),
        callback -> {
          for (File lib : libs) callback.library(new Library(lib, LibraryScope.COMPILE));
        });
    Files.move(tmp, app, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    return app;
  }

  /** The test servers' package (its classes only) as a plain jar. */
  private static void writeClasses(Path classes, Path jar) throws IOException {
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, SpringServer.class.getName());
    Path pkg = classes.resolve(SpringServer.class.getPackageName().replace('.', '/'));
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream j = new JarOutputStream(out, m);
        Stream<Path> files = Files.list(pkg)) {
      // the package's directories first, as build tools write them (class path scans list them)
      String dirs = "";
      for (String part : SpringServer.class.getPackageName().split("\\.")) {
        dirs += part + "/";
        j.putNextEntry(new JarEntry(dirs));
        j.closeEntry();
      }
      for (Path f : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
        j.putNextEntry(
            new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
        Files.copy(f, j);
        j.closeEntry();
      }
    }
  }
}

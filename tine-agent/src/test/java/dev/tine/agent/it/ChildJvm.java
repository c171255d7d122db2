package dev.tine.agent.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

/** Starts JVMs for the integration tests: the same java as the test's, output read line by line. */
final class ChildJvm implements AutoCloseable {
  static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

  static Path agentJar() {
    Path p = Path.of(System.getProperty("tine.agent.jar", "target/tine-agent.jar"));
    if (!Files.isRegularFile(p))
      throw new IllegalStateException("no agent jar at " + p + " (run via mvn verify)");
    return p.toAbsolutePath();
  }

  /**
   * A directory holding only the loopback server's classes: the application knows nothing of Tine.
   */
  static synchronized Path serverClasses() throws IOException {
    Path dir = Path.of("target", "it-server-classes");
    if (Files.isDirectory(dir.resolve("dev/tine/agent/demo"))) return dir.toAbsolutePath();
    try (JarFile j = new JarFile(agentJar().toFile())) {
      for (var e : java.util.Collections.list(j.entries())) {
        if (e.getName().startsWith("dev/tine/agent/demo/") && e.getName().endsWith(".class")) {
          Path out = dir.resolve(e.getName());
          Files.createDirectories(out.getParent());
          try (var in = j.getInputStream(e)) {
            Files.copy(in, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
    }
    return dir.toAbsolutePath();
  }

  final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  final List<String> all = java.util.Collections.synchronizedList(new ArrayList<>());
  final List<String> err = java.util.Collections.synchronizedList(new ArrayList<>());

  ChildJvm(List<String> command) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command);
    process = pb.start();
    pump(
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)),
        true);
    pump(
        new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8)),
        false);
  }

  static ChildJvm java(List<String> jvmArgs, String classpath, String main, String... args)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(JAVA);
    cmd.addAll(jvmArgs);
    if (classpath != null) {
      cmd.add("-cp");
      cmd.add(classpath);
    }
    cmd.add(main);
    cmd.addAll(List.of(args));
    return new ChildJvm(cmd);
  }

  private void pump(BufferedReader r, boolean out) {
    Thread t =
        new Thread(
            () -> {
              try {
                for (String l; (l = r.readLine()) != null; ) {
                  if (out) {
                    all.add(l);
                    lines.add(l);
                  } else {
                    err.add(l);
                  }
                }
              } catch (IOException e) {
                // process ended
              }
            },
            "pump");
    t.setDaemon(true);
    t.start();
    pumps.add(t);
  }

  /** The threads reading the child's stdout and stderr: joined once it exits. */
  private final List<Thread> pumps = new ArrayList<>();

  /**
   * The next stdout line starting with {@code prefix} (others are skipped), waiting at most {@code
   * seconds}.
   */
  String expect(String prefix, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    for (; ; ) {
      long left = deadline - System.nanoTime();
      String l = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
      if (l == null) {
        throw new AssertionError(
            "no line starting with '"
                + prefix
                + "' within "
                + seconds
                + " s; stdout "
                + all
                + " stderr "
                + err);
      }
      if (l.startsWith(prefix)) return l;
    }
  }

  void send(String command) throws IOException {
    process.getOutputStream().write((command + "\n").getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().flush();
  }

  int waitFor(int seconds) throws InterruptedException {
    if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(
          "still running after " + seconds + " s; stdout " + all + " stderr " + err);
    }
    // The child has exited, but its last lines may still be in the pipes: read them to the end
    // before anyone looks at stdout or stderr.
    for (Thread t : pumps) t.join(TimeUnit.SECONDS.toMillis(seconds));
    return process.exitValue();
  }

  @Override
  public void close() {
    if (process.isAlive()) process.destroyForcibly();
  }
}

package dev.tine.agent.top;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;

/** Finds {@code tine-agent.jar}, the file the target JVM loads. */
public final class AgentJar {
  private AgentJar() {}

  static final String AGENT_CLASS = "dev.tine.agent.Agent";

  /**
   * In order: {@code explicit} (--agent-jar), the {@code tine.agent.jar} system property, the
   * {@code TINE_AGENT_JAR} environment variable, the jar this class runs from if it is the agent
   * jar ({@code java -jar tine-agent.jar top}), then {@code tine-agent.jar} beside that jar and in
   * the source tree's {@code tine-agent/target} (from {@code tine-bench/target/tine.jar} or the
   * working directory).
   */
  public static Path locate(Path explicit) throws IOException {
    if (explicit != null) {
      if (!isAgentJar(explicit))
        throw new IOException(
            explicit + " is not the agent jar (no Agent-Class " + AGENT_CLASS + ")");
      return explicit;
    }
    List<Path> tried = new ArrayList<>();
    String prop = System.getProperty("tine.agent.jar");
    if (prop != null) tried.add(Path.of(prop));
    String env = System.getenv("TINE_AGENT_JAR");
    if (env != null) tried.add(Path.of(env));
    Path own = ownJar();
    if (own != null) {
      tried.add(own);
      Path dir = own.getParent();
      if (dir != null) {
        tried.add(dir.resolve("tine-agent.jar"));
        Path root = dir.getParent() != null ? dir.getParent().getParent() : null;
        if (root != null) tried.add(root.resolve("tine-agent/target/tine-agent.jar"));
      }
    }
    tried.add(Path.of("tine-agent/target/tine-agent.jar"));
    for (Path p : tried) {
      if (isAgentJar(p)) return p.toAbsolutePath();
    }
    throw new IOException(
        "cannot find tine-agent.jar (tried "
            + tried
            + "); build it with"
            + " ./mvnw -B -ntp -pl tine-agent -am package -DskipTests -Djcstress.skip=true, or pass --agent-jar");
  }

  private static Path ownJar() {
    try {
      var cs = AgentJar.class.getProtectionDomain().getCodeSource();
      if (cs == null) return null;
      Path p = Path.of(cs.getLocation().toURI());
      return Files.isRegularFile(p) ? p : null;
    } catch (Exception e) {
      return null;
    }
  }

  static boolean isAgentJar(Path p) {
    if (!Files.isRegularFile(p)) return false;
    try (JarFile j = new JarFile(p.toFile())) {
      var mf = j.getManifest();
      return mf != null && AGENT_CLASS.equals(mf.getMainAttributes().getValue("Agent-Class"));
    } catch (IOException e) {
      return false;
    }
  }
}

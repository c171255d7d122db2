package dev.tine.agent.top;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import dev.tine.agent.AgentConfig;
import dev.tine.agent.resize.ResizeResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import javax.management.Attribute;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Loads the agent into a running JVM of the same user (the Attach API) and reads its MXBeans over
 * that JVM's local JMX connector, which the Attach API starts ({@code startLocalManagementAgent}:
 * the JDK's own local-only connector, the one JConsole uses; the agent opens nothing).
 *
 * <p>The target is checked before attaching: on Linux, attaching to a process that is not a JVM
 * sends it SIGQUIT, which would kill most programs.
 */
public final class AttachClient implements AutoCloseable {
  /** Why the agent could not be attached: a message meant for the user, and an exit status. */
  public static final class AttachProblem extends Exception {
    public final int exitCode;

    AttachProblem(String message, int exitCode) {
      super(message);
      this.exitCode = exitCode;
    }
  }

  public static final String POOLS = "dev.tine.agent:type=Pool,*";
  public static final String AGENT = "dev.tine.agent:type=Agent";

  private final long pid;
  private final JMXConnector connector;
  private final MBeanServerConnection mbs;

  /** How long attaching took (ms): the Attach API, loading the agent, the JMX connection. */
  public final long attachMillis;

  /** Whether this client loaded the agent (false: it was running already). */
  public final boolean loadedNow;

  /** When the agent was in place in the target ({@code System.nanoTime()} here). */
  public final long agentReadyNanos;

  private AttachClient(
      long pid, JMXConnector connector, long attachMillis, boolean loadedNow, long agentReadyNanos)
      throws IOException {
    this.pid = pid;
    this.connector = connector;
    this.mbs = connector.getMBeanServerConnection();
    this.attachMillis = attachMillis;
    this.loadedNow = loadedNow;
    this.agentReadyNanos = agentReadyNanos;
  }

  public long pid() {
    return pid;
  }

  /** What to do about the agent in the target. */
  public enum Mode {
    /** Read the agent if it runs there, load it otherwise. */
    LOAD,
    /** Read the agent if it runs there; never load it (to stop it, for instance). */
    EXISTING
  }

  /**
   * Checks the target (a JVM of the same user, Java 21 or newer), connects to its local JMX
   * connector (starting it if needed: the JDK's {@code ManagementAgent.start_local}, which loads no
   * agent and works where dynamic agent loading is disabled), reads the agent there if it runs
   * (started with {@code -javaagent:} or by an earlier {@code top}), and otherwise, in {@link
   * Mode#LOAD}, checks the target's heap headroom and loads the agent.
   */
  public static AttachClient attach(long pid, Path agentJar, String agentOptions)
      throws AttachProblem {
    return attach(pid, agentJar, agentOptions, Mode.LOAD);
  }

  /**
   * As {@link #attach(long, Path, String)}, loading the agent only in {@link Mode#LOAD}.
   *
   * @param pid the target JVM
   * @param agentJar the agent jar to load if none runs there
   * @param agentOptions the agent's options when loaded now, or null
   * @param mode whether to load the agent where none runs
   * @return a client connected to the agent
   * @throws AttachProblem why not, for the user, with an exit status
   */
  public static AttachClient attach(long pid, Path agentJar, String agentOptions, Mode mode)
      throws AttachProblem {
    checkTarget(pid);
    long t0 = System.nanoTime();
    VirtualMachine vm;
    try {
      vm = VirtualMachine.attach(Long.toString(pid));
    } catch (AttachNotSupportedException e) {
      throw new AttachProblem(
          "cannot attach to pid "
              + pid
              + ": "
              + e.getMessage()
              + " (was it started with -XX:+DisableAttachMechanism, or in another container?)",
          1);
    } catch (IOException e) {
      throw new AttachProblem("cannot attach to pid " + pid + ": " + e.getMessage(), 1);
    }
    boolean loadedNow = false;
    long loadedAt = 0;
    JMXConnector c = null;
    try {
      // The target's version first, from its system properties (read over the attach socket:
      // nothing runs in the target, nothing is printed there). The agent's classes need Java 21;
      // loading them into an older JVM would fill its standard error with the JDK's complaints.
      checkVersion(pid, vm.getSystemProperties());
      String address =
          vm.getAgentProperties().getProperty("com.sun.management.jmxremote.localConnectorAddress");
      if (address == null) address = vm.startLocalManagementAgent();
      c = JMXConnectorFactory.connect(new JMXServiceURL(address));
      MBeanServerConnection mbs = c.getMBeanServerConnection();
      if (!mbs.isRegistered(name(AGENT))) {
        if (mode == Mode.EXISTING)
          throw new AttachProblem(
              "no tine agent runs in pid " + pid + " (nothing was loaded, nothing changed)",
              ResizeResult.NO_AGENT);
        AgentConfig config;
        try {
          config = AgentConfig.parse(agentOptions);
        } catch (IllegalArgumentException e) {
          throw new AttachProblem("--agent-options: " + e.getMessage(), 2);
        }
        checkHeadroom(pid, mbs, config);
        vm.loadAgent(
            agentJar.toAbsolutePath().toString(), agentOptions == null ? "" : agentOptions);
        loadedNow = true;
        loadedAt = System.nanoTime();
        if (!mbs.isRegistered(name(AGENT)))
          throw new AttachProblem(
              "the agent did not start in pid " + pid + " (see its standard error)", 1);
      }
      AttachClient client =
          new AttachClient(
              pid,
              c,
              (System.nanoTime() - t0) / 1_000_000,
              loadedNow,
              loadedNow ? loadedAt : System.nanoTime());
      c = null;
      return client;
    } catch (AgentLoadException e) {
      String m = String.valueOf(e.getMessage());
      throw new AttachProblem(
          m.contains("Dynamic agent loading")
              ? "pid "
                  + pid
                  + " refuses agents loaded at run time: start it with -javaagent:"
                  + agentJar
                  + " (the production way; tine top then reads that agent), or with"
                  + " -XX:+EnableDynamicAgentLoading"
              : "pid " + pid + " could not load " + agentJar + ": " + m,
          1);
    } catch (AgentInitializationException e) {
      throw new AttachProblem(
          "the agent failed to start in pid "
              + pid
              + " (see its standard error): "
              + e.getMessage(),
          1);
    } catch (IOException e) {
      throw new AttachProblem(
          "lost pid "
              + pid
              + " while loading the agent or connecting to its local JMX connector: "
              + e.getMessage(),
          1);
    } finally {
      if (c != null) {
        try {
          c.close();
        } catch (IOException ignored) {
          // closing a failed connection
        }
      }
      try {
        vm.detach();
      } catch (IOException ignored) {
        // the connection is gone either way
      }
    }
  }

  /** The oldest Java the agent's classes run on. */
  static final int MIN_JAVA = 21;

  /** Refuses a target older than {@link #MIN_JAVA}, from its system properties. */
  static void checkVersion(long pid, Properties props) throws AttachProblem {
    String spec = props.getProperty("java.specification.version", "");
    int feature = feature(spec);
    if (feature < 0 || feature >= MIN_JAVA) return; // unknown: let the JVM decide
    throw new AttachProblem(
        "pid "
            + pid
            + " runs Java "
            + spec
            + "; the agent needs Java "
            + MIN_JAVA
            + " or newer (nothing was loaded)",
        6);
  }

  static int feature(String spec) {
    String s = spec.startsWith("1.") ? spec.substring(2) : spec;
    int dot = s.indexOf('.');
    try {
      return Integer.parseInt(dot < 0 ? s : s.substring(0, dot));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Refuses to load the agent into a JVM whose heap could not hold it: the heap left after the last
   * collection (the live data), less a tenth of the maximum as a margin, must hold the most the
   * agent may take ({@link AgentConfig#maxHeapBytes()}: its own tables and every pool it may
   * measure at its bound).
   */
  static void checkHeadroom(long pid, MBeanServerConnection mbs, AgentConfig config)
      throws AttachProblem, IOException {
    Headroom h = Headroom.read(mbs);
    if (h == null) return; // no figures: nothing to judge by
    long need = config.maxHeapBytes();
    String why = h.refusal(need);
    if (why != null) throw new AttachProblem("pid " + pid + ": not loading the agent: " + why, 6);
  }

  /** Refuses, with a clear message, a pid that is not a live JVM of the same user. */
  static void checkTarget(long pid) throws AttachProblem {
    if (pid <= 0) throw new AttachProblem("not a process id: " + pid, 2);
    if (pid == ProcessHandle.current().pid())
      throw new AttachProblem("pid " + pid + " is this tine process itself", 2);
    Optional<ProcessHandle> ph = ProcessHandle.of(pid);
    if (ph.isEmpty() || !ph.get().isAlive())
      throw new AttachProblem("no process with pid " + pid, 3);
    ProcessHandle.Info info = ph.get().info();
    String me = System.getProperty("user.name");
    String owner = info.user().orElse(null);
    if (owner == null) owner = procOwner(pid);
    if (owner != null && !owner.equals(me)) {
      throw new AttachProblem(
          "pid "
              + pid
              + " belongs to user "
              + owner
              + ", not "
              + me
              + ": tine top attaches only to JVMs of the same user (run it as "
              + owner
              + ")",
          4);
    }
    if (!isJvm(pid)) {
      String cmd = info.command().orElse("?");
      throw new AttachProblem("pid " + pid + " (" + cmd + ") is not a Java virtual machine", 5);
    }
  }

  private static String procOwner(long pid) {
    try {
      return Files.getOwner(Path.of("/proc", Long.toString(pid))).getName();
    } catch (IOException | UnsupportedOperationException e) {
      return null;
    }
  }

  /** Listed by the JVMs' performance data, or (Linux) has libjvm mapped. */
  static boolean isJvm(long pid) {
    String id = Long.toString(pid);
    try {
      for (VirtualMachineDescriptor d : VirtualMachine.list()) {
        if (d.id().equals(id)) return true;
      }
    } catch (RuntimeException e) {
      // no jvmstat: fall through
    }
    Path maps = Path.of("/proc", id, "maps");
    if (Files.isReadable(maps)) {
      try (var lines = Files.lines(maps)) {
        return lines.anyMatch(l -> l.endsWith("/libjvm.so"));
      } catch (IOException | java.io.UncheckedIOException e) {
        return false;
      }
    }
    return false;
  }

  // ---------------------------------------------------------------------------------------------

  /** The agent's own figures (attribute name → value). */
  public Map<String, Object> agent() throws IOException {
    try {
      return attributes(name(AGENT));
    } catch (javax.management.InstanceNotFoundException e) {
      throw new IOException("the agent is not running in pid " + pid + " (stopped?)", e);
    }
  }

  /** One map per measured pool (attribute name → value), ordered by pool id. */
  public List<Map<String, Object>> pools() throws IOException {
    Map<Integer, Map<String, Object>> byId = new TreeMap<>();
    for (ObjectName on : mbs.queryNames(name(POOLS), null)) {
      try {
        Map<String, Object> m = attributes(on);
        byId.put(((Number) m.getOrDefault("Id", byId.size())).intValue(), m);
      } catch (javax.management.InstanceNotFoundException e) {
        attributeNames.remove(on); // the pool was forgotten between the query and the read
      }
    }
    return new ArrayList<>(byId.values());
  }

  /**
   * Stops the agent in the target (it puts back the sizes it changed and the original bytecode),
   * and waits up to 10 s for it to be gone: the agent stops on a thread of its own, and a command
   * right after (a {@code --resize}) must not find it still there.
   */
  public void stopAgent() throws IOException {
    try {
      mbs.invoke(name(AGENT), "stop", new Object[0], new String[0]);
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (mbs.isRegistered(name(AGENT)) && System.nanoTime() < deadline) Thread.sleep(20);
    } catch (javax.management.JMException e) {
      throw new IOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Sets one pool's effective size in the target (see {@code AgentMXBean.resize}).
   *
   * @param pool the pool's name as top shows it, {@code #id}, or a unique prefix
   * @param size the new size
   * @param requestedBy who asks (the target's log line and JFR event say it)
   * @param why the reason, in a few words
   * @return what changed, or why nothing did, with top's exit code
   * @throws IOException if the connection failed (the agent may have stopped)
   */
  public ResizeResult resize(String pool, int size, String requestedBy, String why)
      throws IOException {
    return resize(pool, size, requestedBy, why, false);
  }

  /**
   * As {@link #resize(String, int, String, String)}; {@code force}: also a pool another tool
   * resized.
   */
  public ResizeResult resize(String pool, int size, String requestedBy, String why, boolean force)
      throws IOException {
    Object r =
        invoke(
            "resize",
            new Object[] {pool, size, requestedBy, why, force},
            new String[] {
              String.class.getName(),
              int.class.getName(),
              String.class.getName(),
              String.class.getName(),
              boolean.class.getName()
            });
    return ResizeResult.parse(String.valueOf(r));
  }

  /**
   * Puts back the original sizes of one pool, or of every pool the agent changed ({@code "all"} or
   * {@code "*"}): one result per pool.
   */
  public List<ResizeResult> restoreAll(String pool, boolean force, String requestedBy, String why)
      throws IOException {
    Object r =
        invoke(
            "restore",
            new Object[] {pool, force, requestedBy, why},
            new String[] {
              String.class.getName(),
              boolean.class.getName(),
              String.class.getName(),
              String.class.getName()
            });
    List<ResizeResult> out = new ArrayList<>();
    for (String line : String.valueOf(r).split("\n")) out.add(ResizeResult.parse(line));
    return out;
  }

  /**
   * Puts back one pool's original sizes: the first result of {@link #restoreAll} (the only one for
   * a pool's name).
   */
  public ResizeResult restore(String pool) throws IOException {
    return restoreAll(pool, false, "tine top --restore", "restore").get(0);
  }

  private Object invoke(String op, Object[] args, String[] sig) throws IOException {
    try {
      return mbs.invoke(name(AGENT), op, args, sig);
    } catch (javax.management.InstanceNotFoundException e) {
      throw new IOException("the agent is not running in pid " + pid + " (stopped?)", e);
    } catch (javax.management.JMException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  private final Map<ObjectName, String[]> attributeNames = new LinkedHashMap<>();

  private Map<String, Object> attributes(ObjectName on)
      throws IOException, javax.management.InstanceNotFoundException {
    try {
      String[] names = attributeNames.get(on);
      if (names == null) {
        MBeanAttributeInfo[] infos = mbs.getMBeanInfo(on).getAttributes();
        names = new String[infos.length];
        for (int i = 0; i < infos.length; i++) names[i] = infos[i].getName();
        attributeNames.put(on, names);
      }
      Map<String, Object> m = new LinkedHashMap<>();
      for (Attribute a : mbs.getAttributes(on, names).asList()) m.put(a.getName(), a.getValue());
      return m;
    } catch (javax.management.InstanceNotFoundException e) {
      throw e;
    } catch (javax.management.JMException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  private static ObjectName name(String s) {
    try {
      return new ObjectName(s);
    } catch (javax.management.MalformedObjectNameException e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Override
  public void close() {
    try {
      connector.close();
    } catch (IOException ignored) {
      // the target may be gone
    }
  }
}

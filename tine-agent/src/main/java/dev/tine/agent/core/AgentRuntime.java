package dev.tine.agent.core;

import dev.tine.agent.AgentConfig;
import dev.tine.agent.bootstrap.TineBridge;
import dev.tine.agent.instrument.AgentHooks;
import dev.tine.agent.instrument.PoolTransformer;
import dev.tine.agent.instrument.StackTraceRepair;
import dev.tine.agent.state.Host;
import dev.tine.agent.state.Kind;
import dev.tine.agent.state.PoolFigures;
import dev.tine.agent.state.PoolState;
import dev.tine.agent.state.Registry;
import java.lang.instrument.Instrumentation;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The running agent: the hooks, the pool registry, the ticker thread and the MXBeans. At most one
 * runs per JVM; {@link #start} is idempotent and a stopped agent can be started again (a second
 * {@code tine top} after a {@code stop}).
 */
public final class AgentRuntime implements Host {
  public static final String VERSION = "0.1.0";

  /**
   * The system property the agent sets (to {@link #VERSION}) while it runs with its MXBean, and
   * clears as it stops.
   */
  public static final String RUNNING_PROPERTY = "dev.tine.agent.running";

  private static AgentRuntime current; // guarded by AgentRuntime.class

  final AgentConfig config;
  final boolean premain;
  final long startedAtMillis = System.currentTimeMillis();
  final int processors = Runtime.getRuntime().availableProcessors();
  final Registry registry;
  final AgentHooks hooks;
  final AtomicInteger recorders = new AtomicInteger();
  private final Instrumentation inst;
  private final JmxExporter jmx;
  final Resizer resizer = new Resizer(this);
  private final long failuresAtStart = TineBridge.failures();
  private final PoolTransformer transformer;
  private volatile Thread ticker;
  private volatile boolean stopped;
  volatile double totalLittlesL;
  volatile double processCpuLoad = -1;
  private long lastProcessCpu = processCpuNanos(), lastProcessCpuAt = System.nanoTime();

  private AgentRuntime(Instrumentation inst, AgentConfig config, boolean premain) {
    this.inst = inst;
    this.config = config;
    this.premain = premain;
    this.registry = new Registry(this);
    this.hooks = new AgentHooks(this, registry);
    this.jmx = new JmxExporter(this);
    this.transformer = new PoolTransformer(inst, this);
  }

  /**
   * Starts the agent (or finds it running). Called by {@code dev.tine.agent.Agent} once the bridge
   * is on the bootstrap class path.
   *
   * @return a one-line message for the log
   */
  public static synchronized String start(Instrumentation inst, String args, boolean premain)
      throws Exception {
    AgentConfig config = AgentConfig.parse(args);
    if (current != null && !current.stopped)
      return config.quiet() ? null : "tine-agent " + VERSION + " already running";
    if (!inst.isRetransformClassesSupported()) {
      throw new IllegalStateException(
          "this JVM cannot retransform classes (the agent jar needs Can-Retransform-Classes)");
    }
    AgentRuntime rt = new AgentRuntime(inst, config, premain);
    rt.install();
    current = rt;
    if (rt.prometheusProblem != null) return "tine-agent: " + rt.prometheusProblem;
    if (config.quiet()) return null;
    String url = rt.prometheusUrl();
    return "tine-agent "
        + VERSION
        + ": measuring thread pools ("
        + (premain ? "-javaagent" : "attached")
        + "; MXBeans dev.tine.agent:type=Pool,*"
        + (url != null ? "; Prometheus " + url : "")
        + ")";
  }

  private void install() throws Exception {
    Module bridge = TineBridge.class.getModule();
    // Code in java.base links to the bridge: let it read the bootstrap loader's unnamed module,
    // where the bridge lives. (Named application modules get the same edge when transformed.)
    inst.redefineModule(
        Object.class.getModule(), Set.of(bridge), Map.of(), Map.of(), Set.of(), Map.of());
    TineBridge.unseenStarts = 0; // an earlier agent's, stopped: its threads were not these hooks'
    TineBridge.hooks = hooks; // before any class is transformed: no task is missed halfway
    if (config.jmx()) {
      jmx.registerAgent();
      // read over the attach socket (AttachClient, in its mode EXISTING): a client that must not
      // change a
      // target without the agent learns so without starting the target's JMX connector
      System.setProperty(RUNNING_PROPERTY, VERSION);
    }
    try {
      StackTraceRepair.install(inst);
    } catch (Throwable t) {
      failed(t); // measuring works without it; only frames running at a redefinition lose names
    }
    inst.addTransformer(transformer, true);
    List<Class<?>> loaded = new ArrayList<>();
    for (Class<?> c : inst.getAllLoadedClasses()) {
      if (transformer.targetNames().contains(c.getName().replace('.', '/'))
          && inst.isModifiableClass(c)) {
        transformer.readBridge(c.getModule());
        loaded.add(c);
      }
    }
    if (!loaded.isEmpty()) {
      inst.retransformClasses(loaded.toArray(new Class<?>[0]));
      // pool threads may be inside frames of the old code: their next task starts unseen there
      List<Thread> running = hooks.expectUnseenStarts();
      if (!running.isEmpty()) {
        // their pools, read from the threads' workers (private fields of java.base): opened to
        // the bridge's module alone, not to the application's class path the agent shares
        inst.redefineModule(
            Object.class.getModule(),
            Set.of(),
            Map.of(),
            Map.of("java.lang", Set.of(bridge), "java.util.concurrent", Set.of(bridge)),
            Set.of(),
            Map.of());
        hooks.runningWorkers(running);
      }
    }
    // Ticks start once the pools are instrumented: the first one covers a whole tick of measuring.
    ticker = new Thread(this::tickLoop, "tine-agent-ticker");
    ticker.setDaemon(true);
    ticker.start();
    if (config.prometheus() != null) {
      try {
        prometheus = PrometheusEndpoint.start(this, config.prometheus());
      } catch (Exception | LinkageError e) {
        // The pools are measured anyway; say why there is no endpoint.
        failed(e);
        prometheusProblem = "no Prometheus endpoint at " + config.prometheus() + ": " + e;
      }
    }
  }

  private volatile PrometheusEndpoint prometheus;

  /** Why the endpoint asked for did not start, or null. */
  volatile String prometheusProblem;

  /** Where the Prometheus endpoint serves, or null. */
  String prometheusUrl() {
    PrometheusEndpoint p = prometheus;
    return p == null ? null : p.url();
  }

  // ---------------------------------------------------------------------------------------------

  @Override
  public void failed(Throwable t) {
    TineBridge.failed(t);
  }

  @Override
  public AgentConfig config() {
    return config;
  }

  @Override
  public AtomicInteger recorders() {
    return recorders;
  }

  @Override
  public int processors() {
    return processors;
  }

  long failures() {
    return TineBridge.failures() - failuresAtStart;
  }

  String lastFailure() {
    Throwable t = TineBridge.lastFailure();
    if (t == null) return "";
    StackTraceElement[] st = t.getStackTrace();
    return t + (st.length > 0 ? " at " + st[0] : "");
  }

  String[] instrumentedClasses() {
    return transformer.transformed.toArray(new String[0]);
  }

  int measuredPools() {
    int n = 0;
    for (PoolState s : registry.all()) if (s.objectName != null || s.figures != null) n++;
    return n;
  }

  /** Ticks done so far. */
  volatile long ticks;

  /** A new pool appeared (it is published at the next tick, once its threads have named it). */
  @Override
  public void wakeTicker() {}

  private void tickLoop() {
    long tick = config.tick().toNanos();
    long next = System.nanoTime() + tick;
    while (!stopped) {
      try {
        long now = System.nanoTime();
        if (now - next >= 0) {
          tickAll(now);
          ticks++;
          next += tick;
          if (System.nanoTime() - next > tick) next = System.nanoTime() + tick; // fell behind: skip
        } else {
          LockSupport.parkNanos(next - now);
        }
      } catch (Throwable t) {
        failed(t);
        LockSupport.parkNanos(tick);
      }
    }
  }

  /** Every pool: harvest, figures, MXBeans; forget the gone. */
  private void tickAll(long now) {
    scanForkJoinWorkers();
    hooks.forgetEndedThreads();
    List<PoolState> gone = new ArrayList<>();
    double sumL = 0;
    for (PoolState st : registry.all()) {
      try {
        if (!st.isActive()) {
          if (st.ref.refersTo(null)) gone.add(st);
          continue;
        }
        if (!st.refresh(now)) {
          gone.add(st);
          continue;
        }
        PoolFigures f = st.figures;
        if (f != null && !Double.isNaN(f.littlesL)) sumL += f.littlesL;
        if (f != null && jfr()) PoolStatisticsEvent.emit(f);
        resizer.watch(st);
        if (config.jmx()) jmx.ensureRegistered(st);
      } catch (Throwable t) {
        failed(t);
      }
    }
    for (PoolState st : gone) {
      jmx.unregister(st);
      st.close();
    }
    registry.remove(gone);
    totalLittlesL = sumL;
    long cpu = processCpuNanos();
    if (cpu >= 0 && lastProcessCpu >= 0 && now > lastProcessCpuAt) {
      processCpuLoad = (cpu - lastProcessCpu) / ((double) (now - lastProcessCpuAt) * processors);
    }
    lastProcessCpu = cpu;
    lastProcessCpuAt = now;
    if ((now / config.tick().toNanos()) % 10 == 0) {
      hooks.forkJoinPending.expunge();
    }
  }

  /** Finds ForkJoinPools by their workers (the common pool and pools made before the agent). */
  private void scanForkJoinWorkers() {
    ThreadGroup g = Thread.currentThread().getThreadGroup();
    while (g.getParent() != null) g = g.getParent();
    Thread[] ts = new Thread[g.activeCount() + 32];
    int n = g.enumerate(ts, true);
    for (int i = 0; i < n; i++) {
      if (ts[i] instanceof ForkJoinWorkerThread w) {
        ForkJoinPool p = w.getPool();
        if (p == null) continue;
        PoolState st = registry.getOrCreate(p, Kind.FORK_JOIN);
        if (st != null) st.threads.ensure(w);
      }
    }
  }

  /**
   * Whether JFR runs in this JVM: only then is the event class loaded (loading the first event
   * class initializes JFR's metadata, a cost the application should not pay for nothing).
   */
  static boolean jfr() {
    try {
      return jdk.jfr.FlightRecorder.isInitialized();
    } catch (LinkageError e) {
      return false; // a runtime image without jdk.jfr
    }
  }

  private static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  // ---------------------------------------------------------------------------------------------

  /** From the MXBean: stop on another thread (the caller is an RMI thread inside a JMX call). */
  void stopAsync() {
    Thread t = new Thread(this::stop, "tine-agent-stop");
    t.setDaemon(true);
    t.start();
  }

  /**
   * Stops: the hooks go quiet at once, the pools the agent resized get their original sizes back,
   * the instrumented classes get their original bytecode back, the MXBeans and the ticker go. The
   * bridge stays on the bootstrap class path (it cannot be removed) and does nothing.
   */
  public void stop() {
    synchronized (AgentRuntime.class) {
      if (stopped) return;
      stopped = true;
      TineBridge.hooks = null;
      System.clearProperty(RUNNING_PROPERTY);
    }
    Thread t = ticker;
    if (t != null) {
      LockSupport.unpark(t);
      try {
        t.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // the pools the agent resized get their sizes back while the agent still knows them
    try {
      resizer.restoreAll();
    } catch (Throwable e) {
      failed(e);
    }
    try {
      inst.removeTransformer(transformer);
      List<Class<?>> back = new ArrayList<>();
      for (Class<?> c : inst.getAllLoadedClasses()) {
        if (transformer.targetNames().contains(c.getName().replace('.', '/'))
            && inst.isModifiableClass(c)) back.add(c);
      }
      if (!back.isEmpty())
        inst.retransformClasses(back.toArray(new Class<?>[0])); // the original bytecode
      transformer.transformed.clear();
    } catch (Throwable e) {
      failed(e);
    }
    for (PoolState st : registry.all()) {
      jmx.unregister(st);
      st.close();
    }
    PrometheusEndpoint p = prometheus;
    if (p != null) p.stop();
    prometheus = null;
    registry.clear();
    hooks.forkJoinPending.clear();
    TineBridge.fjPending = 0;
    jmx.unregisterAgent();
  }
}

package dev.tine.agent.core;

import dev.tine.agent.jmx.AgentMXBean;
import dev.tine.agent.jmx.PoolMXBean;
import dev.tine.agent.resize.ResizeResult;
import dev.tine.agent.state.PoolFigures;
import dev.tine.agent.state.PoolState;
import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** Registers the agent's MXBeans in the platform MBean server (no connector, no port). */
final class JmxExporter {
  static final String DOMAIN = "dev.tine.agent";
  private final AgentRuntime rt;
  private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
  private ObjectName agentName;

  JmxExporter(AgentRuntime rt) {
    this.rt = rt;
  }

  void registerAgent() throws Exception {
    ObjectName on = new ObjectName(DOMAIN + ":type=Agent");
    if (server.isRegistered(on)) server.unregisterMBean(on); // a stopped agent's, from before
    server.registerMBean(new AgentBean(), on);
    agentName = on;
  }

  /** Registers the pool's MXBean if it has figures and no MXBean yet. Ticker only. */
  void ensureRegistered(PoolState st) {
    if (st.objectName != null || st.figures == null) return;
    try {
      String name = st.figures.name;
      ObjectName on =
          new ObjectName(DOMAIN + ":type=Pool,name=" + ObjectName.quote(name) + ",id=" + st.id);
      server.registerMBean(new PoolBean(st), on);
      st.objectName = on;
    } catch (Exception e) {
      rt.failed(e);
    }
  }

  void unregister(PoolState st) {
    ObjectName on = st.objectName;
    if (on == null) return;
    st.objectName = null;
    try {
      server.unregisterMBean(on);
    } catch (Exception e) {
      // gone already
    }
  }

  void unregisterAgent() {
    if (agentName == null) return;
    try {
      server.unregisterMBean(agentName);
    } catch (Exception e) {
      // gone already
    }
    agentName = null;
  }

  private final class AgentBean implements AgentMXBean {
    @Override
    public String getVersion() {
      return AgentRuntime.VERSION;
    }

    @Override
    public String getStartedBy() {
      return rt.premain ? "premain" : "attach";
    }

    @Override
    public long getStartedAtMillis() {
      return rt.startedAtMillis;
    }

    @Override
    public long getTicks() {
      return rt.ticks;
    }

    @Override
    public int getPools() {
      return rt.measuredPools();
    }

    @Override
    public int getRefusedPools() {
      return rt.registry.refused.get();
    }

    @Override
    public int getRecorders() {
      return rt.recorders.get();
    }

    @Override
    public int getProcessors() {
      return rt.processors;
    }

    @Override
    public long getFailures() {
      return rt.failures();
    }

    @Override
    public String getLastFailure() {
      return rt.lastFailure();
    }

    @Override
    public String[] getInstrumentedClasses() {
      return rt.instrumentedClasses();
    }

    @Override
    public double getTotalLittlesL() {
      return rt.totalLittlesL;
    }

    @Override
    public double getProcessCpuLoad() {
      return rt.processCpuLoad;
    }

    @Override
    public String getConfiguration() {
      return rt.config.toString();
    }

    @Override
    public double getWindowSeconds() {
      return rt.config.window().toMillis() / 1000.0;
    }

    @Override
    public double getTickSeconds() {
      return rt.config.tick().toMillis() / 1000.0;
    }

    @Override
    public int getMaxPools() {
      return rt.config.maxPools();
    }

    @Override
    public String getPrometheusUrl() {
      String u = rt.prometheusUrl();
      return u == null ? "" : u;
    }

    @Override
    public String resize(String pool, int size, String requestedBy, String why) {
      return resize(pool, size, requestedBy, why, false);
    }

    @Override
    public String resize(String pool, int size, String requestedBy, String why, boolean force) {
      return rt.resizer.resize(pool, size, requestedBy, why, force).encode();
    }

    @Override
    public String restore(String pool) {
      return restore(pool, false);
    }

    @Override
    public String restore(String pool, boolean force) {
      return restore(pool, force, "unknown", "restore");
    }

    @Override
    public String restore(String pool, boolean force, String requestedBy, String why) {
      StringBuilder sb = new StringBuilder();
      for (ResizeResult r : rt.resizer.restore(pool, force, requestedBy, why)) {
        if (!sb.isEmpty()) sb.append('\n');
        sb.append(r.encode());
      }
      return sb.toString();
    }

    @Override
    public void stop() {
      rt.stopAsync();
    }
  }

  private static final class PoolBean implements PoolMXBean {
    private final PoolState st;

    PoolBean(PoolState st) {
      this.st = st;
    }

    private PoolFigures f() {
      PoolFigures f = st.figures;
      return f != null ? f : new PoolFigures();
    }

    @Override
    public int getId() {
      return st.id;
    }

    @Override
    public String getName() {
      return f().name;
    }

    @Override
    public String getKind() {
      return st.kindLabel();
    }

    @Override
    public String getPoolClass() {
      return st.className;
    }

    @Override
    public String getCreatedAt() {
      return f().createdAt;
    }

    @Override
    public String getState() {
      return f().state;
    }

    @Override
    public long getMeasuredAtMillis() {
      return f().measuredMillis;
    }

    @Override
    public int getCorePoolSize() {
      return f().corePoolSize;
    }

    @Override
    public int getMaximumPoolSize() {
      return f().maximumPoolSize;
    }

    @Override
    public int getPoolSize() {
      return f().poolSize;
    }

    @Override
    public int getActiveCount() {
      return f().activeCount;
    }

    @Override
    public int getQueueLength() {
      return f().queueLength;
    }

    @Override
    public int getParallelism() {
      return f().parallelism;
    }

    @Override
    public long getStealCount() {
      return f().stealCount;
    }

    @Override
    public long getArrivals() {
      return f().arrivals;
    }

    @Override
    public long getCompleted() {
      return f().completed;
    }

    @Override
    public long getRejected() {
      return f().rejected;
    }

    @Override
    public long getFailed() {
      return f().failed;
    }

    @Override
    public double getWindowSeconds() {
      return f().windowSeconds;
    }

    @Override
    public long getWindowArrivals() {
      return f().windowArrivals;
    }

    @Override
    public long getWindowCompleted() {
      return f().windowCompleted;
    }

    @Override
    public long getWindowRejected() {
      return f().windowRejected;
    }

    @Override
    public double getArrivalRate() {
      return f().arrivalRate;
    }

    @Override
    public double getRetirementRate() {
      return f().retirementRate;
    }

    @Override
    public double getServiceMillis() {
      return f().serviceMs;
    }

    @Override
    public double getWaitMillis() {
      return f().waitMs;
    }

    @Override
    public double getResponseMillis() {
      return f().responseMs;
    }

    @Override
    public double getWaitP50Millis() {
      return f().waitP50Ms;
    }

    @Override
    public double getWaitP90Millis() {
      return f().waitP90Ms;
    }

    @Override
    public double getWaitP99Millis() {
      return f().waitP99Ms;
    }

    @Override
    public double getServiceP50Millis() {
      return f().serviceP50Ms;
    }

    @Override
    public double getServiceP90Millis() {
      return f().serviceP90Ms;
    }

    @Override
    public double getServiceP99Millis() {
      return f().serviceP99Ms;
    }

    @Override
    public double getWaitMaxMillis() {
      return f().waitMaxMs;
    }

    @Override
    public double getServiceMaxMillis() {
      return f().serviceMaxMs;
    }

    @Override
    public double getLittlesL() {
      return f().littlesL;
    }

    @Override
    public double getDeadTimeRatio() {
      return f().deadTimeRatio;
    }

    @Override
    public double getCpuPercent() {
      return f().cpuPercent;
    }

    @Override
    public long getCpuTimeNanos() {
      return f().cpuTimeNanos;
    }

    @Override
    public double getCpuPerTaskMillis() {
      return f().cpuPerTaskMs;
    }

    @Override
    public int getSampleEvery() {
      return f().sampleEvery;
    }

    @Override
    public int getRecommendedSize() {
      return f().recommendedSize;
    }

    @Override
    public String getRecommendation() {
      return f().recommendation;
    }

    /** The pool's task figures: the main ones unless the pool is measured per request. */
    private PoolFigures t() {
      PoolFigures f = f();
      return f.tasks != null ? f.tasks : f;
    }

    @Override
    public String getUnit() {
      return f().unit;
    }

    @Override
    public double getTasksPerRequest() {
      return f().tasksPerRequest;
    }

    @Override
    public double getTaskArrivalRate() {
      return t().arrivalRate;
    }

    @Override
    public double getTaskRetirementRate() {
      return t().retirementRate;
    }

    @Override
    public double getTaskServiceMillis() {
      return t().serviceMs;
    }

    @Override
    public double getTaskWaitMillis() {
      return t().waitMs;
    }

    @Override
    public double getTaskWaitP99Millis() {
      return t().waitP99Ms;
    }

    @Override
    public double getTaskLittlesL() {
      return t().littlesL;
    }

    @Override
    public long getTaskWindowCompleted() {
      return t().windowCompleted;
    }

    @Override
    public long getTaskCompleted() {
      return t().completed;
    }

    @Override
    public boolean isResizable() {
      return st.sizes.resizable;
    }

    @Override
    public String getNotResizableWhy() {
      return st.sizes.notResizableWhy;
    }

    @Override
    public String getSizeSetting() {
      return st.sizes.setting;
    }

    @Override
    public int getCurrentSize() {
      return st.sizes.currentSize;
    }

    @Override
    public int getOriginalSize() {
      return st.sizes.originalOrCurrent();
    }

    @Override
    public int getResizeCount() {
      return st.sizes.resizeCount;
    }

    @Override
    public String getLastResizedBy() {
      return st.sizes.lastResizedBy;
    }

    @Override
    public long getLastResizedAtMillis() {
      return st.sizes.lastResizedAtMillis;
    }

    @Override
    public long getExternallyResizedAtMillis() {
      return st.sizes.externalAtMillis;
    }

    @Override
    public String getExternalResize() {
      return st.sizes.external;
    }
  }
}

package dev.tine.agent.top;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Locale;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;

/**
 * A target JVM's heap, read over its JMX connection before the agent is loaded: the maximum, and
 * the live data (what its heap pools held after their last collection; what they hold now if none
 * collected yet, which overstates it and so errs on the safe side). Nothing is allocated or
 * collected in the target for it.
 *
 * @param max the heap's maximum (bytes)
 * @param live the live data estimate (bytes)
 * @param afterGc whether {@code live} is from after a collection
 */
record Headroom(long max, long live, boolean afterGc) {
  static Headroom read(MBeanServerConnection mbs) throws IOException {
    MemoryUsage heap =
        ManagementFactory.newPlatformMXBeanProxy(
                mbs, ManagementFactory.MEMORY_MXBEAN_NAME, java.lang.management.MemoryMXBean.class)
            .getHeapMemoryUsage();
    long max = heap.getMax() > 0 ? heap.getMax() : heap.getCommitted();
    if (max <= 0) return null;
    long afterGc = 0;
    boolean collected = false;
    try {
      for (ObjectName on :
          mbs.queryNames(
              new ObjectName(ManagementFactory.MEMORY_POOL_MXBEAN_DOMAIN_TYPE + ",*"), null)) {
        MemoryPoolMXBean p =
            ManagementFactory.newPlatformMXBeanProxy(
                mbs, on.getCanonicalName(), MemoryPoolMXBean.class);
        if (p.getType() != MemoryType.HEAP) continue;
        MemoryUsage u = p.getCollectionUsage();
        if (u != null && u.getUsed() > 0) {
          collected = true;
          afterGc += u.getUsed();
        }
      }
    } catch (javax.management.MalformedObjectNameException e) {
      throw new IllegalStateException(e);
    }
    long live = collected ? afterGc : heap.getUsed();
    return new Headroom(max, live, collected);
  }

  /** Why {@code need} more bytes would risk this heap, or null if they would not. */
  String refusal(long need) {
    long margin = max / 10;
    long free = max - live;
    if (free - margin >= need) return null;
    return String.format(
        Locale.ROOT,
        "its heap holds %s live of %s at most%s, and the agent may take up to %s there"
            + " (lower it with --agent-options maxPools=N, or give the JVM more heap)",
        mb(live),
        mb(max),
        afterGc ? " (after its last GC)" : "",
        mb(need));
  }

  static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024.0));
  }
}

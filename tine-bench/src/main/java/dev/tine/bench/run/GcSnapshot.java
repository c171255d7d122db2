package dev.tine.bench.run;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * GC pauses at one moment: counts and times of young (minor) and old/full (major) collections, from
 * the GarbageCollectorMXBeans; concurrent cycles, which pause nobody, are left out.
 */
public record GcSnapshot(long minorCount, long minorMillis, long fullCount, long fullMillis) {
  public static GcSnapshot now() {
    long mc = 0, mt = 0, fc = 0, ft = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      String n = gc.getName();
      long c = Math.max(0, gc.getCollectionCount()), t = Math.max(0, gc.getCollectionTime());
      if (n.contains("Concurrent") || n.contains("Cycles")) {
        continue; // G1's concurrent cycles, ZGC's and Shenandoah's cycles: concurrent work, not
        // pauses
      }
      if (n.contains("Old")
          || n.contains("MarkSweep")
          || n.contains("Full")
          || n.contains("Major")) {
        fc += c;
        ft += t;
      } else {
        mc += c;
        mt += t;
      }
    }
    return new GcSnapshot(mc, mt, fc, ft);
  }

  public GcSnapshot minus(GcSnapshot o) {
    return new GcSnapshot(
        minorCount - o.minorCount,
        minorMillis - o.minorMillis,
        fullCount - o.fullCount,
        fullMillis - o.fullMillis);
  }

  public GcSnapshot plus(GcSnapshot o) {
    return new GcSnapshot(
        minorCount + o.minorCount,
        minorMillis + o.minorMillis,
        fullCount + o.fullCount,
        fullMillis + o.fullMillis);
  }
}

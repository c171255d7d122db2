package dev.tine.bench.run;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/** GC counts and times (young and old/full collectors separately) at one moment. */
public record GcSnapshot(long minorCount, long minorMillis, long fullCount, long fullMillis) {
  public static GcSnapshot now() {
    long mc = 0, mt = 0, fc = 0, ft = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      String n = gc.getName();
      long c = Math.max(0, gc.getCollectionCount()), t = Math.max(0, gc.getCollectionTime());
      if (n.contains("Old") || n.contains("MarkSweep") || n.contains("Full")) {
        fc += c;
        ft += t;
      } else if (!n.contains("Concurrent")) { // G1's concurrent cycles pause nobody
        mc += c;
        mt += t;
      }
    }
    return new GcSnapshot(mc, mt, fc, ft);
  }

  public GcSnapshot minus(GcSnapshot o) {
    return new GcSnapshot(minorCount - o.minorCount, minorMillis - o.minorMillis,
        fullCount - o.fullCount, fullMillis - o.fullMillis);
  }

  public GcSnapshot plus(GcSnapshot o) {
    return new GcSnapshot(minorCount + o.minorCount, minorMillis + o.minorMillis,
        fullCount + o.fullCount, fullMillis + o.fullMillis);
  }
}

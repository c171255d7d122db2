package dev.tine.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.WorkStealingPool;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * Registration under a free name, read back from the platform MBean server itself: objects that
 * share a name get distinct beans, and each one's unregistration leaves none behind.
 */
class MXBeanRegistrationTest {
  /** What a bean needs to be an MXBean: an interface named {@code ...MXBean}. */
  public interface ProbeMXBean {
    int getIndex();
  }

  record Probe(int index) implements ProbeMXBean {
    @Override
    public int getIndex() {
      return index;
    }
  }

  private static Set<ObjectName> registered(String type, String name) throws Exception {
    // every bean of this type whose name starts with `name` ("name", "name#2", ...)
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    Set<ObjectName> all = server.queryNames(new ObjectName("dev.tine:type=" + type + ",*"), null);
    all.removeIf(on -> !ObjectName.unquote(on.getKeyProperty("name")).startsWith(name));
    return all;
  }

  @Test
  void sameNameGetsDistinctBeansAndUnregisterLeavesNone() throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    List<ObjectName> names = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ObjectName on = MXBeanRegistration.register(new Probe(i), "RegistrationProbe", "twin");
      assertNotNull(on);
      names.add(on);
    }
    assertEquals(3, Set.copyOf(names).size(), "distinct names: " + names);
    assertEquals(Set.copyOf(names), registered("RegistrationProbe", "twin"));
    for (int i = 0; i < 3; i++) {
      // each name leads to its own object, not to the first one registered
      assertEquals(i, server.getAttribute(names.get(i), "Index"), names.get(i).toString());
    }
    assertEquals(new ObjectName("dev.tine:type=RegistrationProbe,name=\"twin#2\""), names.get(1));
    for (ObjectName on : names) MXBeanRegistration.unregister(on);
    MXBeanRegistration.unregister(names.get(0)); // already gone: harmless
    MXBeanRegistration.unregister(null);
    assertEquals(Set.of(), registered("RegistrationProbe", "twin"));
  }

  @Test
  void twoPoolsWithOneNameThenNoneAfterClose() throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName a, b;
    try (WorkStealingPool p = WorkStealingPool.builder().parallelism(1).name("reg-twin").build();
        WorkStealingPool q = WorkStealingPool.builder().parallelism(1).name("reg-twin").build()) {
      a = p.mxBeanName();
      b = q.mxBeanName();
      assertNotEquals(a, b);
      assertEquals(Set.of(a, b), registered("WorkStealingPool", "reg-twin"));
      assertEquals("reg-twin", server.getAttribute(b, "Name"));
    }
    assertTrue(registered("WorkStealingPool", "reg-twin").isEmpty(), "none left after close");
  }
}

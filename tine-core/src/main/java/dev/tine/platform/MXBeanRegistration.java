package dev.tine.platform;

import java.lang.management.ManagementFactory;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * Registers MXBeans with the platform MBean server as {@code dev.tine:type=<type>,name="<name>"},
 * under the object's own name or, when another object already holds it, {@code name#2}, {@code
 * name#3}...: two pools may share a name, their beans may not.
 */
public final class MXBeanRegistration {
  private MXBeanRegistration() {}

  /**
   * Registers {@code bean} under the first free name; returns that name, or null if JMX refused
   * (the object works without it).
   *
   * @param bean the MXBean
   * @param type the {@code type} key of its object name
   * @param name the wanted {@code name} key; {@code #2}, {@code #3}... are added while it is taken
   * @return the name it was registered under, or null
   */
  public static ObjectName register(Object bean, String type, String name) {
    var server = ManagementFactory.getPlatformMBeanServer();
    for (int attempt = 1; ; attempt++) {
      String n = attempt == 1 ? name : name + "#" + attempt;
      try {
        ObjectName on = new ObjectName("dev.tine:type=" + type + ",name=" + ObjectName.quote(n));
        server.registerMBean(bean, on);
        return on;
      } catch (InstanceAlreadyExistsException e) {
        // another object has this name: try the next suffix
      } catch (JMException e) {
        return null;
      }
    }
  }

  /**
   * Unregisters a name {@link #register} returned; harmless if null or already gone.
   *
   * @param name the name {@link #register} returned, or null
   */
  public static void unregister(ObjectName name) {
    if (name == null) return;
    try {
      ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
    } catch (JMException e) {
      // already gone
    }
  }
}

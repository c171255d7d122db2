package dev.tine.agent;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * The agent's entry point, {@code Premain-Class} and {@code Agent-Class} of {@code tine-agent.jar}.
 *
 * <p>It does two things only, and names no other agent class directly: it puts the bridge ({@code
 * dev.tine.agent.bootstrap.*}, two small classes that depend on {@code java.base} alone) on the
 * bootstrap class path, because the advice inlined into {@code java.util.concurrent} must link to
 * it; then it starts {@code dev.tine.agent.core.AgentRuntime} by reflection. Had this class linked
 * to the bridge before the bootstrap loader could see it, the application class loader would have
 * loaded a second copy, invisible to {@code java.base} (the trap OpenTelemetry's agent documents).
 *
 * <p>Nothing escapes: if the agent cannot start it says why on standard error, and the application
 * runs on unmeasured.
 */
public final class Agent {
  private Agent() {}

  static final String[] BRIDGE = {
    "dev/tine/agent/bootstrap/TineHooks", "dev/tine/agent/bootstrap/TineBridge"
  };

  /** {@code -javaagent:tine-agent.jar[=options]}. */
  public static void premain(String args, Instrumentation inst) {
    start(args, inst, true);
  }

  /** Loaded into a running JVM (the Attach API, e.g. by {@code tine top}). */
  public static void agentmain(String args, Instrumentation inst) {
    start(args, inst, false);
  }

  private static synchronized void start(String args, Instrumentation inst, boolean premain) {
    try {
      injectBridge(inst);
      Object msg =
          Class.forName("dev.tine.agent.core.AgentRuntime")
              .getMethod("start", Instrumentation.class, String.class, boolean.class)
              .invoke(null, inst, args, premain);
      if (msg != null) System.err.println(msg);
    } catch (Throwable t) {
      Throwable c =
          t instanceof java.lang.reflect.InvocationTargetException ite && ite.getCause() != null
              ? ite.getCause()
              : t;
      System.err.println("tine-agent: not started: " + c);
    }
  }

  /** Appends a jar with the bridge classes to the bootstrap class path (once per JVM). */
  static void injectBridge(Instrumentation inst) throws IOException, ClassNotFoundException {
    if (bootstrapHasBridge()) return;
    File jar = File.createTempFile("tine-agent-bridge-", ".jar");
    jar.deleteOnExit();
    ClassLoader own = Agent.class.getClassLoader();
    try (JarOutputStream out = new JarOutputStream(new FileOutputStream(jar))) {
      for (String c : BRIDGE) {
        try (InputStream in = own.getResourceAsStream(c + ".class")) {
          if (in == null) throw new IOException("the agent jar has no " + c + ".class");
          out.putNextEntry(new JarEntry(c + ".class"));
          in.transferTo(out);
          out.closeEntry();
        }
      }
    }
    inst.appendToBootstrapClassLoaderSearch(new JarFile(jar));
    for (String c : BRIDGE) {
      Class<?> k = Class.forName(c.replace('/', '.'), true, null);
      if (k.getClassLoader() != null)
        throw new IllegalStateException(c + " was not loaded by the bootstrap class loader");
    }
  }

  private static boolean bootstrapHasBridge() {
    try {
      Class.forName(BRIDGE[1].replace('/', '.'), false, null);
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}

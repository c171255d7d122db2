package dev.tine.agent.instrument;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.tine.agent.bootstrap.TineBridge;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.Set;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.pool.TypePool;

/**
 * Keeps stack traces as they are without the agent. Redefining a class (the agent's
 * retransformation at attach, and again at stop) leaves the frames that were running in it at that
 * moment on an older version of the class; the JVM then still knows their line numbers but drops
 * their file name ({@code ThreadPoolExecutor.runWorker(Unknown Source)} in every later stack trace
 * of a pool thread that existed before the attach). The file name is the class file's {@code
 * SourceFile}: {@link #record} keeps it for every class the agent transforms, and advice on {@code
 * StackTraceElement.of} (where the JDK finishes every {@code Throwable}'s, {@code
 * Thread.getStackTrace}'s and {@code StackWalker}'s elements) writes it back into a frame that
 * lacks it. Installed once per JVM and left in place when the agent stops, since the classes stay
 * redefined. (Thread dumps printed by the JVM itself, {@code jstack}, are not Java code and keep
 * "Unknown Source" for those frames.)
 */
public final class StackTraceRepair implements ClassFileTransformer {
  private static final String STE = "java/lang/StackTraceElement";

  private final AsmVisitorWrapper advice =
      new AsmVisitorWrapper.Compound(
          Advice.to(OfArray.class).on(named("of").and(takesArguments(StackTraceElement[].class))),
          Advice.to(OfFrame.class)
              .on(
                  named("of")
                      .and(takesArguments(1))
                      .and(
                          net.bytebuddy.matcher.ElementMatchers.not(
                              takesArguments(StackTraceElement[].class)))));

  static final class OfArray {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.Return StackTraceElement[] trace) {
      TineBridge.restoreSourceFiles(trace);
    }
  }

  static final class OfFrame {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.Return StackTraceElement e, @Advice.Argument(0) Object frame) {
      TineBridge.restoreSourceFile(e, frame);
    }
  }

  /** Installs the repair unless an earlier agent in this JVM did. */
  public static synchronized void install(Instrumentation inst) throws Throwable {
    if (TineBridge.setFileName != null) return;
    Module base = Object.class.getModule();
    Module own = StackTraceRepair.class.getModule();
    // The element's file name is a final field: written through the JDK's internal Unsafe (the
    // public one refuses it), for which java.base exports jdk.internal.misc to the agent.
    inst.redefineModule(
        base,
        Set.of(TineBridge.class.getModule()),
        Map.of("jdk.internal.misc", Set.of(own)),
        Map.of(),
        Set.of(),
        Map.of());
    Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
    MethodHandles.Lookup lookup = MethodHandles.lookup();
    Object unsafe =
        lookup.findStatic(unsafeClass, "getUnsafe", MethodType.methodType(unsafeClass)).invoke();
    long offset =
        (long)
            lookup
                .findVirtual(
                    unsafeClass,
                    "objectFieldOffset",
                    MethodType.methodType(long.class, Class.class, String.class))
                .invoke(unsafe, StackTraceElement.class, "fileName");
    MethodHandle put =
        lookup
            .findVirtual(
                unsafeClass,
                "putReference",
                MethodType.methodType(void.class, Object.class, long.class, Object.class))
            .bindTo(unsafe);
    TineBridge.setFileName =
        (e, file) -> {
          try {
            put.invokeExact((Object) e, offset, (Object) file);
          } catch (Throwable t) {
            TineBridge.failed(t);
          }
        };
    MethodHandle putInt =
        lookup
            .findVirtual(
                unsafeClass,
                "putInt",
                MethodType.methodType(void.class, Object.class, long.class, int.class))
            .bindTo(unsafe);
    long lineOffset =
        (long)
            lookup
                .findVirtual(
                    unsafeClass,
                    "objectFieldOffset",
                    MethodType.methodType(long.class, Class.class, String.class))
                .invoke(unsafe, StackTraceElement.class, "lineNumber");
    TineBridge.setLineNumber =
        (e, line) -> {
          try {
            putInt.invokeExact((Object) e, lineOffset, line);
          } catch (Throwable t) {
            TineBridge.failed(t);
          }
        };
    StackTraceRepair repair = new StackTraceRepair();
    inst.addTransformer(repair, true);
    inst.retransformClasses(StackTraceElement.class);
    if (!repair.done) {
      inst.removeTransformer(repair);
      TineBridge.setFileName = null;
      throw new IllegalStateException("StackTraceElement was not instrumented");
    }
  }

  private volatile boolean done;

  /**
   * Remembers the {@code SourceFile} and line tables of a class the agent is about to transform
   * (the first time only: later calls see bytes the agent already changed, or the same).
   */
  static void record(String internalName, byte[] classFile) {
    String name = internalName.replace('/', '.');
    if (TineBridge.SOURCE_FILES.containsKey(name)) return;
    try {
      new ClassReader(classFile)
          .accept(
              // Written through a ClassWriter only so that the labels get their offsets.
              new ClassVisitor(Opcodes.ASM9, new ClassWriter(0)) {
                @Override
                public void visitSource(String source, String debug) {
                  super.visitSource(source, debug);
                  if (source != null) TineBridge.SOURCE_FILES.put(name, source);
                }

                @Override
                public MethodVisitor visitMethod(
                    int access, String method, String desc, String sig, String[] exceptions) {
                  String key = name + "." + method;
                  return new MethodVisitor(
                      Opcodes.ASM9, super.visitMethod(access, method, desc, sig, exceptions)) {
                    private final java.util.List<Label> starts = new java.util.ArrayList<>();
                    private final java.util.List<Integer> lines = new java.util.ArrayList<>();

                    @Override
                    public void visitLineNumber(int line, Label start) {
                      super.visitLineNumber(line, start);
                      starts.add(start); // resolved by the end of the method
                      lines.add(line);
                    }

                    @Override
                    public void visitEnd() {
                      super.visitEnd();
                      int[] table = new int[2 * lines.size()];
                      for (int i = 0; i < lines.size(); i++) {
                        table[2 * i] = starts.get(i).getOffset();
                        table[2 * i + 1] = lines.get(i);
                      }
                      // an overloaded name has no table: its frames get their file name only
                      TineBridge.LINE_TABLES.merge(key, table, (a, b) -> new int[0]);
                    }
                  };
                }
              },
              ClassReader.SKIP_FRAMES);
    } catch (RuntimeException e) {
      TineBridge.failed(e); // the class is still instrumented; only this repair is lost
    }
  }

  @Override
  public byte[] transform(
      Module module,
      ClassLoader loader,
      String className,
      Class<?> redefined,
      ProtectionDomain pd,
      byte[] bytes) {
    if (!STE.equals(className)) return null;
    try {
      ClassFileLocator locator =
          new ClassFileLocator.Compound(
              ClassFileLocator.Simple.of("java.lang.StackTraceElement", bytes),
              ClassFileLocator.ForClassLoader.ofBootLoader());
      TypeDescription type =
          TypePool.Default.of(locator).describe("java.lang.StackTraceElement").resolve();
      byte[] out =
          new ByteBuddy()
              .with(TypeValidation.DISABLED)
              .with(Implementation.Context.Disabled.Factory.INSTANCE)
              .decorate(type, locator)
              .visit(advice)
              .make()
              .getBytes();
      done = true;
      return out;
    } catch (Throwable t) {
      TineBridge.failed(t);
      return null;
    }
  }
}

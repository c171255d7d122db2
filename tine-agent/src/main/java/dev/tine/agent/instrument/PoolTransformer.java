package dev.tine.agent.instrument;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static net.bytebuddy.matcher.ElementMatchers.takesNoArguments;

import dev.tine.agent.bootstrap.TineBridge;
import dev.tine.agent.state.Host;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.pool.TypePool;

/**
 * Inlines {@link Advices} into the pools' classes, when they load or when retransformed. A plain
 * {@link ClassFileTransformer} around ByteBuddy's {@code decorate} (rather than its {@code
 * AgentBuilder}, whose setup reaches for {@code sun.misc.Unsafe} and makes the JDK print warnings
 * in the application's output). Six class names, matched before anything else is done, so every
 * other class loads untouched; the class format never changes (no added members), as
 * retransformation requires.
 */
public final class PoolTransformer implements ClassFileTransformer {
  private final Instrumentation inst;
  private final Host host;
  private final Map<String, AsmVisitorWrapper> targets = new LinkedHashMap<>();

  /** Names of the classes instrumented so far. */
  public final Set<String> transformed = new ConcurrentSkipListSet<>();

  private final ByteBuddy byteBuddy =
      new ByteBuddy()
          .with(TypeValidation.DISABLED)
          .with(Implementation.Context.Disabled.Factory.INSTANCE);

  public PoolTransformer(Instrumentation inst, Host host) {
    this.inst = inst;
    this.host = host;
    targets.put(
        "java/util/concurrent/ThreadPoolExecutor",
        new AsmVisitorWrapper.Compound(
            Advice.to(Advices.PoolCreated.class).on(isConstructor()),
            Advice.to(Advices.Execute.class)
                .on(named("execute").and(takesArguments(Runnable.class))),
            Advice.to(Advices.Reject.class).on(named("reject").and(takesArguments(Runnable.class))),
            Advice.to(Advices.GetTask.class).on(named("getTask").and(takesNoArguments())),
            Advice.to(Advices.BeforeExecute.class)
                .on(named("beforeExecute").and(takesArguments(Thread.class, Runnable.class))),
            Advice.to(Advices.AfterExecute.class)
                .on(named("afterExecute").and(takesArguments(Runnable.class, Throwable.class)))));
    targets.put(
        "java/util/concurrent/ThreadPoolExecutor$Worker",
        Advice.to(Advices.WorkerRun.class).on(named("run").and(takesNoArguments())));
    targets.put(
        "java/util/concurrent/ForkJoinPool",
        new AsmVisitorWrapper.Compound(
            Advice.to(Advices.ForkJoinCreated.class).on(isConstructor()),
            Advice.to(Advices.PoolSubmit.class).on(named("poolSubmit").and(takesArguments(2))),
            Advice.to(Advices.ExternalSubmit.class)
                .on(named("externalSubmit").and(takesArguments(1)))));
    targets.put(
        "java/util/concurrent/ForkJoinTask",
        new AsmVisitorWrapper.Compound(
            Advice.to(Advices.Fork.class).on(named("fork").and(takesNoArguments())),
            Advice.to(Advices.DoExec.class).on(named("doExec").and(takesNoArguments()))));
    targets.put(
        "dev/tine/WorkStealingPool",
        Advice.to(Advices.TineSubmit.class).on(named("externalPush").and(takesArguments(1))));
    for (Family f : Families.ALL) {
      if (f == null) continue;
      for (Map.Entry<String, AsmVisitorWrapper> e : f.advice().entrySet()) {
        targets.put(e.getKey(), e.getValue());
        familyOf.put(e.getKey(), f);
      }
    }
  }

  /** The family of each family class in {@link #targets}. */
  private final Map<String, Family> familyOf = new LinkedHashMap<>();

  /** Internal names of the classes this instruments. */
  /** Internal names of the classes this instruments. */
  public Set<String> targetNames() {
    return targets.keySet();
  }

  @Override
  public byte[] transform(
      Module module,
      ClassLoader loader,
      String className,
      Class<?> redefined,
      ProtectionDomain pd,
      byte[] bytes) {
    AsmVisitorWrapper w = className == null ? null : targets.get(className);
    if (w == null) return null;
    try {
      readBridge(module);
      String name = className.replace('/', '.');
      ClassFileLocator locator =
          new ClassFileLocator.Compound(
              ClassFileLocator.Simple.of(name, bytes),
              loader == null
                  ? ClassFileLocator.ForClassLoader.ofBootLoader()
                  : ClassFileLocator.ForClassLoader.of(loader));
      TypeDescription type = TypePool.Default.of(locator).describe(name).resolve();
      Family family = familyOf.get(className);
      if (family != null && !family.applies(type)) return null;
      StackTraceRepair.record(className, bytes);
      byte[] out = byteBuddy.decorate(type, locator).visit(w).make().getBytes();
      transformed.add(name);
      return out;
    } catch (Throwable t) {
      host.failed(new IllegalStateException("could not instrument " + className + ": " + t, t));
      return null; // the class stays as it was: unmeasured, not broken
    }
  }

  /** Lets a named module (one whose classes get advice) read the bridge's module. */
  public void readBridge(Module m) {
    Module bridge = TineBridge.class.getModule();
    if (m != null && m.isNamed() && !m.canRead(bridge)) {
      inst.redefineModule(m, Set.of(bridge), Map.of(), Map.of(), Set.of(), Map.of());
    }
  }
}

package dev.tine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The producer/sleeper handshake (no lost wake-up), a Dekker pattern: a producer pushes on its
 * deque, issues a full fence and reads the sleeper count; a worker going to sleep increments the
 * sleeper count and then rescans every queue. At least one of them must see the other.
 *
 * <p>State: a real pool of parallelism 2 whose slots hold unstarted workers {@code producer} and
 * {@code sleeper} (installed in {@code pool.workers}; the live count raised to 2 by the test hook
 * {@code addLiveWorkersForTest}, so a signal that finds no sleeper starts no thread). The producer
 * actor calls the real {@code Worker.pushSplit(task)}: {@code deque.push}, then {@code
 * signalIfFirst}, i.e. {@code Sleep.afterPush()}: {@code VarHandle.fullFence()} and {@code
 * signalWork()}, whose volatile read of {@code ctl} decides whether to claim a sleeper. The sleeper
 * actor does what {@code Sleep.sleep(worker)} does before parking: state SLEEPING, {@code
 * pool.sleep.addSleepers(1)} (a getAndAdd on {@code ctl}), then {@code pool.hasVisibleWork()} (the
 * external queue, then each worker's {@code deque.hasWork()}). sleep() itself is private and parks,
 * so the test repeats those three calls in the same order (it skips the {@code isStopping()} read
 * between them).
 *
 * <p>r1 (arbiter): the producer's signal claimed the sleeper (its state went SLEEPING to AWAKE).
 * r2: the sleeper's rescan saw the task. Forbidden: (0, 0), a lost wake-up: the sleeper would park
 * with a task in a deque and nobody told.
 *
 * <p>Planted bug it catches: no {@code VarHandle.fullFence()} in {@code Sleep.afterPush} (the
 * release store of the deque's top can then be reordered after the load of {@code ctl}). Verified
 * with {@code java --enable-native-access=ALL-UNNAMED -jar tine-jcstress/target/jcstress.jar -t
 * WakeupHandshake -m quick -time 50 -iters 1 -fsm 0} on a 2-CPU x86 machine: (0, 0) FORBIDDEN in 3
 * runs of 3, 3,317, 1,496 and 2,839 times in about 2.3 million samples each.
 */
@JCStressTest
@Description("producer push+fence+read sleepers vs sleeper register+rescan: no lost wake-up")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the producer saw the sleeper and claimed it")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the sleeper's rescan saw the work")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both saw each other")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: neither saw the other")
@State
public class WakeupHandshake {
  private final WorkStealingPool pool =
      WorkStealingPool.builder().parallelism(2).registerMXBean(false).recordStats(false).build();
  private final Worker producer = new Worker(pool, 0, new dev.tine.stats.WorkerCounters(), false);
  private final Worker sleeper = new Worker(pool, 1, new dev.tine.stats.WorkerCounters(), false);
  private final Task<Object> task =
      new Task<>() {
        @Override
        protected Object compute() {
          return null;
        }
      };

  public WakeupHandshake() {
    pool.workers = new Worker[] {producer, sleeper};
    pool.addLiveWorkersForTest(2);
  }

  @Actor
  public void producer() {
    producer.pushSplit(task);
  }

  @Actor
  public void sleeper(II_Result r) {
    sleeper.sleepState = Sleep.SLEEPING; // sleep(): SLEEP_STATE.setVolatile(this, SLEEPING)
    pool.sleep.addSleepers(1);
    r.r2 = pool.hasVisibleWork() ? 1 : 0;
  }

  @Arbiter
  public void after(II_Result r) {
    r.r1 = sleeper.sleepState == Sleep.AWAKE ? 1 : 0;
  }
}

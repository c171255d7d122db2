package dev.tine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.tine.stats.WorkerCounters;
import java.util.concurrent.ThreadLocalRandom;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * A sleeping worker's {@code sleepState} protocol: a waker's {@code tryEndSleep(AWAKE)} (inside the
 * real {@link Sleep#signalWork}) against the sleeper's own way out, either its {@code unregister()}
 * (sleep()'s early exits) or {@code pool.sleep.tryRetire(worker)} (its keep-alive ran out): exactly
 * one of them takes the worker out of SLEEPING, and the pool's {@code ctl} counts stay right (a
 * waker leaves the sleeper count alone and the woken sleeper takes itself off; a retire takes one
 * live worker and one sleeper off, under the pool lock).
 *
 * <p>State: a real pool of parallelism 2 whose two slots hold unstarted workers {@code w} and
 * {@code w2} (installed in {@code pool.workers}; the live count raised to 2 by the test hook {@code
 * addLiveWorkersForTest}), both registered as sleeping as {@code sleep()} does (state SLEEPING,
 * then {@code addSleepers(1)}). A fresh pool's first {@code signalWork} looks at slot 0 first, so
 * the waker wakes {@code w} if it is still SLEEPING, else {@code w2}: {@code w2} left SLEEPING at
 * the end means the waker woke {@code w}. Each state picks at random which way out the sleeper
 * actor takes (r1): 0, {@code unregister()} (through the test hook {@code unregisterForTest}); 1,
 * {@code tryRetire(w)} and, if that fails, what {@code sleep()} does next (a waker woke it: take
 * itself off the sleeper count). Only two actors: jcstress does not run three-actor tests on a
 * two-CPU machine.
 *
 * <p>r2: w's final state (0 AWAKE, 2 RETIRED). r3: 1 if the waker woke w2 (so not w). r4: 1 if the
 * bookkeeping is right: after the arbiter lets a woken w2 take itself off (as the woken sleeper
 * does), sleepers = (w2 still SLEEPING ? 1 : 0), live = 2 - retired, {@code hungry} (vacant slots)
 * = retired, and tryRetire returned true exactly when w ended RETIRED.
 *
 * <p>Forbidden: w RETIRED with r3 = 0 (the waker woke w, believing it will run the submission, and
 * w retired too: the lost submission), any r4 = 0, anything not listed.
 *
 * <p>Planted bugs it catches (verified with {@code java --enable-native-access=ALL-UNNAMED -jar
 * tine-jcstress/target/jcstress.jar -t SleeperWakeRace -m quick -time 50 -iters 1 -fsm 0}): (a)
 * signalWork also doing {@code addSleepers(-1)} after a successful wake-up (the old behaviour, next
 * to the woken sleeper's own decrement): r4 = 0 FORBIDDEN in every sample (688,080 of 688,080); (b)
 * tryRetire with a check-then-set instead of the CAS ({@code if (w.sleepState != SLEEPING) return
 * false; w.sleepState = RETIRED}): (1, 2, 0, 1) FORBIDDEN in 3 runs of 3, 23, 27 and 268 times in
 * 1.2 to 2.5 million samples (rare: the window is between two adjacent accesses). Removing the lock
 * from tryRetire is not caught: the CAS alone arbitrates this race, and the lock orders retirement
 * against thread start and exit, which this test does not exercise.
 */
@JCStressTest
@Description(
    "sleeper: waker's wake-up vs the sleeper's unregister or retire: one winner, counts right")
@Outcome(
    id = "0, 0, 0, 1",
    expect = ACCEPTABLE,
    desc = "the waker woke w; the sleeper's unregister took the count off")
@Outcome(
    id = "0, 0, 1, 1",
    expect = ACCEPTABLE,
    desc = "the sleeper unregistered itself; the waker woke w2")
@Outcome(
    id = "1, 0, 0, 1",
    expect = ACCEPTABLE,
    desc = "the waker woke w; its retire failed and it took the count off")
@Outcome(id = "1, 2, 1, 1", expect = ACCEPTABLE, desc = "w retired; the waker woke w2")
@Outcome(
    id = ".*, 2, 0, .*",
    expect = FORBIDDEN,
    desc = "w retired although the waker woke it: a lost submission")
@Outcome(id = ".*, .*, .*, 0", expect = FORBIDDEN, desc = "sleeper, live or vacancy counts wrong")
@Outcome(expect = FORBIDDEN, desc = "more or fewer than one winner")
@State
public class SleeperWakeRace {
  private final WorkStealingPool pool =
      WorkStealingPool.builder().parallelism(2).registerMXBean(false).recordStats(false).build();
  private final Worker w = new Worker(pool, 0, new WorkerCounters(), false);
  private final Worker w2 = new Worker(pool, 1, new WorkerCounters(), false);
  private final boolean retireMode = ThreadLocalRandom.current().nextBoolean();
  private int retired; // tryRetire's result, written by the sleeper actor, read by the arbiter

  public SleeperWakeRace() {
    pool.workers = new Worker[] {w, w2};
    pool.addLiveWorkersForTest(2);
    for (Worker x : new Worker[] {w, w2}) {
      x.sleepState = Sleep.SLEEPING; // as sleep() registers: state first, then the count
      pool.sleep.addSleepers(1);
    }
  }

  @Actor
  public void waker() {
    pool.sleep.signalWork();
  }

  @Actor
  public void sleeper(IIII_Result r) {
    r.r1 = retireMode ? 1 : 0;
    if (!retireMode) {
      pool.sleep.unregisterForTest(w);
    } else if (pool.sleep.tryRetire(w)) {
      retired = 1;
    } else if (w.sleepState == Sleep.AWAKE) {
      pool.sleep.addSleepers(-1); // sleep(): a waker woke us and left the sleeper count to us
    }
  }

  @Arbiter
  public void after(IIII_Result r) {
    int state = w.sleepState;
    r.r2 = state;
    boolean w2Woken = w2.sleepState == Sleep.AWAKE;
    r.r3 = w2Woken ? 1 : 0;
    if (w2Woken) {
      pool.sleep.addSleepers(-1); // w2 wakes and takes itself off, as sleep() does after a wake-up
    }
    int gone = state == Sleep.RETIRED ? 1 : 0;
    boolean ok =
        pool.sleepingWorkers() == (w2Woken ? 0 : 1)
            && pool.poolSize() == 2 - gone
            && pool.hungry == gone
            && retired == (retireMode ? gone : 0);
    r.r4 = ok ? 1 : 0;
  }
}

package dev.tine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A latent task's owner-only status writes against an outside {@code cancel()} and reads.
 *
 * <p>While {@link Task#LATENT} is set only the owner writes a task's status: it completes the task
 * with a plain write of the outcome and then a release store of the status (no CAS), and other
 * threads only read. The state is a fresh task marked latent ({@code setLatent()}, as the owner
 * does right after recording its fork). The owner actor completes it the owner's way: {@code
 * doExec(null)} runs {@code compute()} and takes {@code finish}'s latent path. The outsider (not a
 * worker) calls {@code cancel()}, then reads {@code isDone()} and {@code getNow()}.
 *
 * <p>r1: the outsider's {@code cancel()} returned true (1) or false (0). r2: what the outsider saw
 * afterwards: 0 not done, 1 done with the value, 2 done but no value (the outcome was not yet
 * visible though the status said DONE). r3 (arbiter): 1 if the task ended done with the owner's
 * value.
 *
 * <p>Forbidden: r1 = 1 (an outsider cancelled a latent task: its CAS would race with the owner's
 * plain release store, and the owner's outcome could be overwritten or lost), r2 = 2 (the outcome's
 * write is not ordered before the status store), r3 = 0.
 *
 * <p>Planted bugs it catches (verified with {@code java --enable-native-access=ALL-UNNAMED -jar
 * tine-jcstress/target/jcstress.jar -t LatentCompletionRace -m quick -time 50 -iters 1 -fsm 0}):
 * (a) {@code Task.finish}'s latent path storing the status before writing {@code outcome}: (0, 2,
 * 1) FORBIDDEN in 4 runs of 4, 37 to 236 times in about 3 million samples (the outsider polls
 * {@code isDone()} as {@code awaitDone} does, so it reads the outcome right after the status flips;
 * reading once caught it only 3 times); (b) {@code Task.cancel()} CASing the status of a latent
 * task like any other: r1 = 1 FORBIDDEN about 400,000 times in 3 million.
 */
@JCStressTest
@Description("latent task: owner's release-store completion vs an outsider's cancel() and reads")
@Outcome(id = "0, 0, 1", expect = ACCEPTABLE, desc = "outsider ran first: not done, cancel refused")
@Outcome(
    id = "0, 1, 1",
    expect = ACCEPTABLE,
    desc = "outsider saw the owner's completion, with its value")
@Outcome(id = "0, 2, .*", expect = FORBIDDEN, desc = "outsider saw DONE before the value")
@Outcome(id = "1, .*, .*", expect = FORBIDDEN, desc = "an outsider cancelled a latent task")
@Outcome(expect = FORBIDDEN, desc = "the owner's completion was lost or overwritten")
@State
public class LatentCompletionRace {
  static final Object VALUE = new Object();
  static final int POLLS = 64;

  private final Task<Object> task =
      new Task<>() {
        @Override
        protected Object compute() {
          return VALUE;
        }
      };

  public LatentCompletionRace() {
    task.setLatent();
  }

  @Actor
  public void owner() {
    Task.doExec(task, null);
  }

  @Actor
  public void outsider(III_Result r) {
    r.r1 = task.cancel() ? 1 : 0;
    boolean done = task.isDone();
    for (int i = 0; !done && i < POLLS; i++) { // poll as awaitDone does for a latent task
      Thread.onSpinWait();
      done = task.isDone();
    }
    Object v = task.getNow();
    r.r2 = !done ? 0 : v == VALUE ? 1 : 2;
  }

  @Arbiter
  public void after(III_Result r) {
    r.r3 = task.isDone() && !task.isCompletedAbnormally() && task.getNow() == VALUE ? 1 : 0;
  }
}

package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An overflow inside the runtime's fork or join never leaves the fork behind (the OverflowTest
 * wedge). A child JVM runs {@link #main} under {@code -Xint}, where every small method and every
 * {@code VarHandle} access is a call that can overflow: at the deepest depth where a fork and its
 * join still succeed, it forks a probe and joins it from 0..80 extra frames down, so the overflow
 * sweeps the fork's and the join's calls one by one. A fork whose {@code fork()} or {@code join()}
 * threw from inside the runtime must not run afterwards: its caller has given up on it, and a task
 * left behind by an overflow is run later by a helping join or the run loop, where in an unbounded
 * recursion it overflows again at the same point and leaves another one behind (a helping join at a
 * fixed depth then runs them forever).
 *
 * <p>Overflows at the entry of {@code join()} itself (the caller's call) are out of any runtime's
 * reach, and so are those inside the failure handler's own checks; they are counted apart.
 *
 * <p>The bug it catches (before the fix, at p=1 in both fork modes): a {@code Worker.fork} that
 * threw after recording the task (an overflow at {@code setLatent}), and a join that threw before
 * taking its target off (at {@code isNewest}, {@code execLatent}'s entry, the slow path's entry,
 * the deque pop) left the fork runnable: 51 (latent) and 31 (eager) such forks ran later.
 */
class LeftBehindForkTest {
  static final class Probe extends Task<Void> {
    boolean forkThrew, joinThrew, late;
    StackOverflowError error;

    @Override
    protected Void compute() {
      if (forkThrew || joinThrew) {
        late = true; // run after its fork or join had thrown: it was left behind
      }
      return null;
    }
  }

  static final Probe[] probes = new Probe[100_000];
  static int count;

  static long pad(int n, int k) {
    if (n > 0) {
      return pad(n - 1, k) + 1;
    }
    Probe c = new Probe();
    probes[count++] = c;
    try {
      c.fork();
    } catch (StackOverflowError e) {
      c.error = e; // plain stores only: a call here could overflow too
      c.forkThrew = true;
      return 0;
    }
    try {
      joinAt(k, c);
    } catch (StackOverflowError e) {
      c.error = e;
      c.joinThrew = true;
    }
    return 0;
  }

  static void joinAt(int k, Task<?> c) {
    if (k > 0) {
      joinAt(k - 1, c);
      return;
    }
    c.join();
  }

  /** Whether the error was thrown inside the runtime's fork or join (not at their entry). */
  static boolean inside(StackOverflowError e, boolean fork) {
    StackTraceElement[] st = e.getStackTrace();
    for (int i = 1; i < st.length; i++) { // from the caller of the frame that overflowed
      String m = st[i].getClassName() + "." + st[i].getMethodName();
      if (fork ? m.equals("dev.tine.Worker.fork") : m.equals("dev.tine.Task.awaitJoin")) {
        return true;
      }
    }
    return false;
  }

  /** The child JVM: prints "probes N inside M leftBehind L". */
  public static void main(String[] args) throws Exception {
    int p = Integer.parseInt(args[0]);
    boolean eager = Boolean.parseBoolean(args[1]);
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(p).eagerForks(eager).registerMXBean(false).build()) {
      int n = 20_000;
      for (; n > 0; n--) { // the deepest depth at which a fork and its join both succeed
        int before = count;
        int nn = n;
        try {
          pool.invoke(Task.of(() -> pad(nn, 0)));
        } catch (StackOverflowError e) {
          // too deep
        }
        if (count > before) {
          Probe c = probes[count - 1];
          if (!c.forkThrew && !c.joinThrew && c.isDone()) {
            break;
          }
        }
        if (n % 100 == 0) {
          InterpretedChild.progress("search depth " + n);
        }
      }
      InterpretedChild.sweep(pool, n, 3, 80, LeftBehindForkTest::pad);
      for (int i = 0; i < 20; i++) { // the run loop runs what was left behind before these
        pool.invoke(Task.of(() -> 1L));
      }
      Thread.sleep(100);
      int inside = 0, leftBehind = 0;
      TreeMap<String, Integer> where = new TreeMap<>();
      for (int i = 0; i < count; i++) {
        Probe c = probes[i];
        if ((c.forkThrew || c.joinThrew) && inside(c.error, c.forkThrew)) {
          inside++;
          if (c.late) {
            leftBehind++;
            StackTraceElement top = c.error.getStackTrace()[0];
            where.merge(
                (c.forkThrew ? "fork at " : "join at ")
                    + top.getClassName()
                    + "."
                    + top.getMethodName(),
                1,
                Integer::sum);
          }
        }
      }
      where.forEach((w, k) -> System.out.println(w + ": " + k));
      System.out.println("probes " + count + " inside " + inside + " leftBehind " + leftBehind);
    }
  }

  @ParameterizedTest(name = "p={0}, eager={1}")
  @CsvSource({"1, false", "1, true"})
  void anOverflowInsideForkOrJoinLeavesNoForkBehind(int p, boolean eager)
      throws IOException, InterruptedException {
    String out =
        InterpretedChild.run(LeftBehindForkTest.class, String.valueOf(p), String.valueOf(eager));
    String last = InterpretedChild.lastLine(out);
    assertTrue(last.startsWith("probes "), out);
    String[] w = last.split(" ");
    assertTrue(Integer.parseInt(w[3]) >= 10, "enough overflows inside fork and join: " + out);
    assertEquals("0", w[5], "forks left behind by an overflow inside fork or join: " + out);
  }
}

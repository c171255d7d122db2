package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Overflows aimed at the runtime's own calls, in the interpreter, where every {@code VarHandle}
 * access and every small method is a call that can overflow (compiled code inlines most of them, so
 * {@link OverflowTest} rarely lands there). A child JVM runs {@link #main} under {@code -Xint}: at
 * the deepest depth where two forks still succeed, it joins the first fork from 0..120 extra frames
 * down, catching the overflow, so the overflow sweeps the join's slow path call by call. Every fork
 * must complete.
 *
 * <p>Planted bug it catches (found by review, lost 7 of 727 forks on every run): a failure handler
 * in {@code Task.doExec} that calls a method before recording the task in the pending list, and a
 * the join's take-back ({@code LatentJoins.takeBack}) that overwrites a task left in hand.
 */
class InterpretedOverflowTest {
  static final Task<?>[] forks = new Task<?>[100_000];
  static int forked;

  static final class Leaf extends Task<Long> {
    @Override
    protected Long compute() {
      return 1L;
    }
  }

  static long pad(int n, int k) {
    if (n > 0) {
      return pad(n - 1, k) + 1;
    }
    Leaf a = new Leaf(), b = new Leaf();
    a.fork();
    b.fork();
    forks[forked++] = a;
    forks[forked++] = b;
    try {
      joinAt(k, a);
    } catch (StackOverflowError e) {
      // expected: the point is where it struck
    }
    return 0;
  }

  static void joinAt(int k, Task<?> a) {
    if (k > 0) {
      joinAt(k - 1, a);
      return;
    }
    a.join();
  }

  /** The child JVM: prints "forks N lost M". */
  public static void main(String[] args) throws Exception {
    int p = Integer.parseInt(args[0]);
    try (WorkStealingPool pool =
        WorkStealingPool.builder().parallelism(p).registerMXBean(false).build()) {
      int n = 20_000;
      for (; n > 0; n--) { // the deepest depth at which both forks succeed
        int before = forked;
        int nn = n;
        try {
          pool.invoke(Task.of(() -> pad(nn, 0)));
        } catch (StackOverflowError e) {
          // too deep
        }
        if (forked > before) {
          break;
        }
        if (n % 100 == 0) {
          InterpretedChild.progress("search depth " + n);
        }
      }
      InterpretedChild.sweep(pool, n, 6, 120, InterpretedOverflowTest::pad);
      // Lost: still not done after 20 s in which no other fork completed (a loaded machine slows
      // the other worker down, it does not stop it).
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      int lost, was = Integer.MAX_VALUE;
      do {
        lost = 0;
        for (int i = 0; i < forked; i++) {
          if (!forks[i].isDone()) {
            lost++;
          }
        }
        if (lost < was) {
          was = lost;
          deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
          InterpretedChild.progress("not done yet " + lost);
        }
      } while (lost > 0 && System.nanoTime() < deadline && sleep());
      System.out.println("forks " + forked + " lost " + lost);
    }
  }

  private static boolean sleep() throws InterruptedException {
    Thread.sleep(50);
    return true;
  }

  @ParameterizedTest(name = "p={0}")
  @ValueSource(ints = {1, 2})
  void everyForkCompletesWhenOverflowsHitTheRuntimesCalls(int p)
      throws IOException, InterruptedException {
    String out = InterpretedChild.run(InterpretedOverflowTest.class, String.valueOf(p));
    String last = InterpretedChild.lastLine(out);
    assertTrue(last.startsWith("forks "), out);
    String[] w = last.split(" ");
    assertTrue(Integer.parseInt(w[1]) > 500, "enough forks to matter: " + last);
    assertEquals("0", w[3], "forks that never completed: " + last);
  }
}

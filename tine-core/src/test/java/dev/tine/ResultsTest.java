package dev.tine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Results are exact against sequential code at 1, 2, 4 and 8 workers (oversubscribed on 2 cores),
 * with latent forks (the default) and with eager forks.
 */
@Timeout(120)
class ResultsTest {

  static Stream<Arguments> modes() {
    return Stream.of(1, 2, 4, 8)
        .flatMap(p -> Stream.of(Arguments.of(p, false), Arguments.of(p, true)));
  }

  static Stream<Arguments> modesUpTo4() {
    return modes().filter(a -> (int) a.get()[0] <= 4);
  }

  static WorkStealingPool pool(int p, boolean eager) {
    return WorkStealingPool.builder().parallelism(p).eagerForks(eager).build();
  }

  @ParameterizedTest(name = "parallelism {0}, eager {1}")
  @MethodSource("modes")
  void fibForkingEveryCall(int p, boolean eager) {
    try (WorkStealingPool pool = pool(p, eager)) {
      for (int n = 0; n <= 25; n++) {
        assertEquals(Programs.seqFib(n), pool.invoke(new Programs.Fib(n)), "fib(" + n + ")");
      }
    }
  }

  @ParameterizedTest(name = "parallelism {0}, eager {1}")
  @MethodSource("modes")
  void fibWithThresholdAndInvokeAll(int p, boolean eager) {
    try (WorkStealingPool pool = pool(p, eager)) {
      assertEquals(Programs.seqFib(30), pool.invoke(new Programs.ThresholdFib(30, 13)));
    }
  }

  @ParameterizedTest(name = "parallelism {0}, eager {1}")
  @MethodSource("modes")
  void arraySum(int p, boolean eager) {
    long[] a = new SplittableRandom(42).longs(1_000_003, -1_000_000, 1_000_000).toArray();
    long expected = 0;
    for (long x : a) expected += x;
    try (WorkStealingPool pool = pool(p, eager)) {
      assertEquals(expected, pool.invoke(new Programs.Sum(a, 0, a.length)));
    }
  }

  @ParameterizedTest(name = "parallelism {0}, eager {1}")
  @MethodSource("modes")
  void mergesort(int p, boolean eager) {
    int[] a = new SplittableRandom(7).ints(500_001).toArray();
    int[] expected = a.clone();
    Arrays.sort(expected);
    try (WorkStealingPool pool = pool(p, eager)) {
      pool.invoke(new Programs.MergeSort(a, new int[a.length], 0, a.length));
    }
    assertArrayEquals(expected, a);
  }

  @ParameterizedTest(name = "parallelism {0}, eager {1}")
  @MethodSource("modes")
  void wideTreeJoinedInForkOrder(int p, boolean eager) {
    try (WorkStealingPool pool = pool(p, eager)) {
      assertEquals(Programs.wideCount(5, 8), pool.invoke(new Programs.WideSum(5, 8)));
    }
  }

  /** Joining, from one task, a task forked by another (the joiner never had it in its deque). */
  @ParameterizedTest(name = "parallelism {0}, eager {1}")
  @MethodSource("modesUpTo4")
  void joinTaskForkedElsewhere(int p, boolean eager) {
    try (WorkStealingPool pool = pool(p, eager)) {
      long r =
          pool.invoke(
              new Task<Long>() {
                @Override
                protected Long compute() {
                  Programs.Fib shared = new Programs.Fib(20);
                  Task<Long> producer =
                      new Task<>() {
                        @Override
                        protected Long compute() {
                          shared.fork();
                          return 0L;
                        }
                      };
                  producer.invoke();
                  Task<Long> consumer =
                      new Task<>() {
                        @Override
                        protected Long compute() {
                          return shared.join();
                        }
                      };
                  consumer.fork();
                  return consumer.join();
                }
              });
      assertEquals(Programs.seqFib(20), r);
    }
  }

  /** Every submitted task runs exactly once. */
  @ParameterizedTest(name = "parallelism {0}, eager {1}")
  @MethodSource("modesUpTo4")
  void manyExternalSubmissionsRunOnce(int p, boolean eager) throws Exception {
    int n = 20_000;
    AtomicLong sum = new AtomicLong();
    int[] runs = new int[n];
    try (WorkStealingPool pool = pool(p, eager)) {
      Task<?>[] fs = new Task<?>[n];
      for (int i = 0; i < n; i++) {
        int k = i;
        fs[i] =
            pool.submit(() -> {
              synchronized (runs) {
                runs[k]++;
              }
              sum.addAndGet(k);
            });
      }
      for (Task<?> f : fs) f.get();
    }
    assertEquals((long) n * (n - 1) / 2, sum.get());
    for (int i = 0; i < n; i++) assertEquals(1, runs[i], "task " + i);
  }

  /** Nested joins at parallelism 1 never deadlock, however deep. */
  @org.junit.jupiter.api.Test
  void deepNestingAtParallelismOne() {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
      assertEquals(Programs.seqFib(27), pool.invoke(new Programs.Fib(27)));
      assertEquals(Programs.wideCount(3, 30), pool.invoke(new Programs.WideSum(3, 30)));
    }
  }

  /** Task.invoke()/fork() outside any pool use the common pool. */
  @org.junit.jupiter.api.Test
  void commonPoolFromOutside() {
    assertEquals(Programs.seqFib(22), new Programs.Fib(22).invoke());
    Programs.Fib f = new Programs.Fib(18);
    f.fork();
    assertEquals(Programs.seqFib(18), f.join());
  }
}

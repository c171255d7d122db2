package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many random fork/join trees (random fan-out, depth and join pattern; some leaves throw), under a
 * watchdog: every result exact against a sequential evaluation of the same tree, every exception
 * caught exactly once by the task that joined the thrower, every node run exactly once, and no
 * worker thread left after close.
 */
class RandomTreeStressTest {

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  static final class LeafFailure extends RuntimeException {
    final long id;

    LeafFailure(long id) {
      super("leaf " + id, null, false, false);
      this.id = id;
    }
  }

  /** The shape of node {@code id}: fan-out (0 = leaf), join pattern, whether a leaf throws. */
  record Shape(int fanOut, int pattern, boolean throwsAtLeaf) {
    static Shape of(long id, int depth, int maxDepth) {
      long h = mix(id);
      int fan = depth >= maxDepth ? 0 : (int) Math.floorMod(h, 7L) - 1; // -1..5, -1 -> leaf
      return new Shape(
          Math.max(0, fan), (int) Math.floorMod(h >>> 16, 4L), Math.floorMod(h >>> 32, 23L) == 0);
    }
  }

  static long childId(long id, int i) {
    return mix(id * 31 + i + 1);
  }

  /** Sequential evaluation: value of the subtree and the leaves that throw. */
  static long sequential(
      long id, int depth, int maxDepth, Set<Long> throwers, AtomicInteger nodes) {
    nodes.incrementAndGet();
    Shape s = Shape.of(id, depth, maxDepth);
    if (s.fanOut == 0) {
      if (s.throwsAtLeaf) {
        throwers.add(id);
        throw new LeafFailure(id);
      }
      return id & 0xffff;
    }
    long sum = 1;
    for (int i = 0; i < s.fanOut; i++) {
      try {
        sum += sequential(childId(id, i), depth + 1, maxDepth, throwers, nodes);
      } catch (LeafFailure f) {
        sum += 7; // a parent that catches a child's failure adds 7 instead
      }
    }
    return sum;
  }

  static final class Node extends Task<Long> {
    final long id;
    final int depth, maxDepth;
    final Map<Long, Integer> caught;
    final Map<Long, Integer> runs;

    Node(long id, int depth, int maxDepth, Map<Long, Integer> caught, Map<Long, Integer> runs) {
      this.id = id;
      this.depth = depth;
      this.maxDepth = maxDepth;
      this.caught = caught;
      this.runs = runs;
    }

    @Override
    protected Long compute() {
      runs.merge(id, 1, Integer::sum);
      Shape s = Shape.of(id, depth, maxDepth);
      if (s.fanOut == 0) {
        if (s.throwsAtLeaf) throw new LeafFailure(id);
        return id & 0xffff;
      }
      Node[] kids = new Node[s.fanOut];
      for (int i = 0; i < kids.length; i++) {
        kids[i] = new Node(childId(id, i), depth + 1, maxDepth, caught, runs);
      }
      long sum = 1;
      switch (s.pattern) {
        case 0 -> { // fork all, join in fork order
          for (Node k : kids) k.fork();
          for (Node k : kids) sum += joinCatching(k);
        }
        case 1 -> { // fork all, join in reverse
          for (Node k : kids) k.fork();
          for (int i = kids.length - 1; i >= 0; i--) sum += joinCatching(kids[i]);
        }
        case 2 -> { // invokeAll, then read each (exceptions are per child)
          try {
            invokeAll(kids);
          } catch (LeafFailure ignored) {
            // reported again, per child, below
          }
          for (Node k : kids) sum += joinCatching(k);
        }
        default -> { // compute the first in place, fork the rest
          for (int i = 1; i < kids.length; i++) kids[i].fork();
          sum += computeCatching(kids[0]);
          for (int i = 1; i < kids.length; i++) sum += joinCatching(kids[i]);
        }
      }
      return sum;
    }

    private long joinCatching(Node k) {
      try {
        return k.join();
      } catch (LeafFailure f) {
        if (!k.isCompletedAbnormally() || f.id != k.id)
          throw new AssertionError("wrong failure " + f.id);
        // invokeAll may already have surfaced it once; count one per joined child
        caught.merge(f.id, 1, Integer::sum);
        return 7;
      }
    }

    private long computeCatching(Node k) {
      try {
        return k.invoke();
      } catch (LeafFailure f) {
        caught.merge(f.id, 1, Integer::sum);
        return 7;
      }
    }
  }

  static Stream<Arguments> modes() {
    return Stream.of(1, 2, 3, 4, 8)
        .flatMap(p -> Stream.of(Arguments.of(p, false), Arguments.of(p, true)));
  }

  @ParameterizedTest(name = "parallelism {0}, eager {1}")
  @MethodSource("modes")
  void randomTrees(int p, boolean eager) {
    String prefix = "stress-" + p + (eager ? "-eager-" : "-latent-");
    assertTimeoutPreemptively(
        Duration.ofSeconds(90),
        () -> {
          try (WorkStealingPool pool =
              WorkStealingPool.builder()
                  .parallelism(p)
                  .eagerForks(eager)
                  .threadNamePrefix(prefix)
                  .build()) {
            long total = 0;
            for (int tree = 0; tree < 150; tree++) {
              long root = mix(p * 1_000_003L + tree);
              int maxDepth = 3 + (int) Math.floorMod(root, 8L);
              Set<Long> throwers = new ConcurrentSkipListSet<>();
              AtomicInteger nodes = new AtomicInteger();
              long expected;
              try {
                expected = sequential(root, 0, maxDepth, throwers, nodes);
              } catch (LeafFailure f) {
                continue; // the root itself is a throwing leaf: nothing to compare
              }
              Map<Long, Integer> caught = new ConcurrentHashMap<>();
              Map<Long, Integer> runs = new ConcurrentHashMap<>();
              long got = pool.invoke(new Node(root, 0, maxDepth, caught, runs));
              assertEquals(expected, got, "tree " + tree);
              total += nodes.get();
              assertEquals(nodes.get(), runs.size(), "nodes run, tree " + tree);
              runs.forEach((id, n) -> assertEquals(1, n, "node " + id + " ran " + n + " times"));
              assertEquals(throwers, caught.keySet(), "exceptions seen, tree " + tree);
              caught.forEach(
                  (id, n) -> assertEquals(1, n, "exception " + id + " seen " + n + " times"));
            }
            PoolStats st = pool.stats();
            System.out.printf(
                "random trees at parallelism %d, %s forks: %d nodes checked, %d promoted, %d stolen%n",
                p, eager ? "eager" : "latent", total, st.promotions(), st.steals());
          }
        });
    assertEquals(0, LifecycleTest.liveThreadsNamed(prefix), "worker threads after close");
  }
}

package dev.tine.fuzz;

import dev.tine.fuzz.Program.BlockForm;
import dev.tine.fuzz.Program.Blocking;
import dev.tine.fuzz.Program.Cancel;
import dev.tine.fuzz.Program.CancelForm;
import dev.tine.fuzz.Program.Catch;
import dev.tine.fuzz.Program.Const;
import dev.tine.fuzz.Program.Consumer;
import dev.tine.fuzz.Program.Fail;
import dev.tine.fuzz.Program.FailKind;
import dev.tine.fuzz.Program.ForkJoin;
import dev.tine.fuzz.Program.ForkThenWait;
import dev.tine.fuzz.Program.InterruptedGet;
import dev.tine.fuzz.Program.JoinForm;
import dev.tine.fuzz.Program.JoinTop;
import dev.tine.fuzz.Program.Nested;
import dev.tine.fuzz.Program.Node;
import dev.tine.fuzz.Program.ObserveLocal;
import dev.tine.fuzz.Program.Range;
import dev.tine.fuzz.Program.RangeForm;
import dev.tine.fuzz.Program.Rendezvous;
import dev.tine.fuzz.Program.SelfInterrupt;
import dev.tine.fuzz.Program.Seq;
import dev.tine.fuzz.Program.Spawn;
import dev.tine.fuzz.Program.SubmitInside;
import dev.tine.fuzz.Program.WaitForm;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Random programs of the grammar, from a seed. Small on purpose (1-4 top-level tasks, depth 4, a
 * few dozen nodes): the known failures all have programs of a handful of nodes, and small programs
 * run in milliseconds, so many of them fit in the quick mode.
 *
 * <p>Joins between top-level tasks follow a random order that is unrelated to the submission order
 * (a task joins only tasks ranked below it), so they never form a cycle, which would wedge the JDK
 * too.
 */
final class Generator {
  private static final int MAX_DEPTH = 4;
  private static final int MAX_NODES = 40;

  private final SplittableRandom random;
  private int nextId;
  private int nodes;
  private List<Integer> joinable = List.of();

  private Generator(long seed) {
    this.random = new SplittableRandom(seed);
  }

  static Program generate(long seed) {
    return new Generator(seed).program(seed);
  }

  private Program program(long seed) {
    if (random.nextInt(5) == 0) {
      return crowd(seed);
    }
    int count = 1 + random.nextInt(random.nextInt(4) == 0 ? 4 : 2);
    List<Integer> rank = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      rank.add(i);
    }
    for (int i = count - 1; i > 0; i--) { // Fisher-Yates
      int k = random.nextInt(i + 1);
      rank.set(i, rank.set(k, rank.get(i)));
    }
    List<Spawn> tops = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      List<Integer> below = new ArrayList<>();
      for (int k = 0; k < count; k++) {
        if (rank.get(k) < rank.get(i)) {
          below.add(k);
        }
      }
      joinable = below;
      tops.add(spawn(MAX_DEPTH));
    }
    return new Program(seed, tops);
  }

  /**
   * Many top-level tasks that block (sleep, a shared semaphore, a shared monitor, managedBlock),
   * for the concurrency comparison: the most tops running at once and the threads started. Three in
   * four are flat (no task created, nothing joined); the rest mix in a subtree of the grammar.
   */
  private Program crowd(long seed) {
    int count = 6 + random.nextInt(11); // a queue that outlasts a block at p=4 too
    boolean flat = random.nextInt(4) != 0;
    List<Spawn> tops = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      List<Node> items = new ArrayList<>();
      items.add(blocking());
      if (random.nextBoolean()) {
        items.add(
            random.nextBoolean() ? new Const(random.nextInt(100)) : new ObserveLocal(nextId++));
      }
      if (!flat && random.nextBoolean()) {
        items.add(random.nextInt(items.size() + 1), node(2));
      }
      tops.add(new Spawn(nextId++, new Seq(items)));
    }
    return new Program(seed, tops);
  }

  /** A block of a few ms, or long enough (20+ ms) for the stall watch to look twice. */
  private Blocking blocking() {
    BlockForm form = pick(BlockForm.values());
    int millis = random.nextBoolean() ? 20 + random.nextInt(21) : 1 + random.nextInt(5);
    return new Blocking(nextId++, form, millis);
  }

  private Spawn spawn(int depth) {
    int id = nextId++;
    return new Spawn(id, node(depth));
  }

  private Node node(int depth) {
    nodes++;
    if (depth <= 0 || nodes > MAX_NODES || random.nextInt(10) < 3) {
      return leaf();
    }
    int pick = random.nextInt(100);
    if (pick < 30) {
      JoinForm form = pick(JoinForm.values());
      return new ForkJoin(form, spawn(depth - 1), spawn(depth - 1));
    } else if (pick < 42) {
      List<Node> items = new ArrayList<>();
      int n = 2 + random.nextInt(3);
      for (int i = 0; i < n; i++) {
        items.add(node(depth - 1));
      }
      return new Seq(items);
    } else if (pick < 56) {
      return new Catch(nextId++, node(depth - 1));
    } else if (pick < 64) {
      return new Cancel(nextId++, pick(CancelForm.values()), spawn(depth - 1));
    } else if (pick < 78) {
      return new ForkThenWait(pick(WaitForm.values()), spawn(depth - 1));
    } else if (pick < 88) {
      return new SubmitInside(spawn(depth - 1), random.nextBoolean());
    } else if (pick < 94) {
      return new Nested(1 + random.nextInt(2), spawn(depth - 1));
    }
    return leaf();
  }

  private Node leaf() {
    int pick = random.nextInt(100);
    if (pick < 30) {
      return new Const(random.nextInt(100));
    } else if (pick < 42) {
      FailKind kind =
          random.nextInt(12) == 0 ? FailKind.STACK_OVERFLOW : pick(FailKind.values(), 3);
      return new Fail(nextId++, kind);
    } else if (pick < 52) {
      return new ObserveLocal(nextId++);
    } else if (pick < 60) {
      return new SelfInterrupt(nextId++, pick(Consumer.values()));
    } else if (pick < 75) {
      return range();
    } else if (pick < 80) {
      // Rarely many parties: the JDK adds a thread for each; a bounded pool must say so loudly.
      return new Rendezvous(random.nextInt(60) == 0 ? 300 : 2 + random.nextInt(5));
    } else if (pick < 85) {
      return new InterruptedGet(nextId++, random.nextBoolean());
    } else if (pick < 93 && !joinable.isEmpty()) {
      return new JoinTop(joinable.get(random.nextInt(joinable.size())), random.nextBoolean());
    }
    if (pick >= 93) {
      return blocking();
    }
    return new Const(random.nextInt(100));
  }

  /** A range, often ending at or near the int bounds, where index arithmetic overflows. */
  private Range range() {
    int size = random.nextInt(4) == 0 ? random.nextInt(3) : random.nextInt(3000);
    int from;
    int to;
    int where = random.nextInt(10);
    if (where < 3) {
      to = Integer.MAX_VALUE - random.nextInt(3);
      from = to - size;
    } else if (where < 5) {
      from = Integer.MIN_VALUE + random.nextInt(3);
      to = from + size;
    } else {
      from = random.nextInt(-5000, 5000);
      to = from + size;
    }
    boolean fails = size > 0 && random.nextInt(6) == 0;
    int failAt = fails ? from + random.nextInt(size) : 0;
    return new Range(nextId++, pick(RangeForm.values()), from, to, fails, failAt);
  }

  private <T> T pick(T[] values) {
    return values[random.nextInt(values.length)];
  }

  private <T> T pick(T[] values, int firstN) {
    return values[random.nextInt(firstN)];
  }
}

package dev.tine.fuzz;

import java.util.ArrayList;
import java.util.List;

/**
 * A program of the fuzzer's grammar: top-level tasks submitted in order from outside the pool, each
 * a tree of nodes that evaluates to a {@code long}. The same tree runs on ForkJoinPool and on
 * WorkStealingPool (see {@link Interpreter}); nothing in it names a runtime.
 *
 * <p>Every node that can be observed (a task's entry, a caught exception, an interrupt, a
 * thread-local read) carries an {@code id}, unique in the program, so that outcomes of the two
 * runtimes are compared node by node and a shrunk program keeps the ids of what it kept.
 *
 * <p>Each construct is chosen so that its observation is the same on every run of the JDK (e.g. a
 * self-interrupt is always consumed in the same task, a cancel records only whether the task's
 * outcome agrees with {@code cancel}'s answer); otherwise the fuzzer would report JDK noise.
 */
record Program(long seed, List<Spawn> tops) {

  /** A node: evaluates to a long inside a task, or throws. */
  sealed interface Node
      permits Const,
          Seq,
          Fail,
          Catch,
          ForkJoin,
          Cancel,
          ForkThenWait,
          Rendezvous,
          Range,
          SubmitInside,
          Nested,
          JoinTop,
          SelfInterrupt,
          InterruptedGet,
          ObserveLocal,
          Blocking {}

  /** A body that runs as its own task (a fork, a half of a join, a submission). */
  record Spawn(int id, Node body) {}

  record Const(long value) implements Node {}

  /** The sum of the items, evaluated in order; the first failure ends it. */
  record Seq(List<Node> items) implements Node {}

  enum FailKind {
    UNCHECKED,
    ERROR,
    /** A checked exception thrown sneakily (undeclared), as Lombok's {@code @SneakyThrows} does. */
    CHECKED,
    /** Unbounded recursion until the stack overflows. */
    STACK_OVERFLOW
  }

  record Fail(int id, FailKind kind) implements Node {}

  /** Evaluates the body; a throwable is recorded (class chain and origin) and the value is 0. */
  record Catch(int id, Node body) implements Node {}

  enum JoinForm {
    /** {@code right.fork(); left; right.join()} */
    FORK_JOIN,
    /** {@code right.fork(); left; right.get()} */
    FORK_GET,
    /** {@code right.fork(); left; right.get(timeout)} with a generous timeout */
    FORK_GET_TIMED,
    /** {@code invokeAll(left, right)} */
    INVOKE_ALL,
    /** {@code right.fork(); left; right.tryUnfork() ? right.invoke() : right.join()} */
    FORK_UNFORK,
    /** {@code right.fork(); left; right.quietlyJoin(); right.join()} */
    FORK_QUIETLY,
    /** {@code Scope.joinLong(left, right, sum)}; on the JDK, fork/compute/join */
    SCOPE_JOIN,
    /** {@code Tine.joinLong(left, right, sum)}; on the JDK, fork/compute/join */
    TINE_JOIN
  }

  /** {@code left + right}, the right half forked (or offered) while the left half runs. */
  record ForkJoin(JoinForm form, Spawn left, Spawn right) implements Node {}

  enum CancelForm {
    BEFORE_FORK,
    AFTER_FORK,
    AFTER_JOIN
  }

  /** Cancels {@code child} at some point; records whether its outcome agrees with the answer. */
  record Cancel(int id, CancelForm form, Spawn child) implements Node {}

  enum WaitForm {
    CF_JOIN,
    CF_GET,
    /** {@code LinkedBlockingQueue.take}: an AQS condition wait, which the JDK compensates. */
    QUEUE_TAKE
  }

  /**
   * Forks {@code child}, which hands its value over through a CompletableFuture or a queue, then
   * waits for it there: a wait the pool does not see unless the runtime compensates for it. (Timed
   * condition waits, such as {@code poll(timeout)}, are left out: the JDK does not compensate them
   * and wedges too.)
   */
  record ForkThenWait(WaitForm form, Spawn child) implements Node {}

  /**
   * {@code parties} tasks (invokeAll) that each block until all have arrived, in the runtime's
   * {@code managedBlock}: completes only if the pool adds a thread per blocked worker.
   */
  record Rendezvous(int parties) implements Node {}

  enum RangeForm {
    FOR_RANGE,
    REDUCE_LONG,
    REDUCE_DOUBLE
  }

  /**
   * A range {@code [from, to)}: Tine.forRange/reduceLong/reduceDouble; on the JDK a parallel
   * IntStream run in the same pool. Sums {@code i & 0xFF} (exact in a double). If {@code fails},
   * index {@code failAt} throws.
   */
  record Range(int id, RangeForm form, int from, int to, boolean fails, int failAt)
      implements Node {}

  /** {@code pool.submit(child)} from inside a task of that pool, then join (or get). */
  record SubmitInside(Spawn child, boolean get) implements Node {}

  /** Creates a pool of {@code parallelism} of the same runtime, invokes {@code child} in it. */
  record Nested(int parallelism, Spawn child) implements Node {}

  /** Joins (or gets) the handle of top-level task {@code top}, as a user passing futures around. */
  record JoinTop(int top, boolean get) implements Node {}

  enum Consumer {
    SLEEP,
    INTERRUPTED,
    QUEUE_TAKE,
    CF_GET,
    TASK_GET,
    TASK_GET_TIMED,
    MANAGED_BLOCK
  }

  /**
   * Interrupts its own thread, then consumes the interrupt in a blocking call (or interrupted()).
   */
  record SelfInterrupt(int id, Consumer consumer) implements Node {}

  /**
   * Calls {@code get} (or timed get) on a task that runs in another pool and waits until another
   * thread has interrupted the caller: the JDK throws InterruptedException, as Future.get says.
   */
  record InterruptedGet(int id, boolean timed) implements Node {}

  /**
   * Reads a thread-local that every task sets at entry and never restores (a careless user). Seeing
   * an unrelated task's value (one this task cannot reach, see {@link Reachability}) is counted,
   * not compared: the JDK's helping does it too, rarely.
   */
  record ObserveLocal(int id) implements Node {}

  enum BlockForm {
    /** {@code Thread.sleep}: an unmanaged wait, like blocking I/O; it ends by itself. */
    SLEEP,
    /** Acquire the run's shared {@code Semaphore(2)}, sleep, release. */
    SEMAPHORE,
    /** Enter the run's one shared monitor, sleep inside it. */
    MONITOR,
    /** A sleep inside the runtime's {@code managedBlock}: the pool may add a worker for it. */
    MANAGED_SLEEP
  }

  /**
   * Blocks for {@code millis} ms in one of the ways users block (a leaf: it waits for nothing the
   * program computes, so it never wedges either runtime). What the fuzzer counts around it is how
   * many top-level tasks run at once and how many threads the pool starts ({@link Outcome}).
   */
  record Blocking(int id, BlockForm form, int millis) implements Node {}

  /** Whether some node of {@code n} calls managedBlock (the JDK's and Tine's spares for it). */
  static boolean usesManagedBlock(Node n) {
    boolean here =
        switch (n) {
          case Rendezvous r -> true;
          case SelfInterrupt s -> s.consumer() == Consumer.MANAGED_BLOCK;
          case Blocking b -> b.form() == BlockForm.MANAGED_SLEEP;
          default -> false;
        };
    if (here) {
      return true;
    }
    for (Node c : children(n)) {
      if (usesManagedBlock(c)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code n} creates no task and waits for none (no fork, join, submission, nested pool,
   * range, future): such a task can give no runtime a reason to start a thread beyond p unless it
   * calls managedBlock.
   */
  static boolean flat(Node n) {
    return switch (n) {
      case Const c -> true;
      case Fail f -> true;
      case ObserveLocal o -> true;
      case Blocking b -> true;
      case SelfInterrupt s ->
          s.consumer() == Consumer.SLEEP || s.consumer() == Consumer.INTERRUPTED;
      case Seq s -> s.items().stream().allMatch(Program::flat);
      case Catch c -> flat(c.body());
      default -> false;
    };
  }

  /** The direct children of a node (spawns stand for their bodies). */
  static List<Node> children(Node n) {
    return switch (n) {
      case Seq s -> s.items();
      case Catch c -> List.of(c.body());
      case ForkJoin f -> List.of(f.left().body(), f.right().body());
      case Cancel c -> List.of(c.child().body());
      case ForkThenWait w -> List.of(w.child().body());
      case SubmitInside s -> List.of(s.child().body());
      case Nested x -> List.of(x.child().body());
      default -> List.of();
    };
  }

  /** The spawns directly under {@code n}: the tasks it creates. */
  static List<Spawn> spawns(Node n) {
    return switch (n) {
      case ForkJoin f -> List.of(f.left(), f.right());
      case Cancel c -> List.of(c.child());
      case ForkThenWait w -> List.of(w.child());
      case SubmitInside s -> List.of(s.child());
      case Nested x -> List.of(x.child());
      default -> List.of();
    };
  }

  /** Every id used in the subtree of {@code n}, spawn ids included. */
  static List<Integer> ids(Node n) {
    List<Integer> out = new ArrayList<>();
    collectIds(n, out);
    return out;
  }

  private static void collectIds(Node n, List<Integer> out) {
    switch (n) {
      case Fail f -> out.add(f.id());
      case Catch c -> out.add(c.id());
      case Cancel c -> out.add(c.id());
      case Range r -> out.add(r.id());
      case SelfInterrupt s -> out.add(s.id());
      case InterruptedGet g -> out.add(g.id());
      case ObserveLocal o -> out.add(o.id());
      case Blocking b -> out.add(b.id());
      default -> {}
    }
    for (Spawn s : spawns(n)) {
      out.add(s.id());
    }
    for (Node c : children(n)) {
      collectIds(c, out);
    }
  }

  /** The number of nodes, a size for shrinking. */
  int size() {
    int size = 0;
    for (Spawn t : tops) {
      size += size(t.body());
    }
    return size;
  }

  private static int size(Node n) {
    int s = 1;
    for (Node c : children(n)) {
      s += size(c);
    }
    return s;
  }
}

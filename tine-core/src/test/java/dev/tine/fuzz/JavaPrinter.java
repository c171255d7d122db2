package dev.tine.fuzz;

import dev.tine.fuzz.Program.Cancel;
import dev.tine.fuzz.Program.Catch;
import dev.tine.fuzz.Program.Const;
import dev.tine.fuzz.Program.Fail;
import dev.tine.fuzz.Program.ForkJoin;
import dev.tine.fuzz.Program.ForkThenWait;
import dev.tine.fuzz.Program.InterruptedGet;
import dev.tine.fuzz.Program.JoinTop;
import dev.tine.fuzz.Program.Nested;
import dev.tine.fuzz.Program.Node;
import dev.tine.fuzz.Program.ObserveLocal;
import dev.tine.fuzz.Program.Range;
import dev.tine.fuzz.Program.Rendezvous;
import dev.tine.fuzz.Program.SelfInterrupt;
import dev.tine.fuzz.Program.Seq;
import dev.tine.fuzz.Program.Spawn;
import dev.tine.fuzz.Program.SubmitInside;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints a program as Java: {@link #literal} is the program as a Java expression, which pasted into
 * {@code DifferentialFuzzTest}'s regression list becomes a regression test; {@link #source} is the
 * same program written against the Tine API, for a reader (a sketch: the observation nodes appear
 * as calls named after what they check).
 */
final class JavaPrinter {
  private JavaPrinter() {}

  static String literal(Program p) {
    StringBuilder s = new StringBuilder("new Program(\n    " + p.seed() + "L,\n    List.of(");
    for (int i = 0; i < p.tops().size(); i++) {
      s.append(i == 0 ? "\n        " : ",\n        ").append(spawn(p.tops().get(i)));
    }
    return s.append("))").toString();
  }

  private static String spawn(Spawn s) {
    return "new Spawn(" + s.id() + ", " + node(s.body()) + ")";
  }

  private static String node(Node n) {
    return switch (n) {
      case Const c -> "new Const(" + c.value() + ")";
      case Seq s -> {
        List<String> items = new ArrayList<>();
        for (Node i : s.items()) {
          items.add(node(i));
        }
        yield "new Seq(List.of(" + String.join(", ", items) + "))";
      }
      case Fail f -> "new Fail(" + f.id() + ", FailKind." + f.kind() + ")";
      case Catch c -> "new Catch(" + c.id() + ", " + node(c.body()) + ")";
      case ForkJoin f ->
          "new ForkJoin(JoinForm."
              + f.form()
              + ", "
              + spawn(f.left())
              + ", "
              + spawn(f.right())
              + ")";
      case Cancel c ->
          "new Cancel(" + c.id() + ", CancelForm." + c.form() + ", " + spawn(c.child()) + ")";
      case ForkThenWait w ->
          "new ForkThenWait(WaitForm." + w.form() + ", " + spawn(w.child()) + ")";
      case Rendezvous r -> "new Rendezvous(" + r.parties() + ")";
      case Range r ->
          "new Range("
              + r.id()
              + ", RangeForm."
              + r.form()
              + ", "
              + bound(r.from())
              + ", "
              + bound(r.to())
              + ", "
              + r.fails()
              + ", "
              + bound(r.failAt())
              + ")";
      case SubmitInside s -> "new SubmitInside(" + spawn(s.child()) + ", " + s.get() + ")";
      case Nested x -> "new Nested(" + x.parallelism() + ", " + spawn(x.child()) + ")";
      case JoinTop j -> "new JoinTop(" + j.top() + ", " + j.get() + ")";
      case SelfInterrupt s -> "new SelfInterrupt(" + s.id() + ", Consumer." + s.consumer() + ")";
      case InterruptedGet g -> "new InterruptedGet(" + g.id() + ", " + g.timed() + ")";
      case ObserveLocal o -> "new ObserveLocal(" + o.id() + ")";
      case Program.Blocking b ->
          "new Blocking(" + b.id() + ", BlockForm." + b.form() + ", " + b.millis() + ")";
    };
  }

  /** Ints near the bounds as offsets from them: that is what a reader needs to see. */
  private static String bound(int v) {
    if (v > Integer.MAX_VALUE - 100_000) {
      return v == Integer.MAX_VALUE
          ? "Integer.MAX_VALUE"
          : "Integer.MAX_VALUE - " + (Integer.MAX_VALUE - v);
    }
    if (v < Integer.MIN_VALUE + 100_000) {
      return v == Integer.MIN_VALUE
          ? "Integer.MIN_VALUE"
          : "Integer.MIN_VALUE + " + ((long) v - Integer.MIN_VALUE);
    }
    return String.valueOf(v);
  }

  /** The program against the Tine API, at parallelism {@code p}. */
  static String source(Program p, int parallelism) {
    StringBuilder s = new StringBuilder();
    s.append("// seed ").append(p.seed()).append('\n');
    s.append("try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(")
        .append(parallelism)
        .append(").build()) {\n");
    for (int i = 0; i < p.tops().size(); i++) {
      s.append("  Task<Long> top")
          .append(i)
          .append(" = ")
          .append(task(p.tops().get(i), 1))
          .append(";\n");
    }
    for (int i = 0; i < p.tops().size(); i++) {
      s.append("  pool.submit(top").append(i).append(");\n");
    }
    for (int i = 0; i < p.tops().size(); i++) {
      s.append("  top").append(i).append(".join();\n");
    }
    return s.append("}\n").toString();
  }

  private static String task(Spawn s, int depth) {
    return "Task.of(() -> " + expr(s.body(), depth + 1) + ") /* task " + s.id() + " */";
  }

  private static String expr(Node n, int depth) {
    String in = "\n" + "  ".repeat(depth + 1);
    return switch (n) {
      case Const c -> c.value() + "L";
      case Seq s -> {
        List<String> items = new ArrayList<>();
        for (Node i : s.items()) {
          items.add(expr(i, depth));
        }
        yield "(" + String.join(" + ", items) + ")";
      }
      case Fail f ->
          switch (f.kind()) {
            case UNCHECKED -> "fail(new FuzzUnchecked() /* #" + f.id() + " */)";
            case ERROR -> "fail(new FuzzError() /* #" + f.id() + " */)";
            case CHECKED -> "sneakyThrow(new FuzzChecked() /* #" + f.id() + " */)";
            case STACK_OVERFLOW -> "recurseUntilStackOverflow(/* #" + f.id() + " */)";
          };
      case Catch c -> "catching(/* #" + c.id() + " */ () -> " + expr(c.body(), depth) + ")";
      case ForkJoin f -> {
        String l = expr(f.left().body(), depth + 1);
        String r = expr(f.right().body(), depth + 1);
        yield switch (f.form()) {
          case FORK_JOIN, FORK_GET, FORK_GET_TIMED, FORK_UNFORK, FORK_QUIETLY -> {
            String wait =
                switch (f.form()) {
                  case FORK_GET -> "right.get()";
                  case FORK_GET_TIMED -> "right.get(120, SECONDS)";
                  case FORK_UNFORK -> "(right.tryUnfork() ? right.invoke() : right.join())";
                  case FORK_QUIETLY -> "right./* quietlyJoin(), then */ join()";
                  default -> "right.join()";
                };
            yield "forkThen(Task.of(() -> "
                + r
                + ").fork() /* task "
                + f.right().id()
                + " */,"
                + in
                + "right -> "
                + l
                + " /* task "
                + f.left().id()
                + " */ + "
                + wait
                + ")";
          }
          case INVOKE_ALL -> "invokeAllSum(Task.of(() -> " + l + "), Task.of(() -> " + r + "))";
          case SCOPE_JOIN ->
              "Scope.current().joinLong(s -> " + l + "," + in + "s -> " + r + ", Long::sum)";
          case TINE_JOIN -> "Tine.joinLong(() -> " + l + "," + in + "() -> " + r + ", Long::sum)";
        };
      }
      case Cancel c ->
          "cancel" + c.form() + "(/* #" + c.id() + " */ " + task(c.child(), depth) + ")";
      case ForkThenWait w -> "forkThenWaitIn" + w.form() + "(" + in + task(w.child(), depth) + ")";
      case Rendezvous r -> "managedBlockRendezvous(" + r.parties() + ")";
      case Range r ->
          switch (r.form()) {
                case FOR_RANGE -> "forRangeSum";
                case REDUCE_LONG -> "Tine.reduceLong";
                case REDUCE_DOUBLE -> "(long) Tine.reduceDouble";
              }
              + "("
              + bound(r.from())
              + ", "
              + bound(r.to())
              + ", 0, i -> "
              + (r.fails() ? "i == " + bound(r.failAt()) + " ? fail(new FuzzUnchecked()) : " : "")
              + "i & 0xFF, "
              + (r.form() == Program.RangeForm.REDUCE_DOUBLE ? "Double::sum" : "Long::sum")
              + ")";
      case SubmitInside s ->
          "Scope.current().pool().submit("
              + task(s.child(), depth)
              + ")."
              + (s.get() ? "get()" : "join()");
      case Nested x -> "newPool(" + x.parallelism() + ").invoke(" + task(x.child(), depth) + ")";
      case JoinTop j -> "top" + j.top() + "." + (j.get() ? "get()" : "join()");
      case SelfInterrupt s -> "interruptSelfThen" + s.consumer() + "(/* #" + s.id() + " */)";
      case InterruptedGet g ->
          "getOnOtherPoolTaskWhileAnotherThreadInterruptsUs(/* #"
              + g.id()
              + ", timed "
              + g.timed()
              + " */)";
      case ObserveLocal o -> "checkThreadLocalIsOwnOrReachable(/* #" + o.id() + " */)";
      case Program.Blocking b ->
          switch (b.form()) {
            case SLEEP -> "Thread.sleep(" + b.millis() + ")";
            case SEMAPHORE ->
                "withPermitOfSharedSemaphore2(() -> Thread.sleep(" + b.millis() + "))";
            case MONITOR -> "synchronized (sharedMonitor) { Thread.sleep(" + b.millis() + "); }";
            case MANAGED_SLEEP -> "managedBlock(() -> Thread.sleep(" + b.millis() + "))";
          };
    };
  }
}

package dev.tine.fuzz;

import dev.tine.fuzz.Program.Cancel;
import dev.tine.fuzz.Program.Catch;
import dev.tine.fuzz.Program.Const;
import dev.tine.fuzz.Program.ForkJoin;
import dev.tine.fuzz.Program.ForkThenWait;
import dev.tine.fuzz.Program.JoinTop;
import dev.tine.fuzz.Program.Nested;
import dev.tine.fuzz.Program.Node;
import dev.tine.fuzz.Program.Range;
import dev.tine.fuzz.Program.Rendezvous;
import dev.tine.fuzz.Program.Seq;
import dev.tine.fuzz.Program.Spawn;
import dev.tine.fuzz.Program.SubmitInside;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * Shrinks a failing program to a small one that still fails the same way: greedy delta debugging
 * over the tree (Zeller's ddmin, one element at a time). Candidates, largest cuts first: drop a
 * top-level task; replace a subtree by a constant; hoist a child in place of its parent; drop an
 * item of a sequence; then halve a range or a rendezvous, and reduce a nested pool to one worker. A
 * candidate is kept if it is lighter and still fails; ids survive, so the shrunk program's
 * observations still name the nodes of the original.
 */
final class Shrinker {
  private Shrinker() {}

  /** Shrinks {@code program} while {@code stillFails}, trying at most {@code budget} candidates. */
  static Program shrink(Program program, Predicate<Program> stillFails, int budget) {
    Program best = program;
    boolean progress = true;
    while (progress && budget > 0) {
      progress = false;
      for (Program c : candidates(best)) {
        if (weight(c) >= weight(best)) {
          continue;
        }
        if (budget-- <= 0) {
          break;
        }
        if (stillFails.test(c)) {
          best = c;
          progress = true;
          break;
        }
      }
    }
    return best;
  }

  /** Fewer nodes first, then smaller parameters. */
  static long weight(Program p) {
    long extra = 0;
    for (Spawn t : p.tops()) {
      extra += extra(t.body());
    }
    return p.size() * 1_000_000L + extra;
  }

  private static long extra(Node n) {
    long e =
        switch (n) {
          case Range r -> (long) r.to() - r.from() + (r.fails() ? 1 : 0);
          case Rendezvous r -> r.parties();
          case Nested x -> x.parallelism();
          case Const c -> c.value() == 0 ? 0 : 1;
          default -> 0;
        };
    for (Node c : Program.children(n)) {
      e += extra(c);
    }
    return e;
  }

  static List<Program> candidates(Program p) {
    List<Program> out = new ArrayList<>();
    for (int k = 0; k < p.tops().size() && p.tops().size() > 1; k++) {
      out.add(withoutTop(p, k));
    }
    for (int t = 0; t < p.tops().size(); t++) {
      Spawn top = p.tops().get(t);
      int count = Program.ids(top.body()).size() + p.size(); // an upper bound on positions
      for (int i = 0; i < count; i++) {
        Node target = nth(top.body(), i, new int[1]);
        if (target == null) {
          break;
        }
        for (Node alt : alternatives(target)) {
          int index = i;
          Node body = mapNth(top.body(), index, n -> alt, new int[1]);
          List<Spawn> tops = new ArrayList<>(p.tops());
          tops.set(t, new Spawn(top.id(), body));
          out.add(new Program(p.seed(), tops));
        }
      }
    }
    return out;
  }

  private static List<Node> alternatives(Node n) {
    List<Node> alts = new ArrayList<>();
    if (!(n instanceof Const c && c.value() == 0)) {
      alts.add(new Const(0));
    }
    alts.addAll(Program.children(n));
    switch (n) {
      case Seq s when s.items().size() > 1 -> {
        for (int i = 0; i < s.items().size(); i++) {
          List<Node> items = new ArrayList<>(s.items());
          items.remove(i);
          alts.add(items.size() == 1 ? items.get(0) : new Seq(items));
        }
      }
      case Range r -> {
        long size = (long) r.to() - r.from();
        if (size > 1) {
          int half = (int) (size / 2);
          // Keep whichever end is at an int bound: that is where overflows live.
          Range smaller =
              r.to() > Integer.MAX_VALUE - 8
                  ? new Range(r.id(), r.form(), r.to() - half, r.to(), false, 0)
                  : new Range(r.id(), r.form(), r.from(), r.from() + half, false, 0);
          boolean keepsFail =
              r.fails() && r.failAt() >= smaller.from() && r.failAt() < smaller.to();
          alts.add(
              new Range(r.id(), r.form(), smaller.from(), smaller.to(), keepsFail, r.failAt()));
        }
        if (r.fails()) {
          alts.add(new Range(r.id(), r.form(), r.from(), r.to(), false, 0));
        }
      }
      case Rendezvous r when r.parties() > 2 ->
          alts.add(new Rendezvous(Math.max(2, r.parties() / 2)));
      case Nested x when x.parallelism() > 1 -> alts.add(new Nested(1, x.child()));
      default -> {}
    }
    return alts;
  }

  private static Program withoutTop(Program p, int k) {
    List<Spawn> tops = new ArrayList<>();
    for (int i = 0; i < p.tops().size(); i++) {
      if (i != k) {
        Spawn s = p.tops().get(i);
        tops.add(new Spawn(s.id(), mapAll(s.body(), n -> renumber(n, k))));
      }
    }
    return new Program(p.seed(), tops);
  }

  private static Node renumber(Node n, int removed) {
    if (n instanceof JoinTop j) {
      if (j.top() == removed) {
        return new Const(0);
      }
      if (j.top() > removed) {
        return new JoinTop(j.top() - 1, j.get());
      }
    }
    return n;
  }

  /** The {@code target}-th node in pre-order, or null. */
  private static Node nth(Node n, int target, int[] counter) {
    if (counter[0]++ == target) {
      return n;
    }
    for (Node c : Program.children(n)) {
      Node found = nth(c, target, counter);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  private static Node mapNth(Node n, int target, UnaryOperator<Node> f, int[] counter) {
    if (counter[0]++ == target) {
      return f.apply(n);
    }
    List<Node> kids = new ArrayList<>();
    for (Node c : Program.children(n)) {
      kids.add(mapNth(c, target, f, counter));
    }
    return rebuild(n, kids);
  }

  private static Node mapAll(Node n, UnaryOperator<Node> f) {
    List<Node> kids = new ArrayList<>();
    for (Node c : Program.children(n)) {
      kids.add(mapAll(c, f));
    }
    return f.apply(rebuild(n, kids));
  }

  /** {@code n} with its children (in {@link Program#children} order) replaced. */
  static Node rebuild(Node n, List<Node> kids) {
    return switch (n) {
      case Seq s -> new Seq(kids);
      case Catch c -> new Catch(c.id(), kids.get(0));
      case ForkJoin f ->
          new ForkJoin(
              f.form(),
              new Spawn(f.left().id(), kids.get(0)),
              new Spawn(f.right().id(), kids.get(1)));
      case Cancel c -> new Cancel(c.id(), c.form(), new Spawn(c.child().id(), kids.get(0)));
      case ForkThenWait w -> new ForkThenWait(w.form(), new Spawn(w.child().id(), kids.get(0)));
      case SubmitInside s -> new SubmitInside(new Spawn(s.child().id(), kids.get(0)), s.get());
      case Nested x -> new Nested(x.parallelism(), new Spawn(x.child().id(), kids.get(0)));
      default -> n;
    };
  }
}

package dev.tine.fuzz;

import dev.tine.fuzz.Program.JoinTop;
import dev.tine.fuzz.Program.Node;
import dev.tine.fuzz.Program.Spawn;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which tasks a task may legitimately run inside its own frame. The JDK's join runs only the task
 * it waits for and that task's subtasks (helping, Lea's leapfrogging); so task A may find task B on
 * its stack, or B's thread-local left behind, only if B is reachable from A over the edges
 * "creates" (fork, join half, submission) and "joins" (a handle passed around). Anything else is a
 * leak of an unrelated task's context into A.
 */
final class Reachability {
  private final Map<Integer, Set<Integer>> edges = new HashMap<>();

  Reachability(Program program) {
    for (Spawn top : program.tops()) {
      collect(program, top.id(), top.body());
    }
  }

  private void collect(Program program, int task, Node n) {
    if (n instanceof JoinTop j && j.top() < program.tops().size()) {
      edge(task, program.tops().get(j.top()).id());
    }
    for (Spawn s : Program.spawns(n)) {
      edge(task, s.id());
      collect(program, s.id(), s.body());
    }
    if (Program.spawns(n).isEmpty()) {
      for (Node c : Program.children(n)) {
        collect(program, task, c);
      }
    }
  }

  private void edge(int from, int to) {
    edges.computeIfAbsent(from, k -> new HashSet<>()).add(to);
  }

  /** Whether {@code to} is {@code from} or reachable from it. */
  boolean reaches(int from, int to) {
    if (from == to) {
      return true;
    }
    Set<Integer> seen = new HashSet<>();
    ArrayDeque<Integer> todo = new ArrayDeque<>(List.of(from));
    while (!todo.isEmpty()) {
      for (int next : edges.getOrDefault(todo.poll(), Set.of())) {
        if (next == to) {
          return true;
        }
        if (seen.add(next)) {
          todo.add(next);
        }
      }
    }
    return false;
  }
}

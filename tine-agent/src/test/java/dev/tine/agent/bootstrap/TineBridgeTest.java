package dev.tine.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TineBridgeTest {
  /**
   * The line of a bytecode index, as the JVM finds it: the entry starting there, else the one
   * starting nearest before it (entries are not in bytecode order: a loop's condition comes last).
   */
  @Test
  void lineAtFollowsTheJvmsRule() {
    int[] table = {0, 10, 4, 11, 20, 15, 9, 12};
    assertEquals(10, TineBridge.lineAt(table, 0));
    assertEquals(10, TineBridge.lineAt(table, 3));
    assertEquals(11, TineBridge.lineAt(table, 4));
    assertEquals(12, TineBridge.lineAt(table, 19));
    assertEquals(15, TineBridge.lineAt(table, 25));
    assertEquals(-1, TineBridge.lineAt(new int[0], 5));
    assertEquals(-1, TineBridge.lineAt(null, 5));
    assertEquals(-1, TineBridge.lineAt(table, -1));
  }
}

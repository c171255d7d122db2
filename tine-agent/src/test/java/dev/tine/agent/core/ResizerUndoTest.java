package dev.tine.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tine.agent.AgentConfig;
import dev.tine.agent.state.Host;
import dev.tine.agent.state.Kind;
import dev.tine.agent.state.PoolFigures;
import dev.tine.agent.state.PoolState;
import dev.tine.agent.state.Registry;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The undo a resize prints ("undo: tine top PID --restore X") must put back that pool only, pasted
 * into a shell: {@code --restore all} (or {@code *}) restores every pool the agent changed, and a
 * word starting with {@code #} is a shell comment.
 */
class ResizerUndoTest {
  private static final Host HOST =
      new Host() {
        private final AtomicInteger recorders = new AtomicInteger();

        @Override
        public AgentConfig config() {
          return AgentConfig.DEFAULT;
        }

        @Override
        public void failed(Throwable t) {}

        @Override
        public void wakeTicker() {}

        @Override
        public AtomicInteger recorders() {
          return recorders;
        }

        @Override
        public int processors() {
          return 2;
        }
      };

  private static String undo(Registry reg, String name) {
    PoolState st = reg.getOrCreate(new Object(), Kind.THREAD_POOL);
    PoolFigures f = new PoolFigures();
    f.name = name;
    st.figures = f;
    return Resizer.undoName(st) + " (#" + st.id + ")";
  }

  @Test
  void theUndoNamesThatPoolOnlyAsAShellReadsIt() {
    Registry reg = new Registry(HOST);
    assertEquals("fixed (#1)", undo(reg, "fixed"));
    assertEquals("'pool ü' (#2)", undo(reg, "pool ü"));
    assertEquals("'#3' (#3)", undo(reg, "all"));
    assertEquals("'#4' (#4)", undo(reg, "ALL"));
    assertEquals("'#5' (#5)", undo(reg, "*"));
    assertEquals("'#x' (#6)", undo(reg, "#x"));
    assertEquals("'it'\\''s' (#7)", undo(reg, "it's"));
  }
}

package dev.tine.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AgentConfigTest {
  @Test
  void defaultsAndOverrides() {
    assertEquals(AgentConfig.DEFAULT, AgentConfig.parse(null));
    assertEquals(AgentConfig.DEFAULT, AgentConfig.parse(""));
    AgentConfig c = AgentConfig.parse("window=3, maxPools=2,quiet=true,tick=500,prometheus=9404");
    assertEquals(Duration.ofSeconds(3), c.window());
    assertEquals(Duration.ofMillis(500), c.tick());
    assertEquals(2, c.maxPools());
    assertEquals("127.0.0.1:9404", c.prometheus());
    assertTrue(c.quiet());
  }

  @Test
  void mistakesAreRefusedWithTheirName() {
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> AgentConfig.parse("windw=3"))
            .getMessage()
            .contains("windw"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> AgentConfig.parse("window=x"))
            .getMessage()
            .contains("window"));
    assertThrows(IllegalArgumentException.class, () -> AgentConfig.parse("tick=5"));
    assertThrows(IllegalArgumentException.class, () -> AgentConfig.parse("window"));
  }
}

package dev.tine.agent.top;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
  @Test
  void writesMapsListsNumbersAndEscapes() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("a", 1);
    m.put("b", 2.5);
    m.put("c", Double.NaN);
    m.put("d", "x\"y\\z\n");
    m.put("e", List.of(true, 3L));
    m.put("f", null);
    m.put("g", 1.0);
    m.put("h", 0.000123456789);
    assertEquals(
        "{\"a\":1,\"b\":2.5,\"c\":null,\"d\":\"x\\\"y\\\\z\\n\",\"e\":[true,3],\"f\":null,\"g\":1,\"h\":0.000123457}",
        Json.write(m));
  }
}

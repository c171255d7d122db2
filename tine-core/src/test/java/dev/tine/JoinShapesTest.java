package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The committed join shapes are what {@link JoinShapes} writes from its table: Scope's and Tine's
 * join methods, Scope's functional interfaces, the eager twins in {@code LatentJoins} and the whole
 * of {@code JoinKinds}. A hand edit of a generated region, or a table line added without
 * regenerating, fails here with the command that regenerates. With {@code -Dtine.regenerate=true}
 * the test writes the files instead (and still fails if they were stale, so a regenerating run is
 * never mistaken for a check).
 *
 * <p>Planted bug it catches: an edited line inside Scope's generated region (the check names
 * Scope.java and its first differing line).
 */
class JoinShapesTest {

  @Test
  void theGeneratedJoinShapesAreCurrent() throws IOException {
    Map<Path, String> generated = JoinShapes.generate(Path.of("."));
    boolean write = Boolean.getBoolean("tine.regenerate");
    List<String> stale = new ArrayList<>();
    for (var e : generated.entrySet()) {
      Path p = e.getKey();
      String now = Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
      if (!now.equals(e.getValue())) {
        stale.add(p + " (" + firstDifference(now, e.getValue()) + ")");
        if (write) {
          Files.writeString(p, e.getValue(), StandardCharsets.UTF_8);
        }
      }
    }
    if (!stale.isEmpty()) {
      fail(
          (write ? "regenerated (run again to check): " : "generated join shapes are stale: ")
              + String.join("; ", stale)
              + (write ? "" : ". Regenerate with: " + JoinShapes.REGENERATE));
    }
  }

  /** The generator's table is the kind table: one kind per shape, numbered in table order. */
  @Test
  void everyShapeHasItsOwnKindInTableOrder() throws ReflectiveOperationException {
    int expected = LatentStack.KIND_FIRST_FUNCTION;
    for (JoinShapes.Shape s : JoinShapes.SHAPES) {
      assertEquals(
          expected++, JoinKinds.class.getDeclaredField(JoinShapes.kind(s)).getInt(null), s + "");
    }
    assertEquals(true, expected - 1 <= Byte.MAX_VALUE, "kinds are stored in a byte");
  }

  private static String firstDifference(String a, String b) {
    String[] x = a.split("\n", -1), y = b.split("\n", -1);
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      if (!x[i].equals(y[i])) {
        return "line " + (i + 1) + ": is '" + x[i].strip() + "', generated '" + y[i].strip() + "'";
      }
    }
    return "length: " + x.length + " lines, generated " + y.length;
  }
}

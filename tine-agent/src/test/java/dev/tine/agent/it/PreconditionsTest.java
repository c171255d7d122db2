package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** A missing precondition skips a test on a developer's machine and fails it in CI. */
class PreconditionsTest {
  @Test
  void aMissingPreconditionFailsInCiAndSkipsElsewhere() {
    AssertionFailedError inCi =
        assertThrows(
            AssertionFailedError.class,
            () -> Preconditions.require(false, "promtool not found", Map.of("CI", "true")));
    assertTrue(inCi.getMessage().contains("promtool not found"), inCi.getMessage());
    assertThrows(
        TestAbortedException.class,
        () -> Preconditions.require(false, "promtool not found", Map.of()));
    assertThrows(
        TestAbortedException.class,
        () -> Preconditions.require(false, "promtool not found", Map.of("CI", "false")));
    Preconditions.require(true, "present", Map.of("CI", "true")); // nothing missing: no effect
  }
}

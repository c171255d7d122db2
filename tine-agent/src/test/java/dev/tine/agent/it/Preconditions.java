package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * What an integration test needs from the machine (a built tine-core, promtool). On a developer's
 * machine a missing one skips the test, saying why; in CI ({@code CI=true}, as CI services set it)
 * it fails the test: a skip there would let a green build hide a test that never ran.
 */
final class Preconditions {
  private Preconditions() {}

  /** Skips (or, in CI, fails) the calling test unless {@code ok}. */
  static void require(boolean ok, String why) {
    require(ok, why, System.getenv());
  }

  static void require(boolean ok, String why, Map<String, String> env) {
    if (ok) {
      return;
    }
    if ("true".equalsIgnoreCase(env.getOrDefault("CI", ""))) {
      fail("CI=true, where a test may not skip itself: " + why);
    }
    Assumptions.abort(why);
  }
}

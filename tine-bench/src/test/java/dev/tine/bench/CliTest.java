package dev.tine.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** Bad arguments exit with 2 and a message, never a stack trace; advise prints its answer. */
class CliTest {
  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter(), err = new StringWriter();
    PrintStream oldOut = System.out, oldErr = System.err;
    ByteArrayOutputStream so = new ByteArrayOutputStream(), se = new ByteArrayOutputStream();
    System.setOut(new PrintStream(so));
    System.setErr(new PrintStream(se));
    try {
      var cl = TineCli.commandLine();
      cl.setOut(new PrintWriter(out));
      cl.setErr(new PrintWriter(err));
      int code = cl.execute(args);
      return new Run(code, out + so.toString(), err + se.toString());
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }

  @Test
  void badBenchArgumentsExitWith2() {
    for (String[] a : new String[][] {
        {"bench", "nosuchprogram"}, {"bench", "--threads", "0"}, {"bench", "--size", "huge"},
        {"bench", "--runtime", "rust"}, {"bench", "--repeat", "0"}, {"bench", "--set", "fib.n=x"}}) {
      Run r = run(a);
      assertEquals(2, r.code(), String.join(" ", a) + ": " + r);
      assertTrue(!r.err().contains("\tat "), "no stack trace: " + r.err());
      assertTrue(r.err().contains("tine"), r.err());
    }
  }

  @Test
  void adviseAnswersAndRejectsBadInput() {
    Run ok = run("advise", "--arrival-rate", "800", "--service-ms", "10", "--percentile", "90", "--max-wait-ms", "10");
    assertEquals(0, ok.code());
    assertTrue(ok.out().contains("recommended pool size: 10"), ok.out());
    assertEquals(2, run("advise", "--arrival-rate", "-1", "--service-ms", "10").code());
    assertEquals(2, run("advise", "--arrival-rate", "800", "--service-ms", "10", "--percentile", "90",
        "--max-wait-ms", "10", "--max-pool-size", "9").code());
    assertEquals(2, run("advise", "--service-ms", "10").code());
  }

  @Test
  void quickBenchRunsAndVerifies() {
    Run r = run("bench", "fib", "--set", "fib.n=25", "--threads", "1,2", "--repeat", "2", "--warmup", "1");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().contains("two-thread ceiling"), r.out());
    assertTrue(!r.out().contains("FAILED"), r.out());
  }
}

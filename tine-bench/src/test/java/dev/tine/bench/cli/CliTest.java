package dev.tine.bench.cli;

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
    for (String[] a :
        new String[][] {
          {"bench", "nosuchprogram"}, {"bench", "--threads", "0"}, {"bench", "--size", "huge"},
          {"bench", "--runtime", "rust"}, {"bench", "--repeat", "0"}, {"bench", "--set", "fib.n=x"}
        }) {
      Run r = run(a);
      assertEquals(2, r.code(), String.join(" ", a) + ": " + r);
      assertTrue(!r.err().contains("\tat "), "no stack trace: " + r.err());
      assertTrue(r.err().contains("tine"), r.err());
    }
  }

  /**
   * Every command reports bad input through picocli: exit 2, one message naming the fault, a help
   * hint.
   */
  @Test
  void badExperimentArgumentsExitWith2ThroughPicocli() {
    String[][] cases = {
      {"experiment", "pool-vs-threads", "--tasks", "0"},
      {"experiment", "pool-sizing", "--seconds", "0"},
      {"experiment", "pool-sizing", "--clients", "0"},
      {"experiment", "pool-sizing", "--pools", "4,lots"},
      {"experiment", "pool-sizing", "--pools", "-1"},
      {"experiment", "pool-sizing", "--cpu-share", "2"},
      {"experiment", "threading-models", "--threads", "0"},
      {"experiment", "threading-models", "--seconds", "-1"},
      {"experiment", "fork-join-tuning", "--threads", "1,0"},
      {"advise", "--snapshot", "/nonexistent/snapshot.json"},
      {"experiment", "gc", "--collectors", "cms"},
      {"experiment", "gc", "--young", "lots"},
      {"experiment", "data-width", "--n", "0"},
      {"experiment", "data-width", "--runtime", "tine-eager"},
      {"compare", "/nonexistent/base.json", "/nonexistent/new.json"},
      {"report", "/nonexistent/run.json", "-o", "/tmp/x.html"},
      {"bench", "--compare", "/nonexistent/base.json"},
    };
    String[] named = {
      "--tasks",
      "--seconds",
      "--clients",
      "lots",
      "--pools",
      "--cpu-share",
      "--threads",
      "--seconds",
      "--threads",
      "snapshot",
      "cms",
      "lots",
      "--n",
      "tine",
      "cannot read",
      "cannot read",
      "cannot read"
    };
    for (int i = 0; i < cases.length; i++) {
      String[] a = cases[i];
      Run r = run(a);
      assertEquals(2, r.code(), String.join(" ", a) + ": " + r);
      assertTrue(r.err().startsWith("tine: "), "picocli's handler wrote the message: " + r.err());
      assertTrue(r.err().contains(named[i]), "the message names the fault: " + r.err());
      assertTrue(
          r.err().contains("--help' for the options"),
          "a pointer to the command's help: " + r.err());
      assertTrue(!r.err().contains("\tat "), "no stack trace: " + r.err());
      assertTrue(r.out().isEmpty(), "nothing ran: " + r.out());
    }
  }

  @Test
  void adviseAnswersAndRejectsBadInput() {
    Run ok =
        run(
            "advise",
            "--arrival-rate",
            "800",
            "--service-ms",
            "10",
            "--percentile",
            "90",
            "--max-wait-ms",
            "10");
    assertEquals(0, ok.code());
    assertTrue(ok.out().contains("recommended pool size: 10"), ok.out());
    assertEquals(2, run("advise", "--arrival-rate", "-1", "--service-ms", "10").code());
    assertEquals(
        2,
        run(
                "advise",
                "--arrival-rate",
                "800",
                "--service-ms",
                "10",
                "--percentile",
                "90",
                "--max-wait-ms",
                "10",
                "--max-pool-size",
                "9")
            .code());
    assertEquals(2, run("advise", "--service-ms", "10").code());
  }

  @Test
  void quickBenchRunsAndVerifies() {
    Run r =
        run(
            "bench",
            "fib",
            "--set",
            "fib.n=25",
            "--threads",
            "1,2",
            "--repeat",
            "2",
            "--warmup",
            "1");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().contains("two-thread ceiling"), r.out());
    assertTrue(!r.out().contains("FAILED"), r.out());
  }
}

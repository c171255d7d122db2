package dev.tine.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.demo.LoopbackServer;
import dev.tine.agent.experiment.LoadClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code java -jar tine-agent.jar top}, as a user or a script would run it. */
class TopIT {
  static ChildJvm top(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("-jar", ChildJvm.agentJar().toString(), "top"));
    cmd.addAll(List.of(args));
    return ChildJvm.java(
        List.of(), null, cmd.get(0), cmd.subList(1, cmd.size()).toArray(new String[0]));
  }

  @Test
  void onceJsonWaitsForASettledWindowAndExitsZeroWithOneRecordPerPool() throws Exception {
    try (ChildJvm server =
        ChildJvm.java(
            List.of("-Xmx128m"),
            ChildJvm.serverClasses().toString(),
            LoopbackServer.class.getName(),
            "fixed",
            "2")) {
      String[] hello = server.expect("PORT", 30).split(" ");
      long pid = Long.parseLong(hello[3]);
      try (LoadClient clients = new LoadClient(Integer.parseInt(hello[1]), 4, 2_000, 1_000)) {
        while (clients.answered() < 50) Thread.sleep(20);
        try (ChildJvm top = top(Long.toString(pid), "--once", "--json")) {
          assertEquals(0, top.waitFor(60), "stderr " + top.err);
          assertEquals(1, top.all.size(), "one JSON document: " + top.all);
          String json = top.all.get(0);
          Matcher m = Pattern.compile("\"since_agent_loaded_ms\":(\\d+)").matcher(json);
          assertTrue(m.find(), json);
          Matcher w = Pattern.compile("\"window_seconds\":([0-9.e+-]+)").matcher(json);
          assertTrue(w.find(), json);
          // --once shows a settled window: the agent has measured for a whole window (5 s)
          assertTrue(
              Double.parseDouble(w.group(1)) >= 4.9,
              "the window the figures cover, " + w.group(1) + " s: " + json);
          assertTrue(
              Long.parseLong(m.group(1)) >= 5000 && Long.parseLong(m.group(1)) <= 15_000,
              "the refresh came " + m.group(1) + " ms after the agent was loaded: " + json);
          Matcher a = Pattern.compile("\"attach_ms\":(\\d+)").matcher(json);
          assertTrue(a.find(), json);
          System.out.println(
              "top --once --json: attach (Attach API, agent load, JMX connection) "
                  + a.group(1)
                  + " ms; first refresh "
                  + m.group(1)
                  + " ms after the agent was loaded");
          String pools = json.substring(json.indexOf("\"pools\":["));
          int records = pools.split("\"kind\":", -1).length - 1;
          assertEquals(1, records, "one record per pool (the server's only pool): " + pools);
          assertTrue(pools.contains("\"name\":\"pool-1-thread\""), pools);
          Matcher rate = Pattern.compile("\"arrival_rate\":([0-9.e+-]+)").matcher(pools);
          assertTrue(rate.find() && Double.parseDouble(rate.group(1)) > 0, pools);
          assertTrue(json.contains("\"sum_littles_l\":"), json);
        }
        // A second top reads the agent the first one left: it is not loaded again, and its age is
        // the agent's, not this client's.
        try (ChildJvm top = top(Long.toString(pid), "--once", "--json")) {
          assertEquals(0, top.waitFor(60), "stderr " + top.err);
          Matcher m = Pattern.compile("\"since_agent_loaded_ms\":(\\d+)").matcher(top.all.get(0));
          assertTrue(m.find() && Long.parseLong(m.group(1)) >= 5000, top.all.get(0));
        }
        // 80 columns: every line fits, the pool's row included.
        try (ChildJvm top = top(Long.toString(pid), "--once", "--width", "80")) {
          assertEquals(0, top.waitFor(60), "stderr " + top.err);
          String out = String.join("\n", top.all);
          assertTrue(out.contains("pool-1-thread") && out.contains("THR c/m/a"), out);
          for (String line : top.all)
            assertTrue(line.length() <= 80, line.length() + " columns: " + line + "\n" + out);
          System.out.println("top --once --width 80:\n" + out);
        }
        // The table, twice: the second refresh a second later.
        try (ChildJvm top = top(Long.toString(pid), "--count", "2", "--interval", "0.5")) {
          assertEquals(0, top.waitFor(60), "stderr " + top.err);
          String out = String.join("\n", top.all);
          assertEquals(2, out.split("tine top - pid", -1).length - 1, out);
          assertTrue(
              out.contains("pool-1-thread") && out.contains("JVM: ΣL =") && out.contains("ΣL ="),
              out);
        }
      }
      server.send("quit");
      server.waitFor(30);
    }
  }

  @Test
  void helpExplainsTheColumns() throws Exception {
    try (ChildJvm top = top("--help")) {
      assertEquals(0, top.waitFor(60), "stderr " + top.err);
      String out = String.join("\n", top.all);
      assertTrue(out.contains("c/m/a = core size / maximum size"), out);
      assertTrue(out.contains("L = λ·(Wq+S)"), out);
      for (String line : top.all) assertTrue(line.length() <= 80, line.length() + ": " + line);
    }
  }

  @Test
  void saysClearlyWhyItCannotAttach() throws Exception {
    long gone = 4_000_000;
    while (ProcessHandle.of(gone).isPresent()) gone++;
    try (ChildJvm top = top(Long.toString(gone), "--once")) {
      assertEquals(3, top.waitFor(60));
      assertTrue(top.err.toString().contains("no process with pid " + gone), top.err.toString());
    }

    Process sleep = new ProcessBuilder("sleep", "60").start();
    try {
      try (ChildJvm top = top(Long.toString(sleep.pid()), "--once")) {
        assertEquals(5, top.waitFor(60), top.err.toString());
        assertTrue(
            top.err.toString().contains("is not a Java virtual machine"), top.err.toString());
      }
      Thread.sleep(200);
      assertTrue(
          sleep.isAlive(),
          "a process that is not a JVM must not be signalled (SIGQUIT would end it)");
    } finally {
      sleep.destroy();
    }

    Process other = otherUsersProcess();
    try {
      long pid = other != null ? other.pid() : 1;
      String owner = ProcessHandle.of(pid).flatMap(p -> p.info().user()).orElse("?");
      if (owner.equals(System.getProperty("user.name")))
        return; // nothing here belongs to anyone else
      try (ChildJvm top = top(Long.toString(pid), "--once")) {
        assertEquals(4, top.waitFor(60), top.err.toString());
        assertTrue(top.err.toString().contains("belongs to user " + owner), top.err.toString());
      }
    } finally {
      if (other != null) other.destroy();
    }
  }

  /** As root: a process of user nobody (setpriv); otherwise null (pid 1 then serves). */
  private static Process otherUsersProcess() throws Exception {
    if (!"root".equals(System.getProperty("user.name"))
        || !Files.isExecutable(Path.of("/usr/bin/setpriv"))) return null;
    Process p =
        new ProcessBuilder(
                "/usr/bin/setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "sleep",
                "60")
            .start();
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (ProcessHandle.of(p.pid())
          .flatMap(h -> h.info().user())
          .map(u -> !u.equals("root"))
          .orElse(false)) return p;
      Thread.sleep(20);
    }
    return p;
  }
}

package dev.tine.agent.servers;

import dev.tine.agent.tune.TuneCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/**
 * {@code tine tune} run in the test's JVM, on its own thread, its output lines collected as they
 * come: the command as a user runs it, over the target's JMX connector.
 */
final class TuneRun implements AutoCloseable {
  final List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
  private final BlockingQueue<String> fresh = new LinkedBlockingQueue<>();
  final StringWriter err = new StringWriter();
  private final Thread thread;
  private volatile int exit = Integer.MIN_VALUE;

  TuneRun(String... args) {
    Writer sink =
        new Writer() {
          private final StringBuilder line = new StringBuilder();

          @Override
          public synchronized void write(char[] c, int off, int len) {
            for (int i = off; i < off + len; i++) {
              if (c[i] == '\n') {
                String l = line.toString();
                line.setLength(0);
                lines.add(l);
                fresh.add(l);
                System.out.println("tune| " + l);
              } else {
                line.append(c[i]);
              }
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    CommandLine cl = new CommandLine(new TuneCommand());
    cl.setOut(new PrintWriter(sink, true));
    cl.setErr(new PrintWriter(err, true));
    thread = new Thread(() -> exit = cl.execute(args), "tine-tune");
    thread.setDaemon(true);
    thread.start();
  }

  /** The next line containing {@code text}, waiting at most {@code seconds}; null if none came. */
  String next(String text, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    for (; ; ) {
      long left = deadline - System.nanoTime();
      String l = left > 0 ? fresh.poll(left, TimeUnit.NANOSECONDS) : null;
      if (l == null || l.contains(text)) return l;
    }
  }

  /** Waits for the command to end ({@code --count}); its exit code. */
  int waitFor(int seconds) throws InterruptedException {
    thread.join(seconds * 1000L);
    if (thread.isAlive()) throw new AssertionError("tine tune still runs after " + seconds + " s");
    return exit;
  }

  List<String> with(String text) {
    synchronized (lines) {
      return lines.stream().filter(l -> l.contains(text)).toList();
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (thread.isAlive()) {
      thread.interrupt();
      thread.join(10_000);
    }
  }
}

package dev.tine.agent.servers;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.ExecutorThreadPool;

/**
 * Embedded Jetty 12 whose thread pool is an {@code ExecutorThreadPool} over the application's own
 * {@code java.util.concurrent.ThreadPoolExecutor} (Jetty renames its threads {@code etpNNN-M}): two
 * instrumented families on the same threads. A request Jetty's strategy runs in place starts inside
 * a task of the application's pool (the producing thread's). The truth is the application pool's
 * own log of its tasks (a subclass: {@code execute}, {@code beforeExecute}, {@code afterExecute});
 * tasks that never end (the selector's and acceptor's loops) are in no window. With {@code
 * requests}, the truth is Jetty's own request log instead (as {@link JettyServer}'s: a request's
 * handling from Jetty's beginning it to the log; its wait from its job's arrival in the pool, here
 * the application pool's {@code execute} that Jetty's pool passes it to, or the job's previous
 * request's end; none for a request run in place by the producing thread). Args: {@code threads
 * [requests]}.
 */
public final class JettyOverTpeServer {
  static final Truth TRUTH = new Truth();

  /** Whether the log is of Jetty's requests (else of the application pool's tasks). */
  static boolean requests;

  /** The job the pool thread runs: its arrival, and its last request's end in the log (0: none). */
  static final ThreadLocal<long[]> JOB = new ThreadLocal<>();

  static final class LoggedPool extends ThreadPoolExecutor {
    private final Map<Runnable, Long> arrivals = new ConcurrentHashMap<>();
    private final ThreadLocal<long[]> running = new ThreadLocal<>();

    LoggedPool(int threads) {
      super(
          threads,
          threads,
          60,
          TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(),
          new java.util.concurrent.ThreadFactory() {
            final AtomicInteger n = new AtomicInteger();

            @Override
            public Thread newThread(Runnable r) {
              Thread t = new Thread(r, "app-tpe-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            }
          });
    }

    @Override
    public void execute(Runnable task) {
      arrivals.put(task, System.nanoTime()); // Jetty queues a job once at a time
      super.execute(task);
    }

    @Override
    protected void beforeExecute(Thread t, Runnable task) {
      super.beforeExecute(t, task);
      Long a = arrivals.remove(task);
      running.set(new long[] {a == null ? 0 : a, System.nanoTime()});
      // a request job (not the selector's, the acceptor's, a reserved thread's or production's)
      String n = task.getClass().getName();
      boolean request =
          a != null
              && !n.contains("ReservedThread")
              && !n.contains("AdaptiveExecutionStrategy")
              && !n.contains("ManagedSelector")
              && !n.contains("Acceptor");
      JOB.set(request ? new long[] {a, 0} : null);
    }

    @Override
    protected void afterExecute(Runnable task, Throwable thrown) {
      long end = System.nanoTime();
      long[] r = running.get();
      if (r != null && r[0] != 0 && !requests) TRUTH.task(r[0], r[1], end);
      running.remove();
      JOB.remove();
      super.afterExecute(task, thrown);
    }
  }

  public static void main(String[] args) throws Exception {
    LoggedPool tpe = new LoggedPool(Integer.parseInt(args[0]));
    requests = args.length > 1 && args[1].equals("requests");
    Server server = new Server(new ExecutorThreadPool(tpe));
    ServerConnector c = new ServerConnector(server);
    c.setHost("127.0.0.1");
    c.setPort(0);
    server.addConnector(c);
    server.setHandler(
        new Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) {
            int[] p = Truth.params(request.getHttpURI().getQuery());
            Truth.work(p[0], p[1]);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 2);
            response.write(
                true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.US_ASCII)), callback);
            TRUTH.request();
            return true;
          }
        });
    if (requests) {
      server.setRequestLog((request, response) -> {
        long end = System.nanoTime();
        long start = request.getBeginNanoTime();
        long[] job = JOB.get();
        long ready = start; // run in place by the producing thread: no wait
        if (job != null) {
          ready = job[1] != 0 ? job[1] : job[0];
          job[1] = end;
        }
        TRUTH.timedRequest(ready, start, end);
      });
    }
    server.start();
    System.out.println("SERVER Jetty " + Server.getVersion() + " over a ThreadPoolExecutor");
    TRUTH.serve(
        c.getLocalPort(),
        () -> {
          try {
            server.stop();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          tpe.shutdownNow();
        });
  }
}

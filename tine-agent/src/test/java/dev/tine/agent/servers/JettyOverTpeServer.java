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
 * tasks that never end (the selector's and acceptor's loops) are in no window. Args: {@code
 * threads}.
 */
public final class JettyOverTpeServer {
  static final Truth TRUTH = new Truth();

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
    }

    @Override
    protected void afterExecute(Runnable task, Throwable thrown) {
      long end = System.nanoTime();
      long[] r = running.get();
      if (r != null && r[0] != 0) TRUTH.task(r[0], r[1], end);
      running.remove();
      super.afterExecute(task, thrown);
    }
  }

  public static void main(String[] args) throws Exception {
    LoggedPool tpe = new LoggedPool(Integer.parseInt(args[0]));
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

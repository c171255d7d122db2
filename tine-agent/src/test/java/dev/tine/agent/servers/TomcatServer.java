package dev.tine.agent.servers;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.AbstractProtocol;
import org.apache.tomcat.util.threads.TaskQueue;
import org.apache.tomcat.util.threads.TaskThreadFactory;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

/**
 * Embedded Tomcat with one servlet, {@code /work}, on 127.0.0.1. Its connector's request pool is
 * Tomcat's own {@code ThreadPoolExecutor}, built as Tomcat builds it ({@code TaskQueue}, {@code
 * maxThreads} threads), in a subclass whose {@code execute}, {@code beforeExecute} and {@code
 * afterExecute} log each task's arrival, start and end: the server's own truth, at the pool's own
 * extension points, and each refusal. Args: {@code maxThreads [maxQueueSize]}.
 */
public final class TomcatServer {
  static final Truth TRUTH = new Truth();

  /** Tomcat's pool, as Tomcat makes it, with its tasks logged. */
  static final class LoggedPool extends ThreadPoolExecutor {
    private final Map<Runnable, Long> arrivals = new ConcurrentHashMap<>();
    private final ThreadLocal<long[]> running = new ThreadLocal<>();

    LoggedPool(int threads, TaskQueue queue) {
      super(
          threads,
          threads,
          60,
          TimeUnit.SECONDS,
          queue,
          new TaskThreadFactory("tomcat-exec-", true, Thread.NORM_PRIORITY));
    }

    @Override
    public void execute(Runnable task) {
      arrivals.put(task, System.nanoTime()); // a SocketProcessor is queued once at a time
      try {
        super.execute(task);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        arrivals.remove(task);
        TRUTH.rejected();
        throw e;
      }
    }

    @Override
    protected void beforeExecute(Thread t, Runnable task) {
      super.beforeExecute(t, task);
      Long a = arrivals.remove(task);
      running.set(new long[] {a == null ? 0 : a, System.nanoTime()});
      RequestLog.taskArrived(a == null ? 0 : a);
    }

    @Override
    protected void afterExecute(Runnable task, Throwable thrown) {
      long end = System.nanoTime();
      long[] r = running.get();
      if (r != null && r[0] != 0) TRUTH.task(r[0], r[1], end);
      running.remove();
      super.afterExecute(task, thrown); // Tomcat counts its submitted tasks down here
    }
  }

  /**
   * Tomcat's own request log: an access log (Tomcat's {@code AccessLog}, called as its access log
   * valve is, once the response is finished) in the engine's pipeline. A request's handling, as
   * Tomcat's access log times it ({@code %D}): from Tomcat reading the request's first byte to the
   * log; its wait: from its connection being handed to the pool ({@link LoggedPool#execute}; the
   * first request a task serves) or from the thread's previous request in the same task (a
   * keep-alive request the thread read itself) to that first byte.
   */
  static final class RequestLog extends org.apache.catalina.valves.ValveBase
      implements org.apache.catalina.AccessLog {
    /** Per pool thread: the arrival of its task (0: none, or already used), its last end. */
    private static final ThreadLocal<long[]> TASK = ThreadLocal.withInitial(() -> new long[2]);

    RequestLog() {
      super(true);
    }

    static void taskArrived(long arrival) {
      long[] t = TASK.get();
      t[0] = arrival;
      t[1] = 0;
    }

    @Override
    public void invoke(
        org.apache.catalina.connector.Request request,
        org.apache.catalina.connector.Response response)
        throws IOException, jakarta.servlet.ServletException {
      getNext().invoke(request, response);
    }

    @Override
    public void log(
        org.apache.catalina.connector.Request request,
        org.apache.catalina.connector.Response response,
        long time) {
      long end = System.nanoTime();
      long start = request.getCoyoteRequest().getStartTimeNanos();
      long[] t = TASK.get();
      long ready = t[0] != 0 ? t[0] : t[1];
      t[0] = 0;
      t[1] = ready == 0 ? 0 : end; // a wait is known only on a pool thread whose task was logged
      TRUTH.timedRequest(ready, start, end);
    }

    @Override
    public void setRequestAttributesEnabled(boolean enabled) {}

    @Override
    public boolean getRequestAttributesEnabled() {
      return false;
    }
  }

  public static final class Work extends HttpServlet {
    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      int[] p = Truth.params(req.getQueryString());
      Truth.work(p[0], p[1]);
      resp.setContentType("text/plain");
      resp.setContentLength(2);
      resp.getOutputStream().write(new byte[] {'o', 'k'});
      TRUTH.request();
    }
  }

  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]);
    // a bounded queue (the connector's maxQueueSize): at maxThreads and a full queue, Tomcat
    // refuses the task and closes the connection
    int queueCapacity = args.length > 1 ? Integer.parseInt(args[1]) : Integer.MAX_VALUE;
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(java.nio.file.Files.createTempDirectory("tomcat").toString());
    Connector c = new Connector("HTTP/1.1");
    c.setPort(0);
    c.setProperty("address", "127.0.0.1");
    TaskQueue queue = new TaskQueue(queueCapacity);
    LoggedPool pool = new LoggedPool(threads, queue);
    queue.setParent(pool);
    ((AbstractProtocol<?>) c.getProtocolHandler()).setExecutor(pool);
    tomcat.getService().addConnector(c);
    tomcat.getEngine().getPipeline().addValve(new RequestLog());
    tomcat.setConnector(c);
    Context ctx = tomcat.addContext("", null);
    Tomcat.addServlet(ctx, "work", new Work());
    ctx.addServletMappingDecoded("/work", "work");
    tomcat.start();
    Truth.sizes = () -> pool.getCorePoolSize() + "/" + pool.getMaximumPoolSize();
    System.out.println("SERVER " + org.apache.catalina.util.ServerInfo.getServerInfo());
    TRUTH.serve(
        c.getLocalPort(),
        () -> {
          try {
            tomcat.stop();
            tomcat.destroy();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          pool.shutdownNow();
        });
  }
}

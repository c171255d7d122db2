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
 * Embedded Tomcat with one servlet, {@code /work}, on 127.0.0.1 (on Tomcat 9, whose servlet API is
 * {@code javax}, the same work in a valve instead, so that this one class, compiled against 10.1,
 * runs on 9, 10.1 and 11: it names no servlet type outside {@link Servlets}). Its connector's
 * request pool is Tomcat's own {@code ThreadPoolExecutor}, built as Tomcat builds it ({@code
 * TaskQueue}, {@code maxThreads} threads), in a subclass whose {@code execute}, {@code
 * beforeExecute} and {@code afterExecute} log each task's arrival, start and end: the server's own
 * truth, at the pool's own extension points, and each refusal. Args: {@code maxThreads
 * [maxQueueSize]}, or {@code threads juc}: the connector's executor is then the application's own
 * {@code java.util.concurrent.ThreadPoolExecutor} ({@link ApplicationPool}), as an application
 * gives one to Tomcat ({@code protocolHandler.setExecutor}); or {@code threads async}: Tomcat's own
 * pool as above, and {@code /work} a Servlet async request ({@link AsyncWork}: {@code
 * startAsync()}, the work on the application's pool, {@code complete()} there).
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
      long start = System.nanoTime(); // as the task starts, before the map's look-up
      super.beforeExecute(t, task);
      Long a = arrivals.remove(task);
      running.set(new long[] {a == null ? 0 : a, start});
      RequestLog.taskStarted(a == null ? 0 : a, start);
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
   * The application's own {@code java.util.concurrent.ThreadPoolExecutor} given to Tomcat as its
   * connector's executor ({@code protocolHandler.setExecutor}), {@code threads} fixed threads over
   * an unbounded queue (a JDK pool starts threads above its core only when its queue is full),
   * logging its tasks at the JDK pool's own extension points as {@link LoggedPool} does.
   */
  static final class ApplicationPool extends java.util.concurrent.ThreadPoolExecutor {
    private final Map<Runnable, long[]> arrivals = new ConcurrentHashMap<>();
    private final ThreadLocal<long[]> running = new ThreadLocal<>();

    ApplicationPool(int threads) {
      super(
          threads,
          threads,
          60,
          TimeUnit.SECONDS,
          new java.util.concurrent.LinkedBlockingQueue<>(),
          new java.util.concurrent.ThreadFactory() {
            private final java.util.concurrent.atomic.AtomicInteger n =
                new java.util.concurrent.atomic.AtomicInteger();

            @Override
            public Thread newThread(Runnable r) {
              Thread t = new Thread(r, "app-exec-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            }
          });
    }

    @Override
    public void execute(Runnable task) {
      // the clock read after the map's put, right as the pool gets the task: a put that waits for
      // a bin's lock held by a descheduled pool thread (under CPU hogs: milliseconds) is not the
      // task's wait in the pool
      long[] arrival = new long[1];
      arrivals.put(task, arrival); // a SocketProcessor is queued once at a time
      arrival[0] = System.nanoTime(); // read by the pool thread after it takes the task
      super.execute(task);
    }

    @Override
    protected void beforeExecute(Thread t, Runnable task) {
      long[] e = arrivals.remove(task);
      long a = e == null ? 0 : e[0];
      long start = System.nanoTime();
      running.set(new long[] {a, start});
      RequestLog.taskStarted(a, start);
    }

    @Override
    protected void afterExecute(Runnable task, Throwable thrown) {
      long end = System.nanoTime();
      long[] r = running.get();
      if (r != null && r[0] != 0) TRUTH.task(r[0], r[1], end);
      running.remove();
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
    /**
     * Per pool thread: the arrival of its task (0: none, or already used), its last end, when the
     * request entered the engine's pipeline (this valve), the task's start, and a count of the
     * thread's tasks.
     */
    private static final ThreadLocal<long[]> TASK = ThreadLocal.withInitial(() -> new long[5]);

    /**
     * A request attribute: the thread-held part of an async request's first dispatch ({@code long[]
     * {wait, held, thread id, task count, end}}), for the log at its completion.
     */
    static final String HELD = "dev.tine.agent.servers.held";

    /**
     * {@code org.apache.coyote.Request.getStartTimeNanos()}, or null: Tomcat 9 has only {@code
     * getStartTime()} in milliseconds, so there a request's handling starts, by this log, as it
     * enters the engine's pipeline (after the head's parsing and the mapping: the agent, which
     * starts it at the adapter, then reads S longer and Wq shorter by that much).
     */
    private static final java.lang.invoke.MethodHandle START_NANOS = startNanos();

    private static java.lang.invoke.MethodHandle startNanos() {
      try {
        return java.lang.invoke.MethodHandles.publicLookup()
            .findVirtual(
                org.apache.coyote.Request.class,
                "getStartTimeNanos",
                java.lang.invoke.MethodType.methodType(long.class));
      } catch (ReflectiveOperationException e) {
        return null;
      }
    }

    RequestLog() {
      super(true);
    }

    static void taskArrived(long arrival) {
      taskStarted(arrival, System.nanoTime());
    }

    /** A pool task that arrived at {@code arrival} (0: not logged) starts at {@code start}. */
    static void taskStarted(long arrival, long start) {
      long[] t = TASK.get();
      t[0] = arrival;
      t[1] = 0;
      t[3] = start;
      t[4]++;
    }

    @Override
    public void invoke(
        org.apache.catalina.connector.Request request,
        org.apache.catalina.connector.Response response)
        throws IOException {
      long[] t = TASK.get();
      t[2] = System.nanoTime();
      // Tomcat's ServletException (javax on 9, jakarta on 10.1) is not named here: JMX's look at
      // this valve's methods would load it
      try {
        getNext().invoke(request, response);
      } catch (IOException | RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw TomcatServer.<RuntimeException>rethrow(e);
      }
      if (request.isAsync()) {
        // the request leaves this thread: what it held of it, from Tomcat's start of the request
        // (its first byte read) to here, and its wait as the access log counts it
        long end = System.nanoTime();
        long start = startOf(request, t);
        long ready = t[0] != 0 ? t[0] : t[1];
        t[0] = 0;
        t[1] = ready == 0 ? 0 : end;
        request.setAttribute(
            HELD,
            new long[] {
              ready == 0 ? -1 : start - ready,
              end - start,
              Thread.currentThread().threadId(),
              t[4],
              end,
              ready
            });
      }
    }

    private static long startOf(org.apache.catalina.connector.Request request, long[] t) {
      try {
        return START_NANOS != null
            ? (long) START_NANOS.invokeExact(request.getCoyoteRequest())
            : t[2];
      } catch (Throwable e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void log(
        org.apache.catalina.connector.Request request,
        org.apache.catalina.connector.Response response,
        long time) {
      long end = System.nanoTime();
      long[] t = TASK.get();
      long start = startOf(request, t);
      if (request.getAttribute(HELD) instanceof long[] h) {
        // an async request's completion (asyncDispatch): the access log's span is the whole
        // request (%D); the threads held it for its first dispatch and for this one, from this
        // task's start (a task of its own, queued by complete()) or, in the first dispatch's task,
        // from that dispatch's end
        boolean sameTask = h[2] == Thread.currentThread().threadId() && h[3] == t[4];
        long wait = h[0], held = h[1];
        if (sameTask) {
          held += end - h[4];
        } else {
          wait = wait < 0 || t[0] == 0 ? -1 : wait + (t[3] - t[0]);
          held += end - t[3];
          t[0] = 0;
        }
        t[1] = end; // a later request in this task waited from here
        TRUTH.timedRequest(h[5], start, end);
        TRUTH.heldRequest(wait, held, end);
        return;
      }
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

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T rethrow(Throwable t) throws T {
    throw (T) t;
  }

  /** The servlet (Tomcat 10.1, 11: Jakarta); loaded only there. */
  static final class Servlets {
    static void add(Context ctx, boolean async) {
      org.apache.catalina.Wrapper w =
          Tomcat.addServlet(ctx, "work", async ? new AsyncWork() : new Work());
      w.setAsyncSupported(async);
      ctx.addServletMappingDecoded("/work", "work");
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

  /**
   * {@code /work} as a Servlet async request: its CPU part on Tomcat's thread, then {@code
   * startAsync()}; its sleep (the call to "another system") and the answer on the application's own
   * pool of 8 threads ({@code async-work-}), then {@code complete()} there, which hands the
   * completion back to Tomcat's pool.
   */
  public static final class AsyncWork extends HttpServlet {
    static final java.util.concurrent.ExecutorService WORK =
        java.util.concurrent.Executors.newFixedThreadPool(
            8,
            r -> {
              Thread t = new Thread(r, "async-work-" + System.identityHashCode(r));
              t.setDaemon(true);
              return t;
            });

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
      int[] p = Truth.params(req.getQueryString());
      // CPU on Tomcat's thread before going async (as a servlet that checks or parses first): ten
      // times the synchronous servlet's rounds, so that what the request holds of Tomcat's threads
      // is well above the few microseconds by which the log's points lie inside Tomcat's (see
      // TomcatIT#servletAsyncRequests)
      Truth.work(0, 10 * p[1]);
      jakarta.servlet.AsyncContext async = req.startAsync();
      WORK.execute(() -> {
        try {
          Truth.work(p[0], 0);
          resp.setContentType("text/plain");
          resp.setContentLength(2);
          resp.getOutputStream().write(new byte[] {'o', 'k'});
          TRUTH.request();
        } catch (IOException e) {
          // the client went away: the completion still ends the request
        } finally {
          async.complete();
        }
      });
    }
  }

  /**
   * The servlet's work as the engine's last valve (Tomcat 9): the same answer, through Catalina's
   * own request and response, whose methods used here take and return no servlet type.
   */
  static final class WorkValve extends org.apache.catalina.valves.ValveBase {
    WorkValve() {
      super(true);
    }

    @Override
    public void invoke(
        org.apache.catalina.connector.Request req, org.apache.catalina.connector.Response resp)
        throws IOException {
      int[] p = Truth.params(req.getQueryString());
      Truth.work(p[0], p[1]);
      resp.setContentType("text/plain");
      resp.setContentLength(2);
      resp.getWriter().write("ok");
      TRUTH.request();
    }
  }

  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]);
    // a bounded queue (the connector's maxQueueSize): at maxThreads and a full queue, Tomcat
    // refuses the task and closes the connection
    boolean juc = args.length > 1 && args[1].equals("juc");
    boolean async = args.length > 1 && args[1].equals("async");
    int queueCapacity =
        args.length > 1 && !juc && !async ? Integer.parseInt(args[1]) : Integer.MAX_VALUE;
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(java.nio.file.Files.createTempDirectory("tomcat").toString());
    Connector c = new Connector("HTTP/1.1");
    c.setPort(0);
    c.setProperty("address", "127.0.0.1");
    java.util.concurrent.AbstractExecutorService pool;
    java.util.function.Supplier<String> sizes;
    if (juc) {
      ApplicationPool p = new ApplicationPool(threads);
      pool = p;
      sizes = () -> p.getCorePoolSize() + "/" + p.getMaximumPoolSize();
    } else {
      TaskQueue queue = new TaskQueue(queueCapacity);
      LoggedPool p = new LoggedPool(threads, queue);
      queue.setParent(p);
      pool = p;
      sizes = () -> p.getCorePoolSize() + "/" + p.getMaximumPoolSize();
    }
    ((AbstractProtocol<?>) c.getProtocolHandler()).setExecutor(pool);
    tomcat.getService().addConnector(c);
    tomcat.getEngine().getPipeline().addValve(new RequestLog());
    boolean javax = org.apache.catalina.util.ServerInfo.getServerNumber().startsWith("9.");
    if (javax) tomcat.getEngine().getPipeline().addValve(new WorkValve());
    tomcat.setConnector(c);
    Context ctx = tomcat.addContext("", null);
    if (!javax) Servlets.add(ctx, async);
    tomcat.start();
    Truth.sizes = sizes;
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

package dev.tine.agent.servers;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Embedded Jetty 12 on 127.0.0.1 with its defaults (a {@code QueuedThreadPool} with reserved
 * threads; the selector's tasks consumed by Jetty's adaptive strategy) and one blocking handler.
 * The server's own log of each request task: a request the strategy queued in the pool arrived when
 * the pool's {@code execute} got it, started and ended with the pool's {@code runJob} (the pool is
 * subclassed for that); a request the producing thread ran in place (after handing production to a
 * reserved thread) waited for nothing and is timed in the handler. Args: {@code maxThreads}.
 */
public final class JettyServer {
  static final Truth TRUTH = new Truth();

  /** The job a pool thread runs now, with when it was queued and started. */
  static final class Job {
    final Runnable job;
    final long arrival, start;
    int requests;

    /** The end of the job's last request in Jetty's request log (0: none yet). */
    long lastLogged;

    Job(Runnable job, long arrival, long start) {
      this.job = job;
      this.arrival = arrival;
      this.start = start;
    }

    /**
     * Whether the job is a request task (not a selector, acceptor, reserved thread or producer).
     */
    boolean isRequestTask() {
      String n = job.getClass().getName();
      return arrival != 0
          && !n.contains("ReservedThread")
          && !n.contains("AdaptiveExecutionStrategy")
          && !n.contains("ManagedSelector")
          && !n.contains("Acceptor");
    }
  }

  static final ThreadLocal<Job> CURRENT = new ThreadLocal<>();

  static final class LoggedPool extends QueuedThreadPool {
    private final Map<Runnable, Long> arrivals = new ConcurrentHashMap<>();

    LoggedPool(int maxThreads) {
      super(maxThreads);
      setName("jetty-qtp");
    }

    @Override
    public void execute(Runnable job) {
      arrivals.put(job, System.nanoTime()); // an endpoint's task is queued once at a time
      super.execute(job);
    }

    @Override
    protected void runJob(Runnable job) {
      Long a = arrivals.remove(job);
      Job j = new Job(job, a == null ? 0 : a, System.nanoTime());
      Job outer = CURRENT.get();
      CURRENT.set(j);
      try {
        super.runJob(job);
      } finally {
        CURRENT.set(outer);
        if (j.requests > 0) TRUTH.task(j.arrival, j.start, System.nanoTime());
      }
    }
  }

  public static void main(String[] args) throws Exception {
    LoggedPool pool = new LoggedPool(Integer.parseInt(args[0]));
    boolean virtual = args.length > 1 && args[1].equals("virtual");
    // Jetty runs each blocking task (each request) on a new virtual thread
    if (virtual) pool.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
    Server server = new Server(pool);
    ServerConnector c = new ServerConnector(server);
    c.setHost("127.0.0.1");
    c.setPort(0);
    server.addConnector(c);
    server.setHandler(
        new Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) {
            long start = System.nanoTime();
            if (request.getHttpURI().getPath().equals("/pin")) {
              try {
                PinningCopies.pinFor30Ms();
              } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
              }
            }
            int[] p = Truth.params(request.getHttpURI().getQuery());
            Truth.work(p[0], p[1]);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 2);
            response.write(
                true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.US_ASCII)), callback);
            Job j = CURRENT.get();
            if (j != null && j.isRequestTask()) j.requests++; // logged as its job ends
            else TRUTH.task(start, start, System.nanoTime()); // run in place: no wait
            TRUTH.request();
            return true;
          }
        });
    // Jetty's own request log, called as a request completes: its handling from Jetty's
    // beginning it (getBeginNanoTime) to the log; its wait from its job's arrival in the pool (the
    // job's first request) or the job's previous request's end; a request run in place by the
    // thread that produced it waited for nothing.
    server.setRequestLog((request, response) -> {
      long end = System.nanoTime();
      long start = request.getBeginNanoTime();
      Job j = CURRENT.get();
      long ready = start;
      if (j != null && j.isRequestTask()) {
        ready = j.lastLogged != 0 ? j.lastLogged : j.arrival;
        j.lastLogged = end;
      }
      TRUTH.timedRequest(ready, start, end);
    });
    server.start();
    Truth.sizes = () -> pool.getMinThreads() + "/" + pool.getMaxThreads();
    System.out.println(
        "SERVER Jetty " + Server.getVersion() + (virtual ? " (virtual threads)" : ""));
    TRUTH.serve(
        c.getLocalPort(),
        () -> {
          try {
            server.stop();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }
}

package dev.tine.agent.servers;

import io.undertow.Undertow;
import io.undertow.server.HttpServerExchange;
import java.net.InetSocketAddress;

/**
 * Embedded Undertow 2.3 (its default worker pool: XNIO's JBoss {@code EnhancedQueueExecutor}) on
 * 127.0.0.1, with one I/O thread and {@code workerThreads} workers. The handler, on the I/O thread,
 * notes the time and dispatches the exchange to the worker pool (as Undertow's {@code
 * BlockingHandler} does); the dispatched handler notes its start and end: the server's own log of
 * each worker task. Args: {@code workerThreads}.
 */
public final class UndertowServer {
  static final Truth TRUTH = new Truth();

  public static void main(String[] args) throws Exception {
    int workers = Integer.parseInt(args[0]);
    Undertow server =
        Undertow.builder()
            .addHttpListener(0, "127.0.0.1")
            .setIoThreads(1)
            .setWorkerThreads(workers)
            .setHandler(exchange -> {
              long arrival = System.nanoTime();
              exchange.dispatch((HttpServerExchange ex) -> {
                long start = System.nanoTime();
                // where Undertow's own access log logs: as the exchange completes
                ex.addExchangeCompleteListener((done, next) -> {
                  TRUTH.timedRequest(arrival, start, System.nanoTime());
                  next.proceed();
                });
                int[] p = Truth.params(ex.getQueryString());
                Truth.work(p[0], p[1]);
                ex.getResponseHeaders().put(io.undertow.util.Headers.CONTENT_TYPE, "text/plain");
                ex.getResponseSender().send("ok");
                TRUTH.task(arrival, start, System.nanoTime());
                TRUTH.request();
              });
            })
            .build();
    server.start();
    Truth.sizes =
        () ->
            server.getWorker().getMXBean().getCoreWorkerPoolSize()
                + "/"
                + server.getWorker().getMXBean().getMaxWorkerPoolSize();
    System.out.println("SERVER Undertow " + io.undertow.Version.getVersionString());
    int port = ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
    TRUTH.serve(port, server::stop);
  }
}

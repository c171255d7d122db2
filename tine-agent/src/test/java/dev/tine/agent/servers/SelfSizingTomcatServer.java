package dev.tine.agent.servers;

import dev.tine.executor.MeasuredExecutor;
import java.util.concurrent.Executor;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.AbstractProtocol;

/**
 * {@link TomcatServer}'s server with a self-sizing {@code MeasuredExecutor} (from {@code min}
 * threads, up to {@code max}) as its connector's executor: the best case {@code tine tune} is
 * measured against, a pool that sizes itself every tick from its own figures. The server's own
 * request log is {@link TomcatServer}'s (the wait from the task being handed to the executor).
 * Args: {@code min max}.
 */
public final class SelfSizingTomcatServer {
  private SelfSizingTomcatServer() {}

  public static void main(String[] args) throws Exception {
    int min = Integer.parseInt(args[0]), max = Integer.parseInt(args[1]);
    MeasuredExecutor me =
        MeasuredExecutor.builder()
            .name("me-exec")
            .poolSize(min)
            .selfSizing(min, max)
            .registerMXBean(false)
            .build();
    // what Tomcat hands over, logged as TomcatServer's own pool logs it
    Executor logged =
        task -> {
          long arrival = System.nanoTime();
          me.execute(() -> {
            long start = System.nanoTime();
            TomcatServer.RequestLog.taskArrived(arrival);
            try {
              task.run();
            } finally {
              TomcatServer.TRUTH.task(arrival, start, System.nanoTime());
            }
          });
        };
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(java.nio.file.Files.createTempDirectory("tomcat").toString());
    Connector c = new Connector("HTTP/1.1");
    c.setPort(0);
    c.setProperty("address", "127.0.0.1");
    ((AbstractProtocol<?>) c.getProtocolHandler()).setExecutor(logged);
    tomcat.getService().addConnector(c);
    tomcat.getEngine().getPipeline().addValve(new TomcatServer.RequestLog());
    tomcat.setConnector(c);
    Context ctx = tomcat.addContext("", null);
    Tomcat.addServlet(ctx, "work", new TomcatServer.Work());
    ctx.addServletMappingDecoded("/work", "work");
    tomcat.start();
    Truth.sizes = () -> me.poolSize() + " " + me.sizeHistory();
    System.out.println(
        "SERVER " + org.apache.catalina.util.ServerInfo.getServerInfo() + " (self-sizing)");
    TomcatServer.TRUTH.serve(
        c.getLocalPort(),
        () -> {
          try {
            tomcat.stop();
            tomcat.destroy();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          me.close();
        });
  }
}

package dev.tine.agent.servers;

import java.util.Map;
import org.apache.tomcat.util.threads.TaskQueue;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.task.TaskDecorator;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Boot 3.4 web application on its embedded Tomcat, on 127.0.0.1. Args: {@code platform N}:
 * Tomcat's request pool of N threads, given to Tomcat through Spring Boot's protocol-handler
 * customizer as {@link TomcatServer.LoggedPool} (Tomcat's own pool, logging each task: the server's
 * truth); or {@code default N}: the pool Tomcat makes itself ({@code server.tomcat.threads.max=N},
 * its tasks not logged); or {@code tpte N}: Tomcat's executor is a Spring {@link
 * ThreadPoolTaskExecutor} of N threads ({@code tpte-exec-}) whose tasks a {@link TaskDecorator}
 * wraps ({@link LoggingDecorator}, which logs each task: the application's own timings of its
 * pool), given to Tomcat by the same customizer; or {@code virtual}: {@code
 * spring.threads.virtual.enabled=true}, each request task on a new virtual thread. Every request is
 * logged by Tomcat's access-log hook ({@link TomcatServer.RequestLog}).
 */
@SpringBootApplication(proxyBeanMethods = false)
@RestController
public class SpringServer {
  static boolean virtual, defaultPool, tpte;
  static int threads;

  /** The {@code tpte} mode's executor, once the customizer has made it. */
  static volatile ThreadPoolTaskExecutor taskExecutor;

  /**
   * Wraps each task as a context-propagating decorator does (an MDC or security context copied from
   * the submitting thread into the task), and logs the task: its arrival when it is decorated (in
   * the pool's {@code execute}, just before the pool queues the wrapper), its start and end around
   * the task in the wrapper.
   */
  static final class LoggingDecorator implements TaskDecorator {
    static final ThreadLocal<String> CONTEXT = new ThreadLocal<>();

    @Override
    public Runnable decorate(Runnable task) {
      String context = CONTEXT.get();
      long arrival = System.nanoTime();
      return () -> {
        long start = System.nanoTime();
        CONTEXT.set(context);
        TomcatServer.RequestLog.taskArrived(arrival);
        try {
          task.run();
        } finally {
          CONTEXT.remove();
          TomcatServer.TRUTH.task(arrival, start, System.nanoTime());
        }
      };
    }
  }

  @GetMapping("/work")
  String work(@RequestParam("sleep") int sleep, @RequestParam("cpu") int cpu) {
    Truth.work(sleep, cpu);
    TomcatServer.TRUTH.request();
    return "ok";
  }

  @Bean
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> loggedPool() {
    return factory -> {
      factory.addEngineValves(new TomcatServer.RequestLog());
      factory.addProtocolHandlerCustomizers(handler -> {
        if (virtual || defaultPool) return;
        if (tpte) {
          ThreadPoolTaskExecutor e = new ThreadPoolTaskExecutor();
          e.setCorePoolSize(threads);
          e.setMaxPoolSize(threads);
          e.setThreadNamePrefix("tpte-exec-");
          e.setDaemon(true);
          e.setTaskDecorator(new LoggingDecorator());
          e.initialize();
          taskExecutor = e;
          handler.setExecutor(e);
          return;
        }
        TaskQueue queue = new TaskQueue();
        TomcatServer.LoggedPool pool = new TomcatServer.LoggedPool(threads, queue);
        queue.setParent(pool);
        handler.setExecutor(pool);
      });
    };
  }

  public static void main(String[] args) throws Exception {
    virtual = args[0].equals("virtual");
    defaultPool = args[0].equals("default");
    tpte = args[0].equals("tpte");
    threads = virtual || defaultPool ? 0 : Integer.parseInt(args[1]);
    SpringApplication app = new SpringApplication(SpringServer.class);
    app.setDefaultProperties(
        Map.of(
            "server.port", "0",
            "server.address", "127.0.0.1",
            "spring.main.banner-mode", "off",
            "logging.level.root", "WARN",
            "spring.threads.virtual.enabled", String.valueOf(virtual),
            "server.tomcat.threads.max", args.length > 1 ? args[1] : "200"));
    ConfigurableApplicationContext ctx = app.run();
    int port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
    System.out.println(
        "SERVER Spring Boot "
            + org.springframework.boot.SpringBootVersion.getVersion()
            + " on "
            + org.apache.catalina.util.ServerInfo.getServerInfo()
            + " ("
            + org.apache.catalina.util.ServerInfo.class.getClassLoader().getClass().getSimpleName()
            + ")");
    TomcatServer.TRUTH.serve(
        port,
        () -> {
          ctx.close();
          ThreadPoolTaskExecutor e = taskExecutor;
          if (e != null) e.shutdown();
        });
  }
}

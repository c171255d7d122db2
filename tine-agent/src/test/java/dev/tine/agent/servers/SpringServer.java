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
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Boot 3.4 web application on its embedded Tomcat, on 127.0.0.1. Args: {@code platform N}:
 * Tomcat's request pool of N threads, given to Tomcat through Spring Boot's protocol-handler
 * customizer as {@link TomcatServer.LoggedPool} (Tomcat's own pool, logging each task: the server's
 * truth); or {@code default N}: the pool Tomcat makes itself ({@code server.tomcat.threads.max=N},
 * its tasks not logged); or {@code virtual}: {@code spring.threads.virtual.enabled=true}, each
 * request task on a new virtual thread. Every request is logged by Tomcat's access-log hook ({@link
 * TomcatServer.RequestLog}).
 */
@SpringBootApplication(proxyBeanMethods = false)
@RestController
public class SpringServer {
  static boolean virtual, defaultPool;
  static int threads;

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
            + org.apache.catalina.util.ServerInfo.getServerInfo());
    TomcatServer.TRUTH.serve(port, ctx::close);
  }
}

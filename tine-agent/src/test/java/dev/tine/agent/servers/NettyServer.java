package dev.tine.agent.servers;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.MultithreadEventExecutorGroup;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Embedded Netty 4.1 HTTP server on 127.0.0.1: one I/O event loop decodes requests, and the handler
 * that does the work runs on a {@code DefaultEventExecutorGroup} of {@code threads} executors
 * (Netty's way to keep blocking work off the I/O loop). A handler on the I/O loop notes each
 * request's time just before Netty hands it to the group; the work handler notes its start and end,
 * and the same for the read-complete event Netty hands the group after each read: the server's own
 * log of each task of the group. Args: {@code threads}.
 */
public final class NettyServer {
  static final Truth TRUTH = new Truth();

  /** When the I/O loop passed on each request of a channel not yet handled. */
  static final io.netty.util.AttributeKey<java.util.Queue<Long>> READ =
      io.netty.util.AttributeKey.valueOf("read");

  /** When the I/O loop passed on each read-complete event of a channel not yet handled. */
  static final io.netty.util.AttributeKey<java.util.Queue<Long>> READ_COMPLETE =
      io.netty.util.AttributeKey.valueOf("readComplete");

  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]);
    boolean overTpe = args.length > 1 && args[1].equals("tpe");
    EventLoopGroup boss = new NioEventLoopGroup(1, new DefaultThreadFactory("netty-boss"));
    EventLoopGroup ioLoop = new NioEventLoopGroup(1, new DefaultThreadFactory("netty-io"));
    CountedPool tpe = overTpe ? new CountedPool(threads) : null;
    EventExecutorGroup app =
        overTpe
            ? new MultithreadEventExecutorGroup(threads, tpe) {
              @Override
              protected EventExecutor newChild(Executor executor, Object... args) {
                return new DefaultEventExecutor(this, executor);
              }
            }
            : new DefaultEventExecutorGroup(threads, new DefaultThreadFactory("netty-app"));
    if (overTpe) Truth.sizes = tpe::counts;
    ServerBootstrap b =
        new ServerBootstrap()
            .group(boss, ioLoop)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 16))
                        .addLast(
                            new ChannelInboundHandlerAdapter() {
                              @Override
                              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                // the request goes on as it is (a handler down the pipeline
                                // reads a FullHttpRequest); its time waits beside it
                                ctx.channel()
                                    .attr(READ)
                                    .setIfAbsent(
                                        new java.util.concurrent.ConcurrentLinkedQueue<>());
                                ctx.channel().attr(READ).get().add(System.nanoTime());
                                ctx.fireChannelRead(msg);
                              }

                              @Override
                              public void channelReadComplete(ChannelHandlerContext ctx) {
                                ctx.channel()
                                    .attr(READ_COMPLETE)
                                    .setIfAbsent(
                                        new java.util.concurrent.ConcurrentLinkedQueue<>());
                                ctx.channel().attr(READ_COMPLETE).get().add(System.nanoTime());
                                ctx.fireChannelReadComplete();
                              }
                            })
                        .addLast(app, new Work());
                  }
                });
    Channel server = b.bind("127.0.0.1", 0).sync().channel();
    System.out.println(
        "SERVER Netty "
            + io.netty.util.Version.identify().get("netty-common").artifactVersion()
            + (overTpe ? " over a ThreadPoolExecutor" : ""));
    TRUTH.serve(
        ((InetSocketAddress) server.localAddress()).getPort(),
        () -> {
          server.close().syncUninterruptibly();
          app.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
          ioLoop.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
          boss.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
          if (tpe != null) tpe.shutdown();
        });
  }

  /**
   * The application's pool under the group: a fixed pool of {@code threads} that counts its own
   * tasks (each one of Netty's executors' run loop).
   */
  static final class CountedPool extends ThreadPoolExecutor {
    private final AtomicInteger started = new AtomicInteger(), ended = new AtomicInteger();

    CountedPool(int threads) {
      super(
          threads,
          threads,
          60,
          TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(),
          new ThreadFactory() {
            final AtomicInteger n = new AtomicInteger();

            @Override
            public Thread newThread(Runnable r) {
              Thread t = new Thread(r, "netty-tpe-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            }
          });
    }

    @Override
    protected void beforeExecute(Thread t, Runnable task) {
      super.beforeExecute(t, task);
      started.incrementAndGet();
    }

    @Override
    protected void afterExecute(Runnable task, Throwable thrown) {
      ended.incrementAndGet();
      super.afterExecute(task, thrown);
    }

    String counts() {
      return "tpe threads="
          + getMaximumPoolSize()
          + " started="
          + started.get()
          + " ended="
          + ended.get()
          + " active="
          + getActiveCount()
          + " completed="
          + getCompletedTaskCount();
    }
  }

  /**
   * Runs on the group: Netty hands it each read and, to keep events in order, each read-complete
   * (two tasks a request). Both are logged.
   */
  static final class Work extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      long start = System.nanoTime();
      java.util.Queue<Long> q = ctx.channel().attr(READ_COMPLETE).get();
      Long arrival = q == null ? null : q.poll();
      ctx.fireChannelReadComplete();
      if (arrival != null) TRUTH.task(arrival, start, System.nanoTime());
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      long start = System.nanoTime();
      long arrival = ctx.channel().attr(READ).get().poll(); // events stay in order per channel
      QueryStringDecoder q = new QueryStringDecoder(request.uri());
      int sleep =
          Integer.parseInt(q.parameters().getOrDefault("sleep", java.util.List.of("0")).get(0));
      int cpu = Integer.parseInt(q.parameters().getOrDefault("cpu", java.util.List.of("0")).get(0));
      Truth.work(sleep, cpu);
      FullHttpResponse r =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.OK,
              Unpooled.copiedBuffer("ok", StandardCharsets.US_ASCII));
      r.headers().set(HttpHeaderNames.CONTENT_LENGTH, 2);
      ctx.writeAndFlush(r);
      long end = System.nanoTime();
      TRUTH.task(arrival, start, end);
      TRUTH.timedRequest(arrival, start, end); // the request is this read task
      TRUTH.request();
    }
  }
}

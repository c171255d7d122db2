package dev.tine.agent.servers;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultSelectStrategyFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SelectStrategy;
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
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Embedded Netty 4.1 HTTP server on 127.0.0.1 with its handler on the event loop (Netty's usual
 * way): a {@code NioEventLoopGroup} of {@code loops} I/O loops decodes, aggregates and handles each
 * request on the loop that reads it. Args: {@code loops [epoll]}: with {@code epoll}, an {@code
 * EpollEventLoopGroup} (Linux's native transport) in place of NIO's, the rest the same.
 *
 * <p>Its own log of each request, through Netty's public API only: the handler notes its start and
 * end; and, for the wait, when the loop reached the request's channel's bytes in that turn of the
 * loop. Netty tells an application when a turn begins (its {@code SelectStrategy} is asked before
 * each {@code select}) and when a channel's bytes are read (the pipeline's first handler), not when
 * {@code select} returned: so the request waited, by this log, from the first channel the loop read
 * in that turn (the latest its {@code select} can have returned) to the handler's start. That reads
 * short of the wait from {@code select}'s return by the time the loop took to reach the turn's
 * first channel's first handler (a read system call, microseconds), once per request.
 */
public final class NettyLoopServer {
  static final Truth TRUTH = new Truth();

  /** When the loop first read a channel's bytes in its current turn (0: none yet), per loop. */
  private static final ThreadLocal<long[]> TURN = ThreadLocal.withInitial(() -> new long[1]);

  public static void main(String[] args) throws Exception {
    int loops = Integer.parseInt(args[0]);
    SelectStrategy netty = DefaultSelectStrategyFactory.INSTANCE.newSelectStrategy();
    // a new turn of the loop: before its select (the strategy Netty would use, unchanged)
    SelectStrategy turns =
        (selectSupplier, hasTasks) -> {
          TURN.get()[0] = 0;
          return netty.calculateStrategy(selectSupplier, hasTasks);
        };
    boolean epoll = args.length > 1 && args[1].equals("epoll");
    if (epoll) io.netty.channel.epoll.Epoll.ensureAvailability(); // says why, where it cannot load
    EventLoopGroup boss =
        epoll
            ? new io.netty.channel.epoll.EpollEventLoopGroup(
                1, new DefaultThreadFactory("netty-boss"))
            : new NioEventLoopGroup(1, new DefaultThreadFactory("netty-boss"));
    EventLoopGroup loopGroup =
        epoll
            ? new io.netty.channel.epoll.EpollEventLoopGroup(
                loops, new DefaultThreadFactory("netty-loop"), () -> turns)
            : new NioEventLoopGroup(
                loops,
                new DefaultThreadFactory("netty-loop"),
                SelectorProvider.provider(),
                () -> turns);
    ServerBootstrap b =
        new ServerBootstrap()
            .group(boss, loopGroup)
            .channel(
                epoll
                    ? io.netty.channel.epoll.EpollServerSocketChannel.class
                    : NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(
                            new ChannelInboundHandlerAdapter() {
                              @Override
                              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                long[] turn = TURN.get();
                                if (turn[0] == 0) turn[0] = System.nanoTime();
                                ctx.fireChannelRead(msg);
                              }
                            })
                        .addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 16))
                        .addLast(new Work());
                  }
                });
    Channel server = b.bind("127.0.0.1", 0).sync().channel();
    System.out.println(
        "SERVER Netty-loop"
            + (epoll ? "-epoll " : " ")
            + io.netty.util.Version.identify().get("netty-common").artifactVersion());
    TRUTH.serve(
        ((InetSocketAddress) server.localAddress()).getPort(),
        () -> {
          server.close().syncUninterruptibly();
          loopGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
          boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        });
  }

  /** The request's handling, on the loop that read it. */
  static final class Work extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      long start = System.nanoTime();
      long ready = TURN.get()[0];
      QueryStringDecoder q = new QueryStringDecoder(request.uri());
      int sleep = Integer.parseInt(q.parameters().getOrDefault("sleep", List.of("0")).get(0));
      int cpu = Integer.parseInt(q.parameters().getOrDefault("cpu", List.of("0")).get(0));
      Truth.work(sleep, cpu);
      FullHttpResponse r =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.OK,
              Unpooled.copiedBuffer("ok", StandardCharsets.US_ASCII));
      r.headers().set(HttpHeaderNames.CONTENT_LENGTH, 2);
      ctx.writeAndFlush(r);
      long end = System.nanoTime();
      TRUTH.timedRequest(ready, start, end);
      TRUTH.request();
    }
  }
}

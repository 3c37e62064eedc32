package io.sluice.forward.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.sluice.forward.FrameDecoder;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Netty side of {@code consumer.Forward}: a listening socket, event loops, and the shared pool of publisher
 * threads that move decoded batches into the pipeline (see {@link ForwardConnection}).
 */
final class ForwardServer {
    /** Everything a connection needs to know, parsed once from the plugin's config. */
    record Settings(String id, String host, int port, long maxMessageSize, long maxDecompressedBytes,
                    RecordMapper.PayloadMode payloadMode, String payloadKey, boolean metadata, TagRoutes routes,
                    String sharedKey, String hostname, Map<String, String> users, SslContext ssl, int ioThreads,
                    int publishThreads, int readAhead) {
    }

    private final Settings settings;
    private final ConsumerContext context;
    private final Log log;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private final ExecutorService publisher;
    private Channel listener;

    ForwardServer(Settings settings, ConsumerContext context) {
        this(settings, context, null);
    }

    /** With a given publisher executor (tests publish on the calling thread to stay deterministic). */
    ForwardServer(Settings settings, ConsumerContext context, ExecutorService publisher) {
        this.settings = settings;
        this.context = context;
        this.log = context.log();
        // Threads start on demand, so an idle server holds none.
        AtomicInteger n = new AtomicInteger();
        this.publisher = publisher != null ? publisher : new ThreadPoolExecutor(settings.publishThreads(), settings.publishThreads(), 0,
                TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "forward-publish-" + settings.id() + "-" + n.getAndIncrement());
                    t.setDaemon(true);
                    return t;
                });
    }

    /** Binds and starts accepting; returns the bound address (the port is chosen when 0 was asked for). */
    InetSocketAddress start() throws InterruptedException {
        boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(settings.ioThreads(), NioIoHandler.newFactory());
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true) // acks are small and awaited: send them at once
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ChannelPipeline p = ch.pipeline();
                        if (settings.ssl() != null) {
                            p.addLast("tls", settings.ssl().newHandler(ch.alloc()));
                        }
                        p.addLast("frames", new FrameDecoder(settings.maxMessageSize()));
                        p.addLast("forward", new ForwardConnection(ForwardServer.this));
                    }
                });
        listener = b.bind(settings.host(), settings.port()).sync().channel();
        return (InetSocketAddress) listener.localAddress();
    }

    /** Whether the listening socket is open. */
    boolean isListening() {
        Channel l = listener;
        return l != null && l.isOpen();
    }

    /**
     * Stops accepting, closes every connection, then lets the publisher threads finish handing over what was
     * already decoded (those events are delivered; their acks can no longer be sent, so clients resend them).
     */
    void stop(long timeoutMillis) throws InterruptedException {
        if (listener != null) {
            listener.close().await(timeoutMillis);
        }
        channels.close().await(timeoutMillis);
        if (workers != null) {
            workers.shutdownGracefully(0, 200, TimeUnit.MILLISECONDS).await(timeoutMillis);
            boss.shutdownGracefully(0, 200, TimeUnit.MILLISECONDS).await(timeoutMillis);
        }
        publisher.shutdown();
        if (!publisher.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS)) {
            log.warn(settings.id() + ": publisher threads did not finish within " + timeoutMillis + " ms");
            publisher.shutdownNow();
        }
    }

    void connectionOpened(Channel ch) {
        channels.add(ch);
        context.stats().addConnections(1);
    }

    void connectionClosed() {
        context.stats().addConnections(-1);
    }

    String id() {
        return settings.id();
    }

    Log log() {
        return log;
    }

    ConsumerContext context() {
        return context;
    }

    TagRoutes routes() {
        return settings.routes();
    }

    ExecutorService publisher() {
        return publisher;
    }

    int readAhead() {
        return settings.readAhead();
    }

    long maxDecompressedBytes() {
        return settings.maxDecompressedBytes();
    }

    RecordMapper.PayloadMode payloadMode() {
        return settings.payloadMode();
    }

    String payloadKey() {
        return settings.payloadKey();
    }

    boolean metadata() {
        return settings.metadata();
    }

    String sharedKey() {
        return settings.sharedKey();
    }

    String hostname() {
        return settings.hostname();
    }

    Map<String, String> users() {
        return settings.users();
    }
}

package io.sluice.otlp.consumer;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.net.ChildSetup;
import io.sluice.core.net.ConnectionSlots;
import io.sluice.core.net.ServerListener;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.pipeline.TokenSet;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The listeners of {@code consumer.OTLP} on Netty: OTLP/gRPC on HTTP/2 (cleartext prior-knowledge h2c, or TLS with
 * ALPN h2) and OTLP/HTTP on HTTP/1.1, sharing one event loop group, one connection cap, the bearer tokens and
 * {@link Ingest} (decode, publish, answer after delivery).
 *
 * <p>Bounded like consumer.HEC: a request's body is reserved from the memory budget before it is copied (a gRPC
 * message from its length prefix, an HTTP body from its Content-Length or as chunks arrive); at most
 * {@code MaxPendingRecords} records wait for delivery; {@code MaxConnections} connections (more are closed, counted
 * busy); a request must arrive in full within {@code IdleTimeoutMs} and an idle connection is closed after as long.
 * HTTP/2 lets a peer send up to its flow-control window (64 KiB a stream) before the server reads it: that much per
 * stream, at most {@value #MAX_STREAMS} streams a connection, is held by Netty before any reservation.
 */
final class OtlpServer {
    /** Settings of one receiver. */
    static final class Settings {
        String grpcHost = "127.0.0.1";
        /** -1: no gRPC listener. */
        int grpcPort = 4317;
        String httpHost = "127.0.0.1";
        /** -1: no OTLP/HTTP listener. */
        int httpPort = 4318;
        List<String> tokens = List.of();
        /** The header carrying the token, lower case; {@code authorization} means 'Bearer <token>'. */
        String authHeader = "authorization";
        int maxRequestSize = 4 << 20;
        int maxPendingRecords = 65536;
        int maxConnections = 1024;
        long idleTimeoutMs = 60_000;
        int ioThreads = 2;
        SslContext grpcTls;
        SslContext httpTls;
        String id = "otlp";
    }

    /**
     * HTTP/2 flow-control window, per stream and per connection: 1 MiB, grpc-java's server default. HTTP/2's own
     * 64 KiB would make a client wait for a WINDOW_UPDATE every 64 KiB of a request (seven round trips for a 455 KB
     * export of 1,000 records). It holds no memory: every DATA frame is copied at once into the request's reserved
     * buffer, or refused with its stream.
     */
    static final int FLOW_WINDOW = 1024 * 1024;
    /** Concurrent gRPC streams a connection may open (SETTINGS_MAX_CONCURRENT_STREAMS). */
    static final int MAX_STREAMS = 100;
    /** How long {@link #stop()} waits for the answers of requests in delivery. */
    static final long ANSWER_TIMEOUT_MS = 5000;
    /** Seconds a busy client is asked to wait (Retry-After, RetryInfo). */
    static final int RETRY_AFTER_SECONDS = 1;

    private final Settings settings;
    private final ConsumerContext ctx;
    private final Log log;
    private final Ingest ingest;
    private final TokenSet tokens;
    /** MaxConnections, over both listeners. */
    private final ConnectionSlots slots;
    private volatile boolean stopping;
    private boolean stopped;
    private EventLoopGroup workers;
    /** The connection setups of the listeners bound, whose connections the stop closes. */
    private final List<ChildSetup> children = new ArrayList<>();
    private volatile ServerListener grpcListener;
    private volatile ServerListener httpListener;
    private volatile Throwable listenerLost;

    OtlpServer(Settings settings, ConsumerContext ctx) {
        this.settings = settings;
        this.ctx = ctx;
        this.log = ctx.log();
        this.ingest = new Ingest(ctx, settings.id, settings.maxPendingRecords);
        this.tokens = new TokenSet(settings.tokens);
        this.slots = new ConnectionSlots(settings.maxConnections);
    }

    /**
     * Binds the listeners that are configured.
     *
     * @return the bound gRPC and HTTP addresses (null for one that is off)
     * @throws IOException naming the address when one cannot be bound
     */
    synchronized InetSocketAddress[] start() throws IOException {
        workers = new MultiThreadIoEventLoopGroup(settings.ioThreads, NioIoHandler.newFactory());
        InetSocketAddress[] bound = new InetSocketAddress[2];
        try {
            if (settings.grpcPort >= 0) {
                grpcListener = bind(settings.grpcHost, settings.grpcPort, true);
                bound[0] = grpcListener.localAddress();
            }
            if (settings.httpPort >= 0) {
                httpListener = bind(settings.httpHost, settings.httpPort, false);
                bound[1] = httpListener.localAddress();
            }
        } catch (IOException e) {
            stopping = true;
            closeListeners();
            closeConnections();
            shutdownGroups();
            throw e;
        }
        return bound;
    }

    private ServerListener bind(String host, int port, boolean grpc) throws IOException {
        ChildSetup setup = new ChildSetup(workers, c -> accepted(c, grpc));
        children.add(setup);
        ServerListener ch = ServerListener.bind(host, port, 1024, setup, grpc ? " (gRPC)" : " (HTTP)");
        ch.onLost(() -> stopping, lost -> {
            listenerLost = lost;
            log.error(settings.id + ": the listener on " + ch.localAddress() + " is gone: " + lost);
        });
        return ch;
    }

    /** A new connection: counted and served, or closed beyond {@code MaxConnections}. */
    private void accepted(SocketChannel ch, boolean grpc) {
        if (!slots.take(ch)) {
            ctx.reject(Rejection.BUSY, ch.remoteAddress(), "more than MaxConnections (" + settings.maxConnections
                    + ") connections; closed");
            ConnectionSlots.refuse(ch, grpc ? null : OtlpHttpConnection.TOO_MANY_CONNECTIONS);
            return;
        }
        ctx.stats().addConnections(1);
        ch.closeFuture().addListener(f -> ctx.stats().addConnections(-1));
        ChannelPipeline p = ch.pipeline();
        SslContext tls = grpc ? settings.grpcTls : settings.httpTls;
        if (tls != null) {
            p.addLast("tls", tls.newHandler(ch.alloc()));
        }
        p.addLast("idle", new IdleStateHandler(0, 0, settings.idleTimeoutMs, TimeUnit.MILLISECONDS));
        if (grpc) {
            GrpcConn conn = new GrpcConn(this);
            p.addLast(Http2FrameCodecBuilder.forServer().initialSettings(Http2Settings.defaultSettings()
                    .maxConcurrentStreams(MAX_STREAMS).maxHeaderListSize(16 * 1024).initialWindowSize(FLOW_WINDOW))
                    .build());
            p.addLast(conn);
            p.addLast(new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
                @Override
                protected void initChannel(Http2StreamChannel stream) {
                    stream.pipeline().addLast(new GrpcStream(OtlpServer.this, conn));
                }
            }));
        } else {
            p.addLast(new HttpServerCodec(4096, 16 * 1024, 64 * 1024));
            p.addLast(new OtlpHttpConnection(this));
        }
    }

    /** The header that carries the token (lower case, as HTTP/2 sends names). */
    String authHeader() {
        return settings.authHeader;
    }

    /**
     * Whether the {@link #authHeader()} value carries one of the {@code BearerTokens} (always true without tokens):
     * {@code Bearer <token>} in {@code Authorization}, the whole value in any other header. Every token is compared
     * in constant time, so the answer's timing tells nothing about them.
     */
    boolean authorized(CharSequence header) {
        if (tokens.isEmpty()) {
            return true;
        }
        if (header == null) {
            return false;
        }
        String h = header.toString();
        boolean bearer = "authorization".equals(settings.authHeader);
        if (bearer && (h.length() < 7 || !h.regionMatches(true, 0, "Bearer ", 0, 7))) {
            return false;
        }
        return tokens.contains((bearer ? h.substring(7) : h).trim());
    }

    /** Whether the configured listeners are open and the server is not stopping: {@code /ready}. */
    boolean listening() {
        if (stopping) {
            return false;
        }
        ServerListener g = grpcListener;
        ServerListener h = httpListener;
        return (settings.grpcPort < 0 || g != null && g.isActive()) && (settings.httpPort < 0 || h != null && h.isActive());
    }

    /** Why a listener closed while the server was not stopping, or null: the consumer then fails the process. */
    Throwable listenerLost() {
        return listenerLost;
    }

    boolean stopping() {
        return stopping;
    }

    /** The connections' event loops, null before {@link #start()}: a test times a stop against one of them. */
    EventLoopGroup workers() {
        return workers;
    }

    Settings settings() {
        return settings;
    }

    ConsumerContext context() {
        return ctx;
    }

    Ingest ingest() {
        return ingest;
    }

    MemoryBudget budget() {
        return ctx.memory();
    }

    /**
     * Stops accepting, answers the requests whose records the pipeline is still delivering (up to
     * {@link #ANSWER_TIMEOUT_MS}; new requests meanwhile are answered busy), then closes the connections (every one,
     * see {@link #closeConnections()}) and lets the publisher finish. Closing first would leave clients without an
     * answer for records delivered anyway, and they would send them again. Idempotent.
     */
    synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        stopping = true;
        closeListeners();
        ingest.publisher().awaitAnswered(ANSWER_TIMEOUT_MS);
        closeConnections();
        shutdownGroups();
        ingest.stop(5000);
    }

    private void closeListeners() {
        for (ServerListener c : new ServerListener[] {grpcListener, httpListener}) {
            if (c != null) {
                c.close(); // under a reload's hold, parked for the consumer that replaces this one
            }
        }
    }

    /**
     * Closes every connection before the event loops stop: a loop whose shutdown begins while it runs a task ends
     * without closing its channels, and a connection left open would have its client wait for ever.
     */
    private void closeConnections() {
        for (ChildSetup c : children) {
            c.closeAll(ANSWER_TIMEOUT_MS);
        }
    }

    private void shutdownGroups() {
        if (workers != null) {
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}

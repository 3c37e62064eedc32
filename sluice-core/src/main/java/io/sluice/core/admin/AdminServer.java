package io.sluice.core.admin;

import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.core.net.ChildSetup;
import io.sluice.core.net.ConnectionSlots;
import io.sluice.core.net.ServerListener;
import io.sluice.core.net.http.HttpResponses;
import io.sluice.core.pipeline.Exposure;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.TokenSet;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The admin HTTP endpoint: {@code /metrics} (Prometheus), {@code /health} (alive), {@code /ready} (every consumer
 * listening, every producer able to deliver), {@code /api/plugins} (graph and counters as JSON) and
 * {@code /api/tap} (sampled messages of one plugin as JSON lines). It binds 127.0.0.1 unless told otherwise.
 *
 * <p>It runs on one Netty event loop and never blocks it, so that no client can keep {@code /health} and
 * {@code /metrics} from answering (issue 19): a request must arrive in full within {@link Settings#requestMillis}
 * of the connection being ready for it, else the connection is closed; a request head is at most
 * {@value #MAX_LINE} bytes of request line and {@value #MAX_HEADERS} of headers, and no request may have a body
 * (every endpoint is a GET); at most {@link Settings#maxConnections} connections are open (more get 503 and are
 * closed); a tap is polled from the event loop by a scheduled task, never faster than the client reads, and at
 * most {@link Settings#maxTaps} run at once (more get 429).
 *
 * <p>With a {@link Settings#token}, every path but {@code /health} and {@code /ready} (which orchestrators probe
 * without credentials, and which tell nothing but up or not) needs {@code Authorization: Bearer <token>}, else
 * 401 with {@code WWW-Authenticate: Bearer}. {@code /metrics} needs it too: metric labels name every plugin, and
 * Prometheus scrapes with a bearer token ({@code authorization: credentials_file}). {@code /api/tap} streams
 * message payloads, so it is off (403) unless {@link Settings#tap} or a token turns it on.
 */
public final class AdminServer implements AutoCloseable {
    /** Default port of the admin endpoint. */
    public static final int DEFAULT_PORT = 9696;
    /** Default of {@link Settings#maxTaps}. */
    static final int MAX_TAPS = 4;
    /** Default of {@link Settings#maxConnections}: well above what operators and scrapers use, far below a file limit. */
    static final int MAX_CONNECTIONS = 64;
    /** Default seconds of {@link Settings#requestMillis} (slowloris). */
    static final int REQUEST_SECONDS = 5;
    /** Longest request line (method, path, query, version). */
    static final int MAX_LINE = 4096;
    /** Longest header block. */
    static final int MAX_HEADERS = 8192;
    /** Time a client has to take an answer (its write to finish) before the connection is closed. */
    static final long WRITE_MILLIS = 30_000;
    /** A tap with no message for this long ends, so a forgotten {@code sluice tap} does not hold a slot. */
    static final long TAP_IDLE_MILLIS = 30_000;
    /** How often an open tap is polled: often enough to look live, rarely enough to cost nothing. */
    static final long TAP_POLL_MILLIS = 50;
    private static final byte[] TOO_MANY_CONNECTIONS = HttpResponses.raw(HttpResponseStatus.SERVICE_UNAVAILABLE,
            "text/plain", null, "too many admin connections".getBytes(StandardCharsets.US_ASCII));

    /** How the endpoint listens and whom it serves. Public fields with defaults, as the plugins' settings. */
    public static final class Settings {
        /** Address to bind; 127.0.0.1 unless an operator names another. */
        public String host = "127.0.0.1";
        /** Port to bind; 0 picks a free one. */
        public int port = DEFAULT_PORT;
        /** Bearer token every path but /health and /ready requires; null or empty for none. */
        public String token;
        /** Serve /api/tap without a token ({@code --admin-tap}); a token turns it on anyway. */
        public boolean tap;
        /** Time a connection has to send a whole request, from its accept or the end of the previous answer. */
        public long requestMillis = TimeUnit.SECONDS.toMillis(REQUEST_SECONDS);
        /** Connections open at once; more are answered 503 and closed. */
        public int maxConnections = MAX_CONNECTIONS;
        /** Taps streaming at once; more are answered 429. */
        public int maxTaps = MAX_TAPS;
        /** What {@code POST /api/reload} runs (re-read the config, apply it); null when there is nothing to reload. */
        public java.util.function.Supplier<io.sluice.core.pipeline.ReloadResult> reload;

        /** Whether a token is set. */
        boolean hasToken() {
            return token != null && !token.isEmpty();
        }
    }

    private final Pipeline pipeline;
    private final Settings settings;
    private final TokenSet tokens;
    private final Log log;
    private final EventLoopGroup group;
    private final ConnectionSlots connections;
    private final AtomicInteger taps = new AtomicInteger();
    private ServerListener server;
    private ChildSetup children;

    private AdminServer(Pipeline pipeline, Settings settings, Log log, EventLoopGroup group) {
        this.pipeline = pipeline;
        this.settings = settings;
        this.tokens = new TokenSet(settings.hasToken() ? List.of(settings.token) : List.of());
        this.log = log;
        this.group = group;
        this.connections = new ConnectionSlots(settings.maxConnections);
    }

    /**
     * Starts the endpoint.
     *
     * @param tls the server's TLS (the TLS/* group as Netty's context, from {@code NettyTls}), or null for plain HTTP
     * @throws IOException naming the address when it cannot be bound
     */
    public static AdminServer start(Pipeline pipeline, Settings settings, SslContext tls, Log log) throws IOException {
        // One thread serves (ServerListener's loop accepts): admin traffic is a few requests a second, and a single
        // loop makes every counter and connection state single-threaded. Daemon, as the JDK server's threads were.
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("sluice-admin", true),
                NioIoHandler.newFactory());
        AdminServer admin = new AdminServer(pipeline, settings, log, group);
        try {
            admin.bind(tls);
        } catch (IOException | RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
        InetSocketAddress bound = admin.server.localAddress();
        log.info("admin endpoint on " + (tls == null ? "http" : "https") + "://" + settings.host + ":" + bound.getPort()
                + " (/metrics /health /ready /api/plugins /api/tap" + (admin.tapEnabled() ? "" : " off")
                + (settings.reload != null ? " /api/reload" : "")
                + (settings.hasToken() ? "; bearer token required but for /health /ready" : "") + ")");
        Exposure.warnIfOpen(log, "admin endpoint", bound, settings.hasToken(), "--admin-token");
        return admin;
    }

    private void bind(SslContext tls) throws IOException {
        children = new ChildSetup(group, ch -> accepted(ch, tls))
                // A tap stops polling while 64 KiB wait for a slow reader, so one cannot fill the heap.
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32 * 1024, 64 * 1024));
        server = ServerListener.bind(settings.host, settings.port, 128, children, "");
    }

    /** A new connection: served, or answered 503 and closed beyond {@link Settings#maxConnections}. */
    private void accepted(SocketChannel ch, SslContext tls) {
        if (!connections.take(ch)) {
            log.limited(Log.WARNING, "admin: too many connections", "admin endpoint: more than "
                    + settings.maxConnections + " connections; refused one from " + ch.remoteAddress());
            // with TLS an answer would need a handshake first, which is what the cap saves
            ConnectionSlots.refuse(ch, tls == null ? TOO_MANY_CONNECTIONS : null);
            return;
        }
        ChannelPipeline p = ch.pipeline();
        if (tls != null) {
            p.addLast("tls", tls.newHandler(ch.alloc()));
        }
        p.addLast("http", new HttpServerCodec(MAX_LINE, MAX_HEADERS, 8192));
        p.addLast("admin", new AdminConn(this));
    }

    /** The bound port. */
    public int port() {
        return server.localAddress().getPort();
    }

    Pipeline pipeline() {
        return pipeline;
    }

    Settings settings() {
        return settings;
    }

    Log log() {
        return log;
    }

    /** Whether /api/tap serves: asked for, or protected by a token. */
    boolean tapEnabled() {
        return settings.tap || settings.hasToken();
    }

    /**
     * Whether an {@code Authorization} header value carries the token (always true without one): the
     * {@code Bearer} scheme, any case, then the token, compared in constant time.
     */
    boolean authorized(String header) {
        if (tokens.isEmpty()) {
            return true;
        }
        if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        return tokens.contains(header.substring(7).trim());
    }

    /** Takes a tap slot; false when {@link Settings#maxTaps} are streaming. */
    boolean takeTap() {
        if (taps.incrementAndGet() > settings.maxTaps) {
            taps.decrementAndGet();
            return false;
        }
        return true;
    }

    void releaseTap() {
        taps.decrementAndGet();
    }

    /** Open connections, for tests. */
    int connections() {
        return connections.open();
    }

    /** Stops listening and closes every connection (and with them the taps). */
    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
        if (children != null) {
            children.closeAll(1000); // the loop's shutdown may leave channels open (see closeAll)
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}

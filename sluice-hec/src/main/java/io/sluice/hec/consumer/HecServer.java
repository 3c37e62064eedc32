package io.sluice.hec.consumer;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.FastThreadLocal;
import io.sluice.core.message.AnswerOnce;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Clock;
import io.sluice.core.message.GzipBody;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.RequestMemory;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.pipeline.TokenSet;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTTP side of {@code consumer.HEC} on Netty. Requests are parsed on the event loop (per-thread parsers and
 * buffers, so nothing is allocated per event) and handed to one publisher thread, so a full pipeline never
 * blocks an event loop. A request is answered only once its events were delivered (or, with indexer acks, the
 * ack turns true then); one request per connection is in flight at a time, so answers keep their order even
 * when a client pipelines.
 *
 * <p>Bounded, so that no input can run the process out of memory or leave it half-alive:
 * <ul>
 * <li>Memory: a request reserves from the process's {@link MemoryBudget} before anything is read into memory
 * (twice its {@code Content-Length}: the body and the events copied from it; a chunked body as it arrives; a
 * gzip body's output as it is inflated) and, while parsing, each batch's per-event overhead. A request that
 * could never fit gets 413; one that does not fit now gets 503 "Server is busy" (code 9) with
 * {@code Retry-After}, and its body is not read into memory. The events' share travels with the published
 * batches and returns to the budget when they are delivered.</li>
 * <li>Admission: at most {@code MaxPendingEvents} events accepted and not delivered, {@code MaxEventsPerRequest}
 * events per request (413), {@code MaxBodySize} bytes before and after gzip (413), {@code MaxConnections}
 * connections (more get 503 and are closed).</li>
 * <li>Time: a request must arrive in full within {@code IdleTimeoutMs} of its first byte (a half-sent request is
 * closed and counted as a timeout), and a connection with no request is closed after as long.</li>
 * <li>Failures: a batch the pipeline fails answers 503, never success; an error while handling a request
 * answers 500 and is logged; an error in the publisher fails the request, not the thread.</li>
 * </ul>
 * Every refusal is counted ({@code sluice_rejected_total}) and logged (rate-limited) through
 * {@link ConsumerContext#reject}.
 */
public final class HecServer {
    /** Settings of one receiver. */
    public static final class Settings {
        public String host = "127.0.0.1";
        /** TLS for every connection (the TLS/* group), or null for plain HTTP. */
        public io.sluice.core.tls.NettyTls tls;
        public int port = 8088;
        public Set<String> tokens = Set.of();
        public int maxBodySize = 32 * 1024 * 1024;
        public int maxPendingEvents = 65536;
        public int maxEventsPerRequest = 100_000;
        public int maxConnections = 1024;
        public long idleTimeoutMs = 60_000;
        public int maxDepth = 512;
        /** The receiver's {@code Indexes}: the indexes events may name, or null for any. */
        public byte[][] indexes;
        /** Token to default index (Splunk's per-token {@code index}); tokens must be in {@link #tokens}. */
        public Map<String, String> tokenDefaultIndex = Map.of();
        /**
         * Token to allowed indexes (Splunk's per-token {@code indexes}, each within {@link #indexes}); a listed
         * token without a default index gets its first.
         */
        public Map<String, List<String>> tokenIndexes = Map.of();
        public boolean eventRequired = true;
        public boolean useAck;
        public int ioThreads = 2;
        public String id = "hec";
    }

    /** How long {@link #stop()} waits for the answers of requests in delivery. */
    static final long ANSWER_TIMEOUT_MS = 5000;
    /**
     * A refused request whose body is at most this long is read (and dropped, never stored) so that the connection
     * stays usable; a longer one is answered at once and the connection closed without reading it.
     */
    static final int SKIP_LIMIT = 1024 * 1024;
    /** How long a connection answered early may still send (dropped) before it is closed. */
    static final long LINGER_MS = 2000;
    /** Largest /ack request body. */
    static final int ACK_MAX_BODY = 64 * 1024;
    /** Indexer-ack channels kept at most; requests on a new channel beyond this get 503. */
    static final int MAX_ACK_CHANNELS = 10_000;
    /** Delivered acks of one channel not yet queried, at most; beyond this its requests get 503 until it queries. */
    static final int MAX_UNQUERIED_ACKS = 100_000;
    /** Seconds a client is asked to wait after a 503. */
    static final String RETRY_AFTER = "1";
    /** Body buffers kept per event-loop thread for the next requests, and the largest kept. */
    static final int SPARE_BUFFERS = 4;
    static final int SPARE_MAX = 1024 * 1024;
    /** A chunked body's first buffer. */
    static final int CHUNKED_INITIAL = 16 * 1024;

    private static final byte[] TOO_MANY_CONNECTIONS = rawResponse(HecStatus.SERVER_BUSY);

    private final Settings settings;
    /** Settings.tokens, compared in constant time. */
    private final TokenSet tokens;
    /** Per token (in the order of {@link #tokens}), its index rules or null; null when no token has any. */
    private final TokenIndexes[] tokenIndexes;
    /** The one authorization scheme HEC takes. */
    private static final String SCHEME = "Splunk";
    private final ConsumerContext ctx;
    private final Log log;
    private final MemoryBudget budget;
    private final AtomicInteger pending = new AtomicInteger();
    /** Requests whose events were published and whose answer was not written yet. */
    private final AtomicInteger unanswered = new AtomicInteger();
    private final AtomicInteger connections = new AtomicInteger();
    private volatile boolean stopping;
    private boolean stopped;
    private final AtomicLong received = new AtomicLong();
    private final ExecutorService publisher;
    private final Map<String, AckChannel> acks = new ConcurrentHashMap<>();
    private final FastThreadLocal<State> state;
    private final long timeoutNanos;
    private final long tickMillis;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private volatile Channel server;
    private volatile Throwable listenerLost;

    /** Per event-loop thread: parser, inflater, collector, spare body buffers. A request is parsed completely before the next. */
    private static final class State {
        final EventParser parser;
        final GzipBody gzip = new GzipBody();
        final BatchCollector collector;
        final byte[][] spares = new byte[SPARE_BUFFERS][];

        State(Settings s, ConsumerContext ctx) {
            parser = new EventParser(s.maxDepth, s.eventRequired);
            collector = new BatchCollector(ctx::newBatch);
        }

        /** A buffer of at least n bytes: a spare one if one is large enough, else a new one of exactly n. */
        byte[] take(int n) {
            for (int i = 0; i < spares.length; i++) {
                byte[] b = spares[i];
                if (b != null && b.length >= n) {
                    spares[i] = null;
                    return b;
                }
            }
            return new byte[n];
        }

        /** Keeps a buffer for later requests if it is small enough, in place of a smaller one if all slots are taken. */
        void give(byte[] b) {
            if (b == null || b.length > SPARE_MAX) {
                return;
            }
            int smallest = -1;
            for (int i = 0; i < spares.length; i++) {
                if (spares[i] == null) {
                    spares[i] = b;
                    return;
                }
                if (smallest < 0 || spares[i].length < spares[smallest].length) {
                    smallest = i;
                }
            }
            if (spares[smallest].length < b.length) {
                spares[smallest] = b;
            }
        }
    }

    public HecServer(Settings settings, ConsumerContext ctx) {
        this.settings = settings;
        List<String> tokenList = List.copyOf(settings.tokens);
        this.tokens = new TokenSet(tokenList);
        this.tokenIndexes = TokenIndexes.of(tokenList, settings.tokenDefaultIndex, settings.tokenIndexes,
                settings.indexes);
        this.ctx = ctx;
        this.log = ctx.log();
        this.budget = ctx.memory();
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(settings.idleTimeoutMs);
        this.tickMillis = Math.max(10, Math.min(1000, settings.idleTimeoutMs / 4));
        this.publisher = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "hec-publish-" + settings.id);
            t.setDaemon(true);
            return t;
        });
        this.state = new FastThreadLocal<>() {
            @Override
            protected State initialValue() {
                return new State(settings, ctx);
            }
        };
    }

    /**
     * Binds and starts serving; returns the bound address (port 0 picks a free one).
     *
     * @throws IOException naming the address when it cannot be bound (in use, not local, not resolvable)
     */
    public synchronized InetSocketAddress start() throws IOException {
        boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(settings.ioThreads, NioIoHandler.newFactory());
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accepted(ch);
                    }
                });
        ChannelFuture f = b.bind(settings.host, settings.port).awaitUninterruptibly();
        if (!f.isSuccess()) {
            shutdownGroups();
            Throwable c = f.cause();
            String why = c == null ? "bind failed" : c.getMessage() != null ? c.getMessage() : c.toString();
            throw new IOException("cannot listen on " + settings.host + ":" + settings.port + ": " + why, c);
        }
        Channel ch = f.channel();
        server = ch;
        ch.closeFuture().addListener(cf -> {
            if (!stopping) {
                listenerLost = cf.cause() != null ? cf.cause() : new IOException("the listening socket was closed");
                log.error(settings.id + ": the listener on " + ch.localAddress() + " is gone: " + listenerLost);
            }
        });
        return (InetSocketAddress) ch.localAddress();
    }

    /** Whether the listening socket is open and the server not stopping: {@code /ready}. */
    public boolean listening() {
        Channel s = server;
        return s != null && s.isActive() && !stopping;
    }

    /** Why the listener closed while the server was not stopping, or null: the consumer then fails the process. */
    public Throwable listenerLost() {
        return listenerLost;
    }

    /**
     * Stops accepting, answers the requests whose events the pipeline is still delivering (for up to
     * {@link #ANSWER_TIMEOUT_MS}; new requests meanwhile get 503 "Server is busy"), then closes the connections
     * and lets the publisher finish what was accepted. Closing first would leave clients without an answer for
     * events that are delivered anyway, and they would send them again. Idempotent.
     */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        stopping = true;
        Channel s = server;
        if (s != null) {
            s.close().syncUninterruptibly();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_TIMEOUT_MS);
        while (unanswered.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        shutdownGroups();
        publisher.shutdown();
        try {
            publisher.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void shutdownGroups() {
        if (boss != null) {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** Events accepted and not yet taken by the pipeline. */
    public int pending() {
        return pending.get();
    }

    /** Events accepted so far. */
    public long received() {
        return received.get();
    }

    /** Open connections (those refused beyond {@code MaxConnections} not counted). */
    public int connections() {
        return connections.get();
    }

    /** A new connection: counted and served, or refused with 503 beyond {@code MaxConnections}. */
    private void accepted(SocketChannel ch) {
        if (connections.incrementAndGet() > settings.maxConnections) {
            connections.decrementAndGet();
            ctx.reject(Rejection.BUSY, ch.remoteAddress(), "more than MaxConnections (" + settings.maxConnections
                    + ") connections; answered 503 and closed");
            ch.writeAndFlush(Unpooled.wrappedBuffer(TOO_MANY_CONNECTIONS)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.stats().addConnections(1);
        ch.closeFuture().addListener(f -> {
            connections.decrementAndGet();
            ctx.stats().addConnections(-1);
        });
        Conn conn = new Conn();
        if (settings.tls != null) {
            // the idle watch sits after TLS: a handshake that never ends sends no request and is closed as idle
            ch.pipeline().addLast("tls", settings.tls.serverHandler(ch.alloc()));
        }
        ch.pipeline().addLast(conn.watch, new HttpServerCodec(4096, 16384, 1 << 16), conn);
    }

    private static FullHttpResponse response(HecStatus s, byte[] body) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(s.http()),
                Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        if (s.http() == 503) {
            r.headers().set(HttpHeaderNames.RETRY_AFTER, RETRY_AFTER);
        }
        return r;
    }

    /** A whole response with Connection: close, as bytes, for connections that get no HTTP codec. */
    private static byte[] rawResponse(HecStatus s) {
        byte[] body = s.body();
        byte[] head = ("HTTP/1.1 " + s.http() + " " + HttpResponseStatus.valueOf(s.http()).reasonPhrase() + "\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\nRetry-After: " + RETRY_AFTER
                + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    private static final int HEALTH = 0;
    private static final int EVENT = 1;
    private static final int RAW = 2;
    private static final int ACK = 3;
    private static final int OTHER = 4;

    /** Receiving into a reserved buffer. */
    private static final int RECEIVE = 0;
    /** Refused (or not ingested): the body is read and dropped, the answer is sent once it ended. */
    private static final int SKIP = 1;
    /** Answered early with Connection: close; what still comes is dropped until the connection closes. */
    private static final int LINGER = 2;

    /** One request being received. */
    private final class Request {
        final HttpRequest head;
        final QueryStringDecoder uri;
        final boolean keepAlive;
        final RequestMemory memory = new RequestMemory(budget);
        int kind = OTHER;
        int mode = RECEIVE;
        HecStatus answer;
        byte[] answerBody;
        AckChannel ackChannel;
        /** The index rules of the request's token, or null (no token has any, or this one has none). */
        TokenIndexes indexRules;
        boolean gzip;
        int max;
        /** Bytes reserved per body byte: 2 for a plain body (the body and the events copied from it), 1 for gzip. */
        int perByte = 1;
        byte[] body;
        int length;
        long bodyCharged;
        long skipped;

        Request(HttpRequest head) {
            this.head = head;
            this.uri = new QueryStringDecoder(head.uri());
            this.keepAlive = HttpUtil.isKeepAlive(head);
        }

        /** Returns the body buffer (to the thread's spares) and everything reserved. */
        void release(State st) {
            if (body != null) {
                st.give(body);
                body = null;
            }
            bodyCharged = 0;
            memory.releaseAll();
        }
    }

    /** An answer computed while handling a request: written after the request's resources were released. */
    private record Answer(HecStatus status, byte[] body, Rejection reason, String detail) {
        static Answer refuse(HecStatus s, String detail) {
            return new Answer(s, s.body(), s.rejection(), detail);
        }
    }

    /** One per connection: receives requests, runs them one at a time, queues pipelined ones. Event loop only. */
    private final class Conn extends ChannelInboundHandlerAdapter {
        /** Ahead of the HTTP codec: notices bytes, so that a request whose head never completes is timed too. */
        final ChannelInboundHandlerAdapter watch = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext c, Object msg) {
                long now = System.nanoTime();
                lastActivity = now;
                if (!inRequest && !busy) {
                    inRequest = true;
                    requestStart = now;
                }
                c.fireChannelRead(msg);
            }
        };
        private final ArrayDeque<Object> queued = new ArrayDeque<>();
        private ChannelHandlerContext context;
        private SocketAddress peer;
        private Request cur;
        /** A request is being handled or delivered: we owe the client an answer, later input waits. */
        private boolean busy;
        private boolean draining;
        /** The connection is being closed: input is dropped. */
        private boolean closing;
        private boolean lingering;
        /** Bytes of a request arrived and its end did not. */
        private boolean inRequest;
        private long lastActivity;
        private long requestStart;
        private long lingerStart;
        private ScheduledFuture<?> timer;

        @Override
        public void handlerAdded(ChannelHandlerContext c) {
            context = c;
        }

        @Override
        public void channelActive(ChannelHandlerContext c) {
            peer = c.channel().remoteAddress();
            lastActivity = System.nanoTime();
            timer = c.executor().scheduleWithFixedDelay(this::tick, tickMillis, tickMillis, TimeUnit.MILLISECONDS);
            c.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext c, Object msg) {
            if (closing) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (busy || !queued.isEmpty()) {
                queued.add(msg);
                c.channel().config().setAutoRead(false);
                return;
            }
            process(msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext c) {
            closing = true;
            if (timer != null) {
                timer.cancel(false);
            }
            abortRequest();
            Object m;
            while ((m = queued.poll()) != null) {
                ReferenceCountUtil.release(m);
            }
            c.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
            if (cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() instanceof javax.net.ssl.SSLException) {
                // a plain-HTTP client on the TLS port, an untrusted client certificate, an old protocol version
                ctx.reject(Rejection.AUTH, peer, "TLS failed: " + cause.getCause().getMessage() + "; connection closed");
            } else if (cause instanceof IOException) {
                log.debug(settings.id + ": connection from " + peer + ": " + cause);
            } else {
                log.limited(Log.ERROR, settings.id + ": connection error",
                        settings.id + ": connection from " + peer + " failed: " + cause);
            }
            abortRequest();
            closing = true;
            c.close();
        }

        /** Handles one HTTP object; nothing thrown escapes to Netty (which would only log it at DEBUG). */
        private void process(Object msg) {
            try {
                if (msg instanceof HttpRequest r) {
                    head(r);
                }
                if (msg instanceof HttpContent c && !closing) {
                    content(c);
                }
            } catch (Throwable t) {
                failed(t);
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        /** Something broke while handling a request: its memory goes back, the client gets 500, the connection closes. */
        void failed(Throwable t) {
            log.limited(Log.ERROR, settings.id + ": request failed",
                    settings.id + ": handling a request from " + peer + " failed: " + t);
            abortRequest();
            if (closing) {
                return;
            }
            closing = true;
            try {
                FullHttpResponse r = response(HecStatus.INTERNAL_ERROR, HecStatus.INTERNAL_ERROR.body());
                HttpUtil.setKeepAlive(r, false);
                context.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
            } catch (Throwable e) {
                context.close();
            }
        }

        /** Releases what the request being received holds. */
        private void abortRequest() {
            Request q = cur;
            cur = null;
            inRequest = false;
            if (q != null) {
                q.release(state.get());
            }
        }

        /** Closes what waits on us too long: a half-sent request, an idle connection, a lingering one. */
        private void tick() {
            if (closing || !context.channel().isActive()) {
                return;
            }
            try {
                long now = System.nanoTime();
                if (lingering) {
                    if (now - lingerStart > TimeUnit.MILLISECONDS.toNanos(Math.min(LINGER_MS, settings.idleTimeoutMs))) {
                        closeNow();
                    }
                } else if (busy) {
                    return; // the client waits for us
                } else if (inRequest) {
                    if (now - requestStart > timeoutNanos) {
                        ctx.reject(Rejection.TIMEOUT, peer, "request not complete within IdleTimeoutMs ("
                                + settings.idleTimeoutMs + " ms); connection closed");
                        closeNow();
                    }
                } else if (now - lastActivity > timeoutNanos) {
                    log.debug(settings.id + ": closing idle connection from " + peer);
                    closeNow();
                }
            } catch (Throwable t) {
                failed(t);
            }
        }

        private void closeNow() {
            closing = true;
            abortRequest();
            context.close();
        }

        private void head(HttpRequest r) {
            if (lingering) {
                closeNow(); // a request after one answered with Connection: close
                return;
            }
            Request previous = cur;
            if (previous != null) { // never more than one request being received
                cur = null;
                previous.release(state.get());
            }
            if (!inRequest) {
                inRequest = true;
                requestStart = System.nanoTime();
            }
            if (!r.decoderResult().isSuccess()) {
                ctx.reject(Rejection.MALFORMED, peer, "bad HTTP request: " + r.decoderResult().cause());
                closeWith(HecStatus.INVALID_DATA_FORMAT);
                return;
            }
            Request q = new Request(r);
            cur = q;
            String path;
            try {
                path = q.uri.path();
                q.uri.parameters();
            } catch (IllegalArgumentException e) {
                refuse(q, HecStatus.INVALID_DATA_FORMAT, "bad URI: " + e.getMessage());
                return;
            }
            if (path.endsWith("/")) {
                path = path.substring(0, path.length() - 1);
            }
            switch (path) {
                case "/services/collector/health", "/services/collector/health/1.0" -> {
                    q.kind = HEALTH;
                    HecStatus s = pending.get() >= settings.maxPendingEvents ? HecStatus.UNHEALTHY_QUEUES_FULL : HecStatus.HEALTHY;
                    answerAfterBody(q, s, s.body(), null);
                }
                case "/services/collector", "/services/collector/event", "/services/collector/event/1.0" -> {
                    q.kind = EVENT;
                    admitIngest(q);
                }
                case "/services/collector/raw", "/services/collector/raw/1.0" -> {
                    q.kind = RAW;
                    admitIngest(q);
                }
                case "/services/collector/ack", "/services/collector/ack/1.0" -> {
                    q.kind = ACK;
                    admitAck(q);
                }
                default -> refuse(q, HecStatus.NOT_FOUND, "unknown path " + path);
            }
        }

        /**
         * Splunk's token rules: no header → 2, not "Splunk <t>" → 3, unknown token → 4. Null when fine, with the
         * token's index rules in the request (looked up here, once per request, and only when some token has any).
         */
        private HecStatus authorize(Request q) {
            if (tokens.isEmpty()) {
                return null;
            }
            String h = q.head.headers().get(HttpHeaderNames.AUTHORIZATION);
            if (h == null || h.isBlank()) {
                return HecStatus.TOKEN_REQUIRED;
            }
            // The scheme is exactly "Splunk" (any case): "S <token>" or "Spl <token>" are not it.
            int sp = h.indexOf(' ');
            if (sp != SCHEME.length() || !h.regionMatches(true, 0, SCHEME, 0, sp)) {
                return HecStatus.INVALID_AUTHORIZATION;
            }
            String given = h.substring(sp + 1).trim();
            if (tokenIndexes == null) {
                return tokens.contains(given) ? null : HecStatus.INVALID_TOKEN;
            }
            int i = tokens.indexOf(given);
            if (i < 0) {
                return HecStatus.INVALID_TOKEN;
            }
            q.indexRules = tokenIndexes[i];
            return null;
        }

        private String channelOf(Request q) {
            String ch = q.head.headers().get("X-Splunk-Request-Channel");
            if (ch == null) {
                List<String> p = q.uri.parameters().get("channel");
                ch = p == null || p.isEmpty() ? null : p.get(0);
            }
            return ch == null || ch.isBlank() ? null : ch;
        }

        /** The checks that need only the head, then the body's reservation; refusals read no body into memory. */
        private void admitIngest(Request q) {
            HttpRequest r = q.head;
            if (r.method() != HttpMethod.POST && r.method() != HttpMethod.PUT) {
                refuse(q, HecStatus.METHOD_NOT_ALLOWED, r.method() + " " + q.uri.path());
                return;
            }
            HecStatus denied = authorize(q);
            if (denied != null) {
                refuse(q, denied, denied.text());
                return;
            }
            if (settings.useAck) {
                String channel = channelOf(q);
                if (channel == null) {
                    refuse(q, HecStatus.CHANNEL_MISSING, "no channel");
                    return;
                }
                q.ackChannel = ackChannel(channel);
                if (q.ackChannel == null) {
                    refuse(q, HecStatus.SERVER_BUSY, "more than " + MAX_ACK_CHANNELS + " ack channels");
                    return;
                }
                if (q.ackChannel.unqueried() >= MAX_UNQUERIED_ACKS) {
                    refuse(q, HecStatus.SERVER_BUSY, "channel " + channel + " has " + MAX_UNQUERIED_ACKS
                            + " acks nobody queried");
                    return;
                }
            }
            if (stopping) {
                refuse(q, HecStatus.SERVER_BUSY, "stopping");
                return;
            }
            if (pending.get() >= settings.maxPendingEvents) {
                refuse(q, HecStatus.SERVER_BUSY, "MaxPendingEvents (" + settings.maxPendingEvents
                        + ") events accepted and not yet delivered");
                return;
            }
            String encoding = r.headers().get(HttpHeaderNames.CONTENT_ENCODING);
            if (encoding != null && encoding.equalsIgnoreCase("gzip")) {
                q.gzip = true;
            } else if (encoding != null && !encoding.equalsIgnoreCase("identity")) {
                refuse(q, HecStatus.INVALID_DATA_FORMAT, "unsupported Content-Encoding " + encoding);
                return;
            }
            q.perByte = q.gzip ? 1 : 2;
            receive(q, settings.maxBodySize);
        }

        private void admitAck(Request q) {
            HecStatus denied = authorize(q);
            if (denied != null) {
                refuse(q, denied, denied.text());
                return;
            }
            if (!settings.useAck) {
                refuse(q, HecStatus.ACK_DISABLED, "ack query with UseAck off");
                return;
            }
            String channel = channelOf(q);
            if (channel == null) {
                refuse(q, HecStatus.CHANNEL_MISSING, "ack query without a channel");
                return;
            }
            q.ackChannel = acks.get(channel);
            if (q.ackChannel == null) {
                refuse(q, HecStatus.INVALID_CHANNEL, "ack query on unknown channel " + channel);
                return;
            }
            receive(q, ACK_MAX_BODY);
        }

        /** Reserves the announced body (too large: 413; budget spent: 503) and takes a buffer for it. */
        private void receive(Request q, int max) {
            q.max = max;
            if (HttpUtil.isTransferEncodingChunked(q.head)) {
                continue100(q); // reserved as it arrives
                return;
            }
            long cl = HttpUtil.getContentLength(q.head, 0L);
            if (cl > max) {
                refuse(q, HecStatus.TOO_LARGE, "Content-Length " + cl + " is over " + (q.kind == ACK ? "the ack limit ("
                        : "MaxBodySize (") + max + ")");
                return;
            }
            if (cl > 0) {
                if (!q.memory.take(cl * q.perByte)) {
                    refuse(q, HecStatus.of(q.memory.refusal()), q.memory.detail());
                    return;
                }
                q.bodyCharged = cl;
                q.body = state.get().take((int) cl);
            }
            continue100(q);
        }

        private void continue100(Request q) {
            if (HttpUtil.is100ContinueExpected(q.head)) {
                context.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
                        Unpooled.EMPTY_BUFFER));
            }
        }

        /** A refusal decided from the head: counted now, answered once the body was skipped or at once. */
        private void refuse(Request q, HecStatus s, String detail) {
            answerAfterBody(q, s, s.body(), detail);
        }

        /**
         * Answers {@code q} without storing its body: after the body was read and dropped when it is short (the
         * connection stays usable), else at once with Connection: close.
         */
        private void answerAfterBody(Request q, HecStatus s, byte[] body, String detail) {
            Rejection reason = q.kind == HEALTH ? null : s.rejection();
            if (reason != null) {
                ctx.reject(reason, peer, detail);
            }
            q.release(state.get());
            q.answer = s;
            q.answerBody = body;
            boolean chunked = HttpUtil.isTransferEncodingChunked(q.head);
            long cl = chunked ? -1 : HttpUtil.getContentLength(q.head, 0L);
            if (!chunked && cl <= SKIP_LIMIT && (cl == 0 || !HttpUtil.is100ContinueExpected(q.head))) {
                q.mode = SKIP;
            } else {
                answerNowAndLinger(q, s, body);
            }
        }

        /** Answers before the body ended, with Connection: close; the rest is dropped until the connection closes. */
        private void answerNowAndLinger(Request q, HecStatus s, byte[] body) {
            q.release(state.get());
            q.mode = LINGER;
            lingering = true;
            lingerStart = System.nanoTime();
            FullHttpResponse r = response(s, body);
            HttpUtil.setKeepAlive(r, false);
            context.writeAndFlush(r).addListener((ChannelFutureListener) f -> {
                if (!f.isSuccess()) {
                    f.channel().close();
                } else if (f.channel() instanceof SocketChannel sc) {
                    sc.shutdownOutput(); // the answer is complete; the client may still be sending
                }
            });
        }

        /** Answers and closes: the request cannot be read further (bad HTTP). */
        private void closeWith(HecStatus s) {
            abortRequest();
            closing = true;
            FullHttpResponse r = response(s, s.body());
            HttpUtil.setKeepAlive(r, false);
            context.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
        }

        private void content(HttpContent c) {
            Request q = cur;
            if (q == null) {
                return;
            }
            ByteBuf b = c.content();
            int n = b.readableBytes();
            if (n > 0) {
                if (q.mode == RECEIVE) {
                    append(q, b, n);
                } else {
                    q.skipped += n;
                    if (q.mode == LINGER && q.skipped > SKIP_LIMIT) {
                        closeNow();
                        return;
                    }
                }
            }
            if (!(c instanceof LastHttpContent last)) {
                return;
            }
            cur = null;
            inRequest = false;
            if (!last.decoderResult().isSuccess()) {
                q.release(state.get());
                if (q.mode != LINGER) {
                    ctx.reject(Rejection.MALFORMED, peer, "bad HTTP body: " + last.decoderResult().cause());
                }
                closeWith(HecStatus.INVALID_DATA_FORMAT);
                return;
            }
            switch (q.mode) {
                case LINGER -> closeNow();
                case SKIP -> {
                    busy = true;
                    reply(q.answer, q.answerBody, q.keepAlive);
                }
                default -> complete(q);
            }
        }

        /** Copies a piece of the body into the request's buffer, growing (and reserving) it for a chunked body. */
        private void append(Request q, ByteBuf b, int n) {
            long need = (long) q.length + n;
            if (need > q.max) {
                ctx.reject(Rejection.TOO_LARGE, peer, "body over " + (q.kind == ACK ? "the ack limit (" : "MaxBodySize (")
                        + q.max + ")");
                q.skipped += n;
                answerNowAndLinger(q, HecStatus.TOO_LARGE, HecStatus.TOO_LARGE.body());
                return;
            }
            if (q.body == null || need > q.body.length) {
                byte[] old = q.body;
                long cap = Math.min(q.max, Math.max(need, old == null ? CHUNKED_INITIAL : old.length * 2L));
                long oldLen = old == null ? 0 : old.length;
                // the new buffer (and the events it will become), plus the old one while it is copied
                if (!q.memory.take((cap - q.bodyCharged) * q.perByte + oldLen)) {
                    HecStatus s = HecStatus.of(q.memory.refusal());
                    ctx.reject(s.rejection(), peer, q.memory.detail());
                    q.skipped += n;
                    answerNowAndLinger(q, s, s.body());
                    return;
                }
                State st = state.get();
                byte[] grown = st.take((int) cap);
                if (old != null) {
                    System.arraycopy(old, 0, grown, 0, q.length);
                    st.give(old);
                }
                q.memory.give(oldLen);
                q.body = grown;
                q.bodyCharged = cap;
            }
            b.getBytes(b.readerIndex(), q.body, q.length, n);
            q.length += n;
        }

        /** The whole request is here: handle it. */
        private void complete(Request q) {
            busy = true;
            Answer a;
            if (q.kind == ACK) {
                a = ack(q);
            } else {
                a = ingest(this, q);
            }
            if (a != null) {
                if (a.reason() != null) {
                    ctx.reject(a.reason(), peer, a.detail());
                }
                reply(a.status(), a.body(), q.keepAlive);
            }
        }

        /** Sends the answer of the current request and moves to the next one (on the event loop). */
        void reply(HecStatus s, byte[] body, boolean keepAlive) {
            busy = false;
            lastActivity = System.nanoTime();
            if (closing || !context.channel().isActive()) {
                return;
            }
            FullHttpResponse r = response(s, body);
            HttpUtil.setKeepAlive(r, keepAlive);
            if (!keepAlive) {
                closing = true;
                context.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            context.writeAndFlush(r);
            drain();
        }

        /** Runs the input that waited while a request was in flight, then reads again. */
        void drain() {
            if (draining) {
                return;
            }
            draining = true;
            try {
                Object m;
                while (!busy && !closing && (m = queued.poll()) != null) {
                    process(m);
                }
            } finally {
                draining = false;
            }
            if (!busy && !closing && queued.isEmpty()) {
                context.channel().config().setAutoRead(true);
            }
        }

        private Answer ack(Request q) {
            String body;
            try {
                body = q.body == null ? "" : new String(q.body, 0, q.length, StandardCharsets.UTF_8);
            } finally {
                q.release(state.get());
            }
            AckChannel ch = q.ackChannel;
            int a = body.indexOf('[');
            int z = body.indexOf(']', a + 1);
            if (a < 0 || z < 0) {
                return Answer.refuse(HecStatus.INVALID_DATA_FORMAT, "ack query without a list of ids");
            }
            StringBuilder r = new StringBuilder("{\"acks\":{");
            boolean first = true;
            for (String id : body.substring(a + 1, z).split(",")) {
                String t = id.trim();
                if (t.isEmpty()) {
                    continue;
                }
                long v;
                try {
                    v = Long.parseLong(t);
                } catch (NumberFormatException e) {
                    return Answer.refuse(HecStatus.INVALID_DATA_FORMAT, "ack id '" + t + "' is not a number");
                }
                r.append(first ? "" : ",").append('"').append(v).append("\":").append(ch.query(v));
                first = false;
            }
            r.append("}}");
            return new Answer(HecStatus.SUCCESS, r.toString().getBytes(StandardCharsets.US_ASCII), null, null);
        }
    }

    private AckChannel ackChannel(String channel) {
        AckChannel c = acks.get(channel);
        if (c == null) {
            if (acks.size() >= MAX_ACK_CHANNELS) {
                return null;
            }
            c = acks.computeIfAbsent(channel, k -> new AckChannel());
        }
        return c;
    }

    /**
     * Parses a whole request into batches and hands them to the publisher: null when the answer comes on delivery,
     * else the answer to write now (a refusal, or the ack id). Runs on the event loop; what the request holds
     * (buffers, batches, memory) is released here unless it was handed on, before any answer is written (the
     * next pipelined request reuses this thread's parser and buffers).
     */
    private Answer ingest(Conn conn, Request q) {
        State st = state.get();
        RequestMemory mem = q.memory;
        BatchCollector out = st.collector;
        out.releaseAll();
        boolean handedOff = false;
        try {
            byte[] data = q.body;
            int len = q.length;
            if (len == 0) {
                return Answer.refuse(HecStatus.NO_DATA, "empty body");
            }
            long inputCharge = q.bodyCharged;
            if (q.gzip) {
                GzipBody.Result r = st.gzip.inflate(data, 0, len, settings.maxBodySize, mem);
                // the compressed body is not needed any more
                mem.give(q.bodyCharged);
                q.bodyCharged = 0;
                st.give(q.body);
                q.body = null;
                switch (r) {
                    case TOO_LARGE:
                        return Answer.refuse(HecStatus.TOO_LARGE, "gzip body inflates beyond MaxBodySize ("
                                + settings.maxBodySize + ")");
                    case REFUSED:
                        return Answer.refuse(HecStatus.of(mem.refusal()), "inflating the gzip body: " + mem.detail());
                    case CORRUPT:
                        return Answer.refuse(HecStatus.INVALID_DATA_FORMAT, st.gzip.error());
                    default:
                        break;
                }
                data = st.gzip.output();
                len = st.gzip.length();
                if (len == 0) {
                    return Answer.refuse(HecStatus.NO_DATA, "empty body after gzip");
                }
                inputCharge = st.gzip.charged();
                // the events copied from the inflated body (a plain body reserved this with itself)
                if (!mem.take(len)) {
                    return Answer.refuse(HecStatus.of(mem.refusal()), mem.detail());
                }
            }
            TokenIndexes rules = q.indexRules;
            EventParser.Defaults dflt = defaults(q.uri, rules);
            byte[][] indexes = rules == null ? settings.indexes : rules.allowed;
            long perEvent = MemoryBudget.MESSAGE_OVERHEAD + (dflt == null ? 0 : dflt.bytesPerEvent());
            out.limit(mem, perEvent, settings.maxEventsPerRequest);
            long now = Clock.epochNanos();
            boolean ok = q.kind == RAW ? st.parser.parseRaw(data, 0, len, out, dflt, indexes, now)
                    : st.parser.parseEvents(data, 0, len, out, dflt, indexes, now);
            // the input is copied into the events: its buffer and reservation go back
            mem.give(inputCharge);
            if (!ok) {
                HecStatus s = st.parser.error();
                String detail = st.parser.detail();
                if (st.parser.invalidEvent() >= 0) {
                    detail = "event " + st.parser.invalidEvent() + (detail == null ? ": " + s.text() : ": " + detail);
                }
                return new Answer(s, s.body(st.parser.invalidEvent()), s.rejection(), detail);
            }
            int n = out.count();
            if (n == 0) {
                return Answer.refuse(HecStatus.NO_DATA, "no events in the body");
            }
            // What the events hold: their copies (at most the input) and their overhead; the rest goes back now.
            long hold = Math.min(mem.reserved(), (long) len + (long) n * perEvent);
            mem.give(mem.reserved() - hold);
            List<Batch> batches = new ArrayList<>(out.batches());
            AckChannel ackChannel = q.ackChannel;
            long ackId = ackChannel != null ? ackChannel.next() : -1;
            Done done = new Done(this, n, q.keepAlive, ackChannel, ackId, conn);
            done.holdMemory(budget, mem.handOff());
            for (int i = 0; i < batches.size(); i++) {
                if (i > 0) {
                    done.retain();
                }
                batches.get(i).setCompletion(done);
            }
            out.reset();
            handedOff = true;
            pending.addAndGet(n);
            unanswered.incrementAndGet();
            received.addAndGet(n);
            if (ackChannel == null) {
                conn.context.channel().config().setAutoRead(false);
            }
            try {
                publisher.execute(() -> publish(batches, done));
            } catch (RejectedExecutionException e) {
                for (Batch b : batches) {
                    b.fail(); // stopped: the request fails (503), its memory goes back
                }
            }
            if (ackChannel != null) {
                // With indexer acks Splunk answers at once with the ack id; the id turns true on delivery.
                return new Answer(HecStatus.SUCCESS, ("{\"text\":\"Success\",\"code\":0,\"ackId\":" + ackId + "}")
                        .getBytes(StandardCharsets.US_ASCII), null, null);
            }
            return null;
        } finally {
            if (!handedOff) {
                out.releaseAll();
                mem.releaseAll();
            }
            if (q.body != null) {
                st.give(q.body);
                q.body = null;
            }
            q.bodyCharged = 0;
            st.gzip.done();
        }
    }

    /**
     * A request's defaults: the query string's {@code host}, {@code source}, {@code sourcetype} and {@code index},
     * else the token's default index (an event's own fields come before both); null when there are none.
     */
    private static EventParser.Defaults defaults(QueryStringDecoder uri, TokenIndexes rules) {
        Map<String, List<String>> q = uri.parameters();
        if (q.isEmpty()) {
            return rules == null ? null : rules.defaults;
        }
        EventParser.Defaults d = new EventParser.Defaults();
        d.host = first(q, "host");
        d.source = first(q, "source");
        d.sourcetype = first(q, "sourcetype");
        d.index = first(q, "index");
        if (d.index == null && rules != null) {
            d.index = rules.defaults.index;
        }
        return d;
    }

    private static byte[] first(Map<String, List<String>> q, String key) {
        List<String> v = q.get(key);
        return v == null || v.isEmpty() ? null : v.get(0).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * On the publisher thread. Nothing escapes: a failure fails the request (503) rather than the thread, and the
     * batches not yet handed to the pipeline are failed (their memory goes back). The batch whose publish threw
     * is left to the pipeline, which may hold it (releasing it twice would corrupt the pool).
     */
    private void publish(List<Batch> batches, Done done) {
        int i = 0;
        try {
            for (; i < batches.size(); i++) {
                ctx.publish(batches.get(i));
            }
        } catch (Throwable t) {
            if (t instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.limited(Log.ERROR, settings.id + ": publish failed",
                    settings.id + ": publishing the events of a request failed; answered 503: " + t);
            for (int j = i + 1; j < batches.size(); j++) {
                batches.get(j).fail();
            }
            done.abandon();
        }
    }

    /** The pipeline is done with a request's events: delivered (success) or not (503). Any thread; never throws. */
    private void finished(Done d, boolean delivered) {
        pending.addAndGet(-d.events);
        if (d.ack != null && delivered) {
            d.ack.done(d.ackId);
        }
        Conn c = d.conn;
        if (!delivered) {
            log.limited(Log.WARNING, settings.id + ": not delivered", settings.id + ": " + d.events
                    + " events from " + c.peer + " were not delivered; " + (d.ack == null ? "answered 503"
                    : "their ack stays false"));
        }
        try {
            c.context.executor().execute(() -> {
                try {
                    if (d.ack == null) {
                        c.reply(delivered ? HecStatus.SUCCESS : HecStatus.SERVER_BUSY,
                                delivered ? HecStatus.SUCCESS.body() : HecStatus.SERVER_BUSY.body(), d.keepAlive);
                    }
                } catch (Throwable t) {
                    c.failed(t);
                } finally {
                    unanswered.decrementAndGet();
                }
            });
        } catch (Throwable e) {
            // The server stopped before delivery ended: the connection is gone, there is no one to answer.
            unanswered.decrementAndGet();
        }
    }

    /** Answers a request once every batch of it was delivered: the HEC "success only once taken" rule. */
    private static final class Done extends AnswerOnce {
        private final HecServer server;
        private final int events;
        private final boolean keepAlive;
        private final AckChannel ack;
        private final long ackId;
        private final Conn conn;

        Done(HecServer server, int events, boolean keepAlive, AckChannel ack, long ackId, Conn conn) {
            this.server = server;
            this.events = events;
            this.keepAlive = keepAlive;
            this.ack = ack;
            this.ackId = ackId;
            this.conn = conn;
        }

        /** Runs on the thread that released the last batch (a producer's): nothing may escape into it. */
        @Override
        protected void answer(boolean delivered) {
            try {
                server.finished(this, delivered);
            } catch (Throwable t) {
                server.log.limited(Log.ERROR, server.settings.id + ": answer failed",
                        server.settings.id + ": answering a request failed: " + t);
            }
        }
    }

    /** Indexer-ack state of one channel: ids handed out, and which of them were delivered. */
    private static final class AckChannel {
        private final AtomicLong next = new AtomicLong();
        private final Set<Long> done = ConcurrentHashMap.newKeySet();

        long next() {
            return next.getAndIncrement();
        }

        void done(long id) {
            done.add(id);
        }

        /** Delivered acks not yet reported. */
        int unqueried() {
            return done.size();
        }

        /** Whether id was delivered; a true answer is given once, as Splunk forgets reported acks. */
        boolean query(long id) {
            return done.remove(id);
        }
    }
}

package io.sluice.hec.receiver;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.FastThreadLocal;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Clock;
import io.sluice.core.message.Completion;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import java.net.InetSocketAddress;
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
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTTP side of {@code consumer.HEC} on Netty. Requests are parsed on the event loop (per-thread parsers and
 * buffers, so nothing is allocated per event) and handed to one publisher thread, so a full pipeline never
 * blocks an event loop. Admission is bounded: while {@code MaxPendingEvents} events are accepted but not yet
 * taken by the pipeline, new requests get 503 "Server is busy" (code 9). A request is answered only once its
 * events were delivered (or, with indexer acks, the ack turns true then). One request per connection is in
 * flight at a time, so answers keep their order even when a client pipelines.
 */
public final class HecServer {
    /** Settings of one receiver. */
    public static final class Settings {
        public String host = "127.0.0.1";
        public int port = 8088;
        public Set<String> tokens = Set.of();
        public int maxBodySize = 32 * 1024 * 1024;
        public int maxPendingEvents = 65536;
        public int maxDepth = 512;
        public byte[][] indexes;
        public boolean eventRequired = true;
        public boolean useAck;
        public int ioThreads = 2;
        public String id = "hec";
    }

    private final Settings settings;
    private final ConsumerContext ctx;
    private final Log log;
    private final AtomicInteger pending = new AtomicInteger();
    /** Requests whose events were published and whose answer was not written yet. */
    private final AtomicInteger unanswered = new AtomicInteger();
    private volatile boolean stopping;
    private final AtomicLong received = new AtomicLong();
    private final ExecutorService publisher;
    private final Map<String, AckChannel> acks = new ConcurrentHashMap<>();
    private final FastThreadLocal<State> state;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Channel server;

    /** Per event-loop thread: parser, buffers, inflater. A request is parsed completely before the next. */
    private static final class State {
        final EventParser parser;
        final GzipBody gzip = new GzipBody();
        final BatchCollector collector;
        byte[] body = new byte[64 * 1024];

        State(Settings s, ConsumerContext ctx) {
            parser = new EventParser(s.maxDepth, s.indexes, s.eventRequired);
            collector = new BatchCollector(ctx::newBatch);
        }
    }

    /** How long {@link #stop()} waits for the answers of requests in delivery. */
    static final long ANSWER_TIMEOUT_MS = 5000;

    public HecServer(Settings settings, ConsumerContext ctx) {
        this.settings = settings;
        this.ctx = ctx;
        this.log = ctx.log();
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

    /** Binds and starts serving; returns the bound address (port 0 picks a free one). */
    public InetSocketAddress start() throws InterruptedException {
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
                        ch.pipeline().addLast(new HttpServerCodec(4096, 16384, 1 << 16));
                        ch.pipeline().addLast(new Aggregator(settings.maxBodySize));
                        ch.pipeline().addLast(new Handler());
                    }
                });
        server = b.bind(settings.host, settings.port).sync().channel();
        return (InetSocketAddress) server.localAddress();
    }

    /**
     * Stops accepting, answers the requests whose events the pipeline is still delivering (for up to
     * {@link #ANSWER_TIMEOUT_MS}; new requests meanwhile get 503 "Server is busy"), then closes the connections
     * and lets the publisher finish what was accepted. Closing first would leave clients without an answer for
     * events that are delivered anyway, and they would send them again.
     */
    public void stop() {
        stopping = true;
        if (server != null) {
            server.close().syncUninterruptibly();
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
        if (boss != null) {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
        publisher.shutdown();
        try {
            publisher.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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

    /** Oversized bodies get HEC's JSON 413 and the connection is closed (the rest of the body is not read). */
    private static final class Aggregator extends HttpObjectAggregator {
        Aggregator(int max) {
            super(max);
        }

        @Override
        protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
            FullHttpResponse r = response(HecStatus.TOO_LARGE, HecStatus.TOO_LARGE.body());
            HttpUtil.setKeepAlive(r, false);
            ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private static FullHttpResponse response(HecStatus s, byte[] body) {
        return response(HttpResponseStatus.valueOf(s.http()), body);
    }

    private static FullHttpResponse response(HttpResponseStatus status, byte[] body) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        return r;
    }

    /** One per connection: runs requests one at a time, queueing pipelined ones. */
    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final ArrayDeque<FullHttpRequest> queued = new ArrayDeque<>();
        private boolean busy;
        private ChannelHandlerContext context;

        @Override
        public void handlerAdded(ChannelHandlerContext c) {
            context = c;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext c, FullHttpRequest req) {
            if (busy) {
                queued.add(req.retain());
                c.channel().config().setAutoRead(false);
                return;
            }
            handle(c, req);
        }

        @Override
        public void channelInactive(ChannelHandlerContext c) {
            FullHttpRequest r;
            while ((r = queued.poll()) != null) {
                r.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
            log.debug(settings.id + ": connection error: " + cause);
            c.close();
        }

        /** Sends the answer of the current request and moves to the next one (on the event loop). */
        void reply(HecStatus s, byte[] body, boolean keepAlive) {
            FullHttpResponse r = response(s, body);
            HttpUtil.setKeepAlive(r, keepAlive);
            if (!keepAlive) {
                context.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            context.writeAndFlush(r);
            busy = false;
            FullHttpRequest next = queued.poll();
            if (next != null) {
                try {
                    handle(context, next);
                } finally {
                    next.release();
                }
            }
            if (!busy && queued.isEmpty()) {
                context.channel().config().setAutoRead(true);
            }
        }

        private void handle(ChannelHandlerContext c, FullHttpRequest req) {
            busy = true;
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            if (!req.decoderResult().isSuccess()) {
                reply(HecStatus.INVALID_DATA_FORMAT, HecStatus.INVALID_DATA_FORMAT.body(), false);
                return;
            }
            QueryStringDecoder uri = new QueryStringDecoder(req.uri());
            String path = uri.path();
            if (path.endsWith("/")) {
                path = path.substring(0, path.length() - 1);
            }
            switch (path) {
                case "/services/collector/health":
                case "/services/collector/health/1.0": {
                    HecStatus s = pending.get() >= settings.maxPendingEvents ? HecStatus.UNHEALTHY_QUEUES_FULL : HecStatus.HEALTHY;
                    reply(s, s.body(), keepAlive);
                    return;
                }
                case "/services/collector":
                case "/services/collector/event":
                case "/services/collector/event/1.0":
                    ingest(c, req, uri, false, keepAlive);
                    return;
                case "/services/collector/raw":
                case "/services/collector/raw/1.0":
                    ingest(c, req, uri, true, keepAlive);
                    return;
                case "/services/collector/ack":
                case "/services/collector/ack/1.0":
                    ack(req, uri, keepAlive);
                    return;
                default:
                    reply(HecStatus.NOT_FOUND, HecStatus.NOT_FOUND.body(), keepAlive);
            }
        }

        /** Splunk's token rules: no header → 2, not "Splunk <t>" → 3, unknown token → 4. Null when fine. */
        private HecStatus authorize(FullHttpRequest req) {
            if (settings.tokens.isEmpty()) {
                return null;
            }
            String h = req.headers().get(HttpHeaderNames.AUTHORIZATION);
            if (h == null || h.isBlank()) {
                return HecStatus.TOKEN_REQUIRED;
            }
            int sp = h.indexOf(' ');
            if (sp < 0 || !h.regionMatches(true, 0, "Splunk", 0, sp)) {
                return HecStatus.INVALID_AUTHORIZATION;
            }
            return settings.tokens.contains(h.substring(sp + 1).trim()) ? null : HecStatus.INVALID_TOKEN;
        }

        private String channelOf(FullHttpRequest req, QueryStringDecoder uri) {
            String ch = req.headers().get("X-Splunk-Request-Channel");
            if (ch == null) {
                List<String> q = uri.parameters().get("channel");
                ch = q == null || q.isEmpty() ? null : q.get(0);
            }
            return ch == null || ch.isBlank() ? null : ch;
        }

        private void ingest(ChannelHandlerContext c, FullHttpRequest req, QueryStringDecoder uri, boolean raw,
                            boolean keepAlive) {
            if (req.method() != HttpMethod.POST && req.method() != HttpMethod.PUT) {
                reply(HecStatus.METHOD_NOT_ALLOWED, HecStatus.METHOD_NOT_ALLOWED.body(), keepAlive);
                return;
            }
            HecStatus denied = authorize(req);
            if (denied != null) {
                reply(denied, denied.body(), keepAlive);
                return;
            }
            String channel = channelOf(req, uri);
            AckChannel ackChannel = null;
            if (settings.useAck) {
                if (channel == null) {
                    reply(HecStatus.CHANNEL_MISSING, HecStatus.CHANNEL_MISSING.body(), keepAlive);
                    return;
                }
                ackChannel = acks.computeIfAbsent(channel, k -> new AckChannel());
            }
            if (stopping || pending.get() >= settings.maxPendingEvents) {
                reply(HecStatus.SERVER_BUSY, HecStatus.SERVER_BUSY.body(), keepAlive);
                return;
            }
            State st = state.get();
            ByteBuf content = req.content();
            int len = content.readableBytes();
            if (len == 0) {
                reply(HecStatus.NO_DATA, HecStatus.NO_DATA.body(), keepAlive);
                return;
            }
            if (st.body.length < len) {
                st.body = new byte[Math.max(len, st.body.length * 2)];
            }
            content.getBytes(content.readerIndex(), st.body, 0, len);
            byte[] data = st.body;
            String encoding = req.headers().get(HttpHeaderNames.CONTENT_ENCODING);
            if (encoding != null && encoding.equalsIgnoreCase("gzip")) {
                GzipBody.Result r = st.gzip.inflate(st.body, 0, len, settings.maxBodySize);
                if (r == GzipBody.Result.TOO_LARGE) {
                    reply(HecStatus.TOO_LARGE, HecStatus.TOO_LARGE.body(), false);
                    return;
                }
                if (r == GzipBody.Result.CORRUPT) {
                    log.debug(settings.id + ": rejected request: " + st.gzip.error());
                    reply(HecStatus.INVALID_DATA_FORMAT, HecStatus.INVALID_DATA_FORMAT.body(), keepAlive);
                    return;
                }
                data = st.gzip.output();
                len = st.gzip.length();
            } else if (encoding != null && !encoding.equalsIgnoreCase("identity")) {
                reply(HecStatus.INVALID_DATA_FORMAT, HecStatus.INVALID_DATA_FORMAT.body(), keepAlive);
                return;
            }
            EventParser.Defaults dflt = defaults(uri);
            BatchCollector out = st.collector;
            long now = Clock.epochNanos();
            boolean ok = raw ? st.parser.parseRaw(data, 0, len, out, dflt, now)
                    : st.parser.parseEvents(data, 0, len, out, dflt, now);
            if (!ok) {
                out.releaseAll();
                HecStatus s = st.parser.error();
                if (st.parser.detail() != null) {
                    log.debug(settings.id + ": rejected event " + st.parser.invalidEvent() + ": " + st.parser.detail());
                }
                reply(s, s.body(st.parser.invalidEvent()), keepAlive);
                return;
            }
            int n = out.count();
            if (n == 0) {
                out.releaseAll();
                reply(HecStatus.NO_DATA, HecStatus.NO_DATA.body(), keepAlive);
                return;
            }
            List<Batch> batches = new ArrayList<>(out.batches());
            out.reset();
            pending.addAndGet(n);
            unanswered.incrementAndGet();
            received.addAndGet(n);
            long ackId = ackChannel != null ? ackChannel.next() : -1;
            Done done = new Done(HecServer.this, n, keepAlive, ackChannel, ackId);
            done.handler = this; // set before the batches leave this thread: the executor hand-off publishes it
            for (int i = 0; i < batches.size(); i++) {
                if (i > 0) {
                    done.retain();
                }
                batches.get(i).setCompletion(done);
            }
            c.channel().config().setAutoRead(false);
            publisher.execute(() -> publish(batches));
            if (ackChannel != null) {
                // With indexer acks Splunk answers at once with the ack id; the id turns true on delivery.
                reply(HecStatus.SUCCESS, ("{\"text\":\"Success\",\"code\":0,\"ackId\":" + ackId + "}")
                        .getBytes(StandardCharsets.US_ASCII), keepAlive);
            }
        }

        private void ack(FullHttpRequest req, QueryStringDecoder uri, boolean keepAlive) {
            HecStatus denied = authorize(req);
            if (denied != null) {
                reply(denied, denied.body(), keepAlive);
                return;
            }
            if (!settings.useAck) {
                reply(HecStatus.ACK_DISABLED, HecStatus.ACK_DISABLED.body(), keepAlive);
                return;
            }
            String channel = channelOf(req, uri);
            if (channel == null) {
                reply(HecStatus.CHANNEL_MISSING, HecStatus.CHANNEL_MISSING.body(), keepAlive);
                return;
            }
            AckChannel ch = acks.get(channel);
            if (ch == null) {
                reply(HecStatus.INVALID_CHANNEL, HecStatus.INVALID_CHANNEL.body(), keepAlive);
                return;
            }
            String body = req.content().toString(StandardCharsets.UTF_8);
            int a = body.indexOf('[');
            int z = body.indexOf(']', a + 1);
            if (a < 0 || z < 0) {
                reply(HecStatus.INVALID_DATA_FORMAT, HecStatus.INVALID_DATA_FORMAT.body(), keepAlive);
                return;
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
                    reply(HecStatus.INVALID_DATA_FORMAT, HecStatus.INVALID_DATA_FORMAT.body(), keepAlive);
                    return;
                }
                r.append(first ? "" : ",").append('"').append(v).append("\":").append(ch.query(v));
                first = false;
            }
            r.append("}}");
            reply(HecStatus.SUCCESS, r.toString().getBytes(StandardCharsets.US_ASCII), keepAlive);
        }
    }

    private static EventParser.Defaults defaults(QueryStringDecoder uri) {
        Map<String, List<String>> q = uri.parameters();
        if (q.isEmpty()) {
            return null;
        }
        EventParser.Defaults d = new EventParser.Defaults();
        d.host = first(q, "host");
        d.source = first(q, "source");
        d.sourcetype = first(q, "sourcetype");
        d.index = first(q, "index");
        return d;
    }

    private static byte[] first(Map<String, List<String>> q, String key) {
        List<String> v = q.get(key);
        return v == null || v.isEmpty() ? null : v.get(0).getBytes(StandardCharsets.UTF_8);
    }

    private void publish(List<Batch> batches) {
        for (int i = 0; i < batches.size(); i++) {
            try {
                ctx.publish(batches.get(i));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                for (int j = i; j < batches.size(); j++) {
                    batches.get(j).release();
                }
                return;
            }
        }
    }

    /** Answers a request once every batch of it was delivered: the HEC "success only once taken" rule. */
    private static final class Done extends Completion {
        private final HecServer server;
        private final int events;
        private final boolean keepAlive;
        private final AckChannel ack;
        private final long ackId;
        private Handler handler;

        Done(HecServer server, int events, boolean keepAlive, AckChannel ack, long ackId) {
            this.server = server;
            this.events = events;
            this.keepAlive = keepAlive;
            this.ack = ack;
            this.ackId = ackId;
        }

        @Override
        protected void onComplete() {
            server.pending.addAndGet(-events);
            if (ack != null) {
                ack.done(ackId);
            }
            Handler h = handler;
            if (h == null) {
                server.unanswered.decrementAndGet();
                return;
            }
            try {
                h.context.executor().execute(() -> {
                    try {
                        if (ack == null) {
                            h.reply(HecStatus.SUCCESS, HecStatus.SUCCESS.body(), keepAlive);
                        } else if (!h.busy && h.queued.isEmpty()) {
                            h.context.channel().config().setAutoRead(true);
                        }
                    } finally {
                        server.unanswered.decrementAndGet();
                    }
                });
            } catch (RejectedExecutionException e) {
                // The server stopped before delivery ended: the connection is gone, there is no one to answer.
                // Throwing here would fail the producer that released the last batch (its flush or close).
                server.unanswered.decrementAndGet();
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

        /** Whether id was delivered; a true answer is given once, as Splunk forgets reported acks. */
        boolean query(long id) {
            return done.remove(id);
        }
    }
}

package io.sluice.hec.consumer;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.FastThreadLocal;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.net.ChildSetup;
import io.sluice.core.net.ConnectionSlots;
import io.sluice.core.net.ServerListener;
import io.sluice.core.net.http.HttpResponses;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Rejection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The HTTP side of {@code consumer.HEC} on Netty: the listener, its connections ({@link HecConnection}: endpoints,
 * checks, body reception) and what they share ({@link HecTokens}, {@link AckChannels}, {@link HecIngest}). Requests are parsed on the event loop (per-thread parsers and
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
    /** Seconds a client is asked to wait after a 503. */
    static final String RETRY_AFTER = "1";

    private static final byte[] TOO_MANY_CONNECTIONS = HttpResponses.raw(HttpResponseStatus.SERVICE_UNAVAILABLE,
            "application/json", RETRY_AFTER, HecStatus.SERVER_BUSY.body());

    final Settings settings;
    final ConsumerContext ctx;
    final MemoryBudget budget;
    final HecTokens tokens;
    final AckChannels acks = new AckChannels();
    final HecIngest ingest;
    final HecAdmission admission;
    /** {@code IdleTimeoutMs}, and how often a connection checks it. */
    final long timeoutNanos;
    final long tickMillis;
    private final Log log;
    private final ConnectionSlots connections;
    private final FastThreadLocal<EventLoopState> state;
    private volatile boolean stopping;
    private boolean stopped;
    private EventLoopGroup workers;
    private ChildSetup children;
    private volatile ServerListener server;
    private volatile Throwable listenerLost;

    /** A server of {@code settings} publishing to {@code ctx}; it listens once {@link #start()} ran. */
    public HecServer(Settings settings, ConsumerContext ctx) {
        this.settings = settings;
        this.tokens = new HecTokens(settings);
        this.ctx = ctx;
        this.log = ctx.log();
        this.budget = ctx.memory();
        this.connections = new ConnectionSlots(settings.maxConnections);
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(settings.idleTimeoutMs);
        this.tickMillis = Math.max(10, Math.min(1000, settings.idleTimeoutMs / 4));
        this.ingest = new HecIngest(settings, ctx);
        this.admission = new HecAdmission(this);
        this.state = new FastThreadLocal<>() {
            @Override
            protected EventLoopState initialValue() {
                return new EventLoopState(settings, ctx);
            }
        };
    }

    /**
     * Binds and starts serving; returns the bound address (port 0 picks a free one).
     *
     * @throws IOException naming the address when it cannot be bound (in use, not local, not resolvable)
     */
    public synchronized InetSocketAddress start() throws IOException {
        workers = new MultiThreadIoEventLoopGroup(settings.ioThreads, NioIoHandler.newFactory());
        children = new ChildSetup(workers, this::accepted);
        ServerListener ch;
        try {
            ch = ServerListener.bind(settings.host, settings.port, 1024, children, "");
        } catch (IOException e) {
            shutdownGroups();
            throw e;
        }
        server = ch;
        ch.onLost(() -> stopping, lost -> {
            listenerLost = lost;
            log.error(settings.id + ": the listener on " + ch.localAddress() + " is gone: " + lost);
        });
        return ch.localAddress();
    }

    /** Whether the listening socket is open and the server not stopping: {@code /ready}. */
    public boolean listening() {
        ServerListener s = server;
        return s != null && s.isActive() && !stopping;
    }

    /** Why the listener closed while the server was not stopping, or null: the consumer then fails the process. */
    public Throwable listenerLost() {
        return listenerLost;
    }

    /**
     * Stops accepting, answers the requests whose events the pipeline is still delivering (for up to
     * {@link #ANSWER_TIMEOUT_MS}; new requests meanwhile get 503 "Server is busy"), then closes the connections
     * (every one: a connection left open after its event loop is gone is read by nobody, and its client's next
     * request waits for ever) and lets the publisher finish what was accepted. Closing first would leave clients
     * without an answer for events that are delivered anyway, and they would send them again. Idempotent.
     */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        stopping = true;
        ServerListener s = server;
        if (s != null) {
            s.close(); // under a reload's hold, parked for the consumer that replaces this one
        }
        awaitIdle();
        if (children != null) {
            children.closeAll(ANSWER_TIMEOUT_MS); // before the loops stop: their shutdown may leave channels open
        }
        shutdownGroups();
        ingest.stop();
    }

    /**
     * Waits (up to {@link #ANSWER_TIMEOUT_MS}) until every request taken before the stop began has its answer: those
     * in delivery, and those whose body was still arriving (admitted before {@code stopping}, submitted after). A
     * connection closed under a request the pipeline took would make its client send it again: a duplicate.
     */
    private void awaitIdle() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_TIMEOUT_MS);
        for (Channel ch : children == null ? List.<Channel>of() : children.connections()) {
            HecConnection c = ch.pipeline().get(HecConnection.class);
            while (c != null && !c.idle() && ch.isOpen() && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000); // the pipeline is delivering; its completion answers the request
            }
        }
        ingest.publisher().awaitAnswered(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }

    private void shutdownGroups() {
        if (workers != null) {
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    boolean stopping() {
        return stopping;
    }

    /** The connections' event loops, null before {@link #start()}: a test times a stop against one of them. */
    EventLoopGroup workers() {
        return workers;
    }

    /** This event-loop thread's parser and buffers. */
    EventLoopState state() {
        return state.get();
    }

    /** A new connection: counted and served, or refused with 503 beyond {@code MaxConnections}. */
    private void accepted(SocketChannel ch) {
        if (!connections.take(ch)) {
            ctx.reject(Rejection.BUSY, ch.remoteAddress(), "more than MaxConnections (" + settings.maxConnections
                    + ") connections; answered 503 and closed");
            ConnectionSlots.refuse(ch, TOO_MANY_CONNECTIONS);
            return;
        }
        ctx.stats().addConnections(1);
        ch.closeFuture().addListener(f -> ctx.stats().addConnections(-1));
        HecConnection conn = new HecConnection(this);
        if (settings.tls != null) {
            // the idle watch sits after TLS: a handshake that never ends sends no request and is closed as idle
            ch.pipeline().addLast("tls", settings.tls.serverHandler(ch.alloc()));
        }
        ch.pipeline().addLast(conn.watch, new HttpServerCodec(4096, 16384, 1 << 16), conn);
    }
}

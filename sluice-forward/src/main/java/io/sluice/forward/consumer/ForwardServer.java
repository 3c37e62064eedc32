package io.sluice.forward.consumer;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.Future;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.net.ChildSetup;
import io.sluice.core.net.ConnectionSlots;
import io.sluice.core.net.ServerListener;
import io.sluice.core.net.UdpListener;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Rejection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Netty side of {@code consumer.Forward}: a listening socket, event loops, and the shared pool of publisher
 * threads that move decoded batches into the pipeline (see {@link ForwardConnection}); the UDP socket on the same
 * port that answers heartbeats; the chunk ids recently accepted ({@link RecentChunks}). At most
 * {@code maxConnections} connections are served (more are closed at once, counted BUSY), and a connection silent
 * for {@code idleTimeoutMillis} is closed (counted TIMEOUT) unless it is waiting for the pipeline. With a shared
 * key, failed handshakes are counted per address ({@link AuthFailures}) and a blocked address's connections are
 * closed as they are accepted (counted AUTH).
 */
final class ForwardServer {
    /** What Fluentd's in_forward answers to a UDP heartbeat: one zero byte. */
    private static final byte[] HEARTBEAT_REPLY = {0};

    /** Everything a connection needs to know, parsed once from the plugin's config. */
    record Settings(String id, String host, int port, long maxMessageSize, long maxDecompressedBytes,
                    RecordMapper.PayloadMode payloadMode, String payloadKey, boolean metadata, TagRoutes routes,
                    String sharedKey, String hostname, Map<String, String> users, SslContext ssl, int ioThreads,
                    int publishThreads, int readAhead, String eventMetadataPrefix, boolean udpHeartbeat,
                    int dedupChunks, long dedupWindowMillis, int maxConnections, long idleTimeoutMillis,
                    int authFailureLimit, long authBlockMaxMillis) {
    }

    private final Settings settings;
    private final ConsumerContext context;
    private final Log log;
    private EventLoopGroup workers;
    /** Every connection handed to the workers (admitted or not), for the stop to close. */
    private ChildSetup children;
    private final ExecutorService publisher;
    private final RecentChunks recentChunks;
    // Exported on /metrics with the plugin's labels.
    private final AtomicLong duplicateChunks;
    private final AtomicLong duplicateEvents;
    private final AtomicLong heartbeats;
    private final AtomicLong invalidUtf8;
    private final AtomicLong authThrottled;
    /** Failed handshakes per address; null without a handshake or with AuthFailureLimit 0. */
    private final AuthFailures authFailures;
    /** Connections admitted and not closed yet (MaxConnections). */
    private final ConnectionSlots slots;
    private final java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile ServerListener listener;
    private volatile UdpListener heartbeatSocket;
    /** Set once everything {@link #start} opens is open (the UDP socket is bound after the TCP one). */
    private volatile boolean started;

    /** @param publisher null for a pool of its own (tests publish on the calling thread to stay deterministic) */
    ForwardServer(Settings settings, ConsumerContext context, ExecutorService publisher) {
        this.settings = settings;
        this.context = context;
        this.log = context.log();
        this.duplicateChunks = context.stats().counter("sluice_forward_duplicate_chunks_total",
                "Forward frames whose chunk id was already accepted or in flight: acked, not delivered again.");
        this.duplicateEvents = context.stats().counter("sluice_forward_duplicate_events_total",
                "Events of those frames, not delivered twice.");
        this.heartbeats = context.stats().counter("sluice_forward_heartbeats_total", "UDP heartbeats answered.");
        this.invalidUtf8 = context.stats().counter("sluice_invalid_utf8_total",
                "Invalid UTF-8 sequences in received strings, replaced with U+FFFD in the payload and metadata.");
        this.authThrottled = context.stats().counter("sluice_forward_auth_throttled_total",
                "Connections closed before any handshake work because their address failed AuthFailureLimit "
                        + "handshakes (also counted in sluice_rejected_total, reason auth).");
        this.authFailures = settings.sharedKey() != null && settings.authFailureLimit() > 0
                ? new AuthFailures(settings.authFailureLimit(), TimeUnit.MILLISECONDS.toNanos(settings.authBlockMaxMillis()),
                        AuthFailures.DEFAULT_CAPACITY, System::nanoTime)
                : null;
        this.slots = new ConnectionSlots(settings.maxConnections());
        this.recentChunks = settings.dedupChunks() > 0
                ? new RecentChunks(settings.dedupChunks(), TimeUnit.MILLISECONDS.toNanos(settings.dedupWindowMillis()),
                        System::nanoTime)
                : null;
        // Threads start on demand, so an idle server holds none.
        AtomicInteger n = new AtomicInteger();
        this.publisher = publisher != null ? publisher : new ThreadPoolExecutor(settings.publishThreads(), settings.publishThreads(), 0,
                TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "forward-publish-" + settings.id() + "-" + n.getAndIncrement());
                    t.setDaemon(true);
                    return t;
                });
    }

    /**
     * Binds and starts accepting; returns the bound address (the port is chosen when 0 was asked for).
     *
     * @throws IOException naming the address when it cannot be bound (a port in use)
     */
    InetSocketAddress start() throws IOException, InterruptedException {
        workers = new MultiThreadIoEventLoopGroup(settings.ioThreads(), NioIoHandler.newFactory());
        // TCP_NODELAY (ChildSetup's): acks are small and awaited, so they go at once.
        children = new ChildSetup(workers, this::accepted).option(ChannelOption.SO_KEEPALIVE, true);
        try {
            listener = ServerListener.bind(settings.host(), settings.port(), 1024, children, "");
        } catch (IOException e) {
            stop(1000);
            throw e;
        }
        InetSocketAddress bound = listener.localAddress();
        if (settings.udpHeartbeat()) {
            bindHeartbeat(bound.getPort());
        }
        started = true;
        return bound;
    }

    private void accepted(SocketChannel ch) {
        if (refusedAfterFailures(ch)) {
            return;
        }
        ChannelPipeline p = ch.pipeline();
        if (settings.idleTimeoutMillis() > 0) {
            p.addLast("idle", new IdleStateHandler(settings.idleTimeoutMillis(), 0, 0, TimeUnit.MILLISECONDS));
        }
        if (settings.ssl() != null) {
            p.addLast("tls", settings.ssl().newHandler(ch.alloc()));
        }
        ForwardConnection c = new ForwardConnection(this);
        if (settings.sharedKey() != null) {
            ch.config().setRecvByteBufAllocator(c.preAuthReads(ch.config().getRecvByteBufAllocator()));
        }
        p.addLast("frames", c.frames());
        p.addLast("forward", c);
    }

    /**
     * Answers UDP heartbeats on the TCP port, as Fluentd's in_forward does: any datagram gets one zero byte back,
     * which is how out_forward with {@code heartbeat_type udp} (and producer.Forward with {@code HeartbeatType: udp})
     * sees this server alive. The answer is never larger than the datagram's headers, so it amplifies nothing.
     * Not being able to bind costs the heartbeats only: the TCP side runs on, with a warning.
     */
    private void bindHeartbeat(int port) {
        try {
            // on the accept loop, not the workers: kept, like the TCP listener, across a reload (UdpListener)
            heartbeatSocket = UdpListener.bind(settings.host(), port, new HeartbeatAnswer());
        } catch (IOException | RuntimeException e) {
            Throwable why = e.getCause() != null ? e.getCause() : e;
            log.warn(settings.id() + ": cannot answer UDP heartbeats on " + settings.host() + ":" + port + " ("
                    + why.getMessage() + "); Forward over TCP is not affected, senders using heartbeat_type udp will see "
                    + "this server as down");
        }
    }

    /** One zero byte back to any datagram. */
    private final class HeartbeatAnswer extends SimpleChannelInboundHandler<DatagramPacket> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            heartbeats.incrementAndGet();
            ctx.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(HEARTBEAT_REPLY), packet.sender()),
                    ctx.voidPromise());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // A datagram to a peer that went away (ICMP) must not close the socket.
            log.limited(Log.DEBUG, settings.id() + ": heartbeat", settings.id()
                    + ": UDP heartbeat answer failed: " + cause);
        }
    }

    /** Whether the listening socket is open (and the heartbeat socket bound, or given up on). */
    boolean isListening() {
        ServerListener l = listener;
        return started && l != null && l.isActive();
    }

    /**
     * Stops accepting, closes every connection, then lets the publisher threads finish handing over what was
     * already decoded (those events are delivered; their acks can no longer be sent, so clients resend them).
     */
    void stop(long timeoutMillis) throws InterruptedException {
        if (!stopping.compareAndSet(false, true)) {
            return;
        }
        if (listener != null) {
            listener.close(); // under a reload's hold, parked for the consumer that replaces this one
        }
        UdpListener hb = heartbeatSocket;
        if (hb != null) {
            hb.close(); // under a reload's hold, parked like the listener
        }
        if (children != null) {
            drain(timeoutMillis);
            // every one, a registration still queued included: the loops' shutdown may leave channels open
            children.closeAll(timeoutMillis);
        }
        if (workers != null) {
            workers.shutdownGracefully(0, 200, TimeUnit.MILLISECONDS).await(timeoutMillis);
        }
        publisher.shutdown();
        if (!publisher.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS)) {
            log.warn(settings.id() + ": publisher threads did not finish within " + timeoutMillis + " ms");
            publisher.shutdownNow();
        }
    }

    /**
     * Stops reading on every connection and waits (up to {@code timeoutMillis}) until what was read has been
     * delivered and acked: a consumer replaced by a reload, or stopped, leaves no sender waiting for an ack it would
     * answer by sending the chunk again (a duplicate, as the next server does not know the chunk).
     */
    private void drain(long timeoutMillis) throws InterruptedException {
        List<ForwardConnection> open = new ArrayList<>();
        for (Channel ch : children.connections()) {
            ForwardConnection c = ch.pipeline().get(ForwardConnection.class);
            if (c != null) {
                open.add(c);
                ch.eventLoop().execute(c::drain);
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (ForwardConnection c : open) {
            while (!c.settled() && System.nanoTime() < deadline) {
                Thread.sleep(1); // producers are delivering; their completions settle the connection
            }
        }
    }

    /** The listening socket (tests close its channel to see the process fail). */
    ServerListener listener() {
        return listener;
    }

    /** Completes when the listening socket closes (by {@link #stop}, or lost). */
    Future<?> listenerClosed() {
        return listener.closeFuture();
    }

    /** Admits a connection, or returns false when {@code maxConnections} are open (the caller closes it). */
    boolean connectionOpened(Channel ch) {
        if (!slots.take(ch)) {
            return false;
        }
        context.stats().addConnections(1);
        return true;
    }

    /**
     * Closes a new connection at once, before TLS or the HELO, when its address is blocked after failed handshakes:
     * a guesser then costs an accept and a close, and learns nothing. Counted as AUTH.
     */
    private boolean refusedAfterFailures(SocketChannel ch) {
        InetAddress address = addressOf(ch.remoteAddress());
        long left = authFailures == null || address == null ? 0 : authFailures.blockedFor(address);
        if (left <= 0) {
            return false;
        }
        authThrottled.incrementAndGet();
        context.reject(Rejection.AUTH, ch.remoteAddress(), "too many failed handshakes from this address "
                + "(AuthFailureLimit " + settings.authFailureLimit() + "): refused without a handshake for another "
                + TimeUnit.NANOSECONDS.toMillis(left) + " ms");
        ch.close();
        return true;
    }

    /** A handshake failed (already counted as AUTH by the caller): counts it against the peer's address. */
    void handshakeFailed(SocketAddress remote) {
        InetAddress address = addressOf(remote);
        if (authFailures == null || address == null) {
            return;
        }
        AuthFailures.Verdict v = authFailures.failed(address);
        if (v.blocked()) {
            log.limited(Log.WARNING, settings.id() + ": auth blocked", settings.id() + ": " + v.failures()
                    + " failed handshakes in a row from " + address.getHostAddress() + ": its connections are closed "
                    + "without a handshake for " + TimeUnit.NANOSECONDS.toMillis(v.blockNanos()) + " ms (AuthFailureLimit "
                    + settings.authFailureLimit() + ", AuthBlockMaxMs " + settings.authBlockMaxMillis() + ")");
        }
    }

    /** A handshake succeeded: the peer's address is forgiven its failures. */
    void handshakeSucceeded(SocketAddress remote) {
        InetAddress address = addressOf(remote);
        if (authFailures != null && address != null) {
            authFailures.succeeded(address);
        }
    }

    private static InetAddress addressOf(SocketAddress remote) {
        return remote instanceof InetSocketAddress a ? a.getAddress() : null;
    }

    /** An admitted connection closed. */
    void connectionClosed() {
        context.stats().addConnections(-1);
    }

    /** What the connections need to know of the plugin's config. */
    Settings settings() {
        return settings;
    }

    /** The process's memory budget (asked each time: a test may replace it). */
    MemoryBudget memory() {
        return context.memory();
    }

    /** Counts invalid UTF-8 sequences a connection replaced. */
    void invalidUtf8(long n, String peer) {
        invalidUtf8.addAndGet(n);
        log.limited(Log.INFO, settings.id() + ": invalid UTF-8", settings.id() + ": " + peer + " sent strings that "
                + "are not valid UTF-8; invalid sequences were replaced with U+FFFD (sluice_invalid_utf8_total)");
    }

    Log log() {
        return log;
    }

    ConsumerContext context() {
        return context;
    }

    ExecutorService publisher() {
        return publisher;
    }

    /** The chunk ids recently accepted, or null when duplicates are not looked for. */
    RecentChunks recentChunks() {
        return recentChunks;
    }

    /** A frame whose chunk was accepted (or is in flight) came again: counts it and its events, and says so. */
    void duplicate(String chunk, int events, boolean inFlight, String peer) {
        duplicateChunks.incrementAndGet();
        duplicateEvents.addAndGet(events);
        log.limited(Log.INFO, settings.id() + ": duplicate chunk", settings.id() + ": chunk " + chunk + " from " + peer
                + (inFlight ? " is a copy of one still being delivered: it is acked with the first copy"
                        : " was already accepted (its ack was lost): acked again")
                + ", its " + events + " events not delivered twice");
    }

    /** The UDP port answering heartbeats, or -1. */
    int heartbeatPort() {
        UdpListener hb = heartbeatSocket;
        return hb == null ? -1 : hb.localAddress().getPort();
    }
}

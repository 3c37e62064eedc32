package io.sluice.io.socket;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Clock;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.net.HostPort;
import io.sluice.core.net.ListenerHandover;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.tls.TlsSettings;
import io.sluice.io.FileModes;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.NetworkChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The listening side shared by {@link SocketConsumer} and {@link SyslogdConsumer}: binds TCP, UDP or a unix stream
 * socket in {@link #open}, then serves it until {@link #stop()}.
 *
 * <p>Stream connections (TCP, unix) are served by one {@link StreamLoop}: the consumer's own thread, with a
 * java.nio selector, accepts, reads, frames, parses and publishes for every connection (publishing may wait
 * while the pipeline is full: then no connection is read). java.nio rather than Netty: the framer works on byte
 * arrays, which a selector loop reads into without a copy, and unix sockets come with the JDK (16+) on every
 * platform. UDP is one socket read by the consumer's thread, as before. With the TLS/* group enabled, every TCP
 * connection speaks TLS on the same loop ({@link TlsStream}: one engine per connection, driven without blocking).
 */
final class SocketServer {
    /** What one server does. */
    static final class Settings {
        HostPort address;
        Framer.Mode mode = Framer.Mode.DELIMITER;
        byte[] delimiter = {'\n'};
        int offset;
        int size = 1;
        int maxLineSize = 1 << 20;
        /** The read buffer of the selector loop (shared by every connection), or of the UDP socket. */
        int readBufferSize = 256 * 1024;
        /** Null: the frame is the payload. */
        SyslogParser.Rfc syslog;
        boolean metadata = true;
        boolean skipEmpty;
        byte[] acknowledge;
        String permissions = "0770";
        boolean removeOldSocket = true;
        /** Open stream connections at most; more are closed at once and counted busy. */
        int maxConnections = 1024;
        /** A connection that completes no message for this long is closed and counted; 0: never. */
        long idleTimeoutMs;
        /** TLS on every TCP connection (the TLS/* group, enabled), or null. */
        TlsSettings tls;
    }

    static final byte[] TRUNCATED = "truncated".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "true".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    final String id;
    final Settings s;
    final AtomicLong lines = new AtomicLong();
    final AtomicLong truncated = new AtomicLong();
    final AtomicLong badHeaders = new AtomicLong();
    final AtomicLong unterminated = new AtomicLong();
    final AtomicLong syslogErrors = new AtomicLong();
    private final String tooLarge;
    private final String malformed;
    volatile boolean stopped;
    private volatile java.nio.channels.Channel listener;
    private volatile Selector udpSelector;
    private volatile StreamLoop loop;
    private volatile boolean serving;
    /** Where the socket is parked under a reload's hold: null for none (not bound, or port 0 unresolved). */
    private volatile ListenerHandover.Address parkAt;

    /**
     * The network listener this server will open, for the exposure check: TCP and UDP listen on an address, a
     * unix socket only in the file system (none). Without a protocol-level login, only client certificates
     * ({@code TLS/ClientAuth: require}) authenticate.
     */
    java.util.List<io.sluice.core.pipeline.Exposure.Listener> listeners(String what) {
        if (s.address.transport() == HostPort.Transport.UNIX) {
            return java.util.List.of();
        }
        boolean certificates = s.tls != null && s.tls.clientAuth() == TlsSettings.ClientAuth.REQUIRE;
        return java.util.List.of(new io.sluice.core.pipeline.Exposure.Listener(
                what + " (" + s.address.transport().name().toLowerCase(java.util.Locale.ROOT) + ")", s.address.host(),
                s.address.port(), s.tls != null, certificates, null));
    }

    SocketServer(String id, Settings settings) {
        this.id = id;
        this.s = settings;
        this.tooLarge = "a message longer than MaxLineSize (" + settings.maxLineSize + " bytes) was cut";
        this.malformed = "not valid " + (settings.syslog == null ? "" : settings.syslog.name().toLowerCase(java.util.Locale.ROOT))
                + " syslog; kept as payload with syslog_error set";
    }

    /**
     * Binds the socket, so that a port in use (or a unix path that cannot be made) stops the start.
     *
     * @throws IOException naming the address
     */
    void open(ConsumerContext ctx) throws IOException {
        if (listener != null) {
            return;
        }
        if (takeParked()) {
            ctx.log().info(id + ": listening on " + s.address + (s.tls == null ? "" : " (TLS)")
                    + ", on the socket of the consumer it replaces");
            return;
        }
        try {
            if (s.address.transport() == HostPort.Transport.UDP) {
                DatagramChannel ch = DatagramChannel.open();
                listener = ch;
                ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                ch.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
                ch.bind(s.address.socketAddress());
            } else {
                int backlog = Math.max(128, Math.min(s.maxConnections, 4096));
                ServerSocketChannel server;
                if (s.address.transport() == HostPort.Transport.UNIX) {
                    Path path = Path.of(s.address.path());
                    if (s.removeOldSocket && Files.exists(path)) {
                        ctx.log().warn(id + ": removing old socket file " + path);
                        Files.delete(path);
                    }
                    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                    listener = server;
                    server.bind(s.address.socketAddress(), backlog);
                    try {
                        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(FileModes.rwx(s.permissions)));
                    } catch (UnsupportedOperationException | IllegalArgumentException e) {
                        ctx.log().warn(id + ": cannot set Permissions " + s.permissions + " on " + path + ": " + e.getMessage());
                    }
                } else {
                    server = ServerSocketChannel.open();
                    listener = server;
                    server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                    server.bind(s.address.socketAddress(), backlog);
                }
                server.configureBlocking(false);
            }
            parkAt = parkingAddress(((NetworkChannel) listener).getLocalAddress());
        } catch (IOException | RuntimeException e) {
            closeListener();
            throw new IOException("cannot listen on " + s.address + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()), e);
        }
        if (s.tls != null) {
            s.tls.logTo(ctx.log(), id);
        }
        ctx.log().info(id + ": listening on " + s.address + (s.tls == null ? "" : " (TLS)"));
    }

    /**
     * Takes the socket a consumer stopped under a reload's hold left on this address (see {@link ListenerHandover}):
     * bound all along, so no connection was refused and no datagram dropped in between.
     */
    private boolean takeParked() throws IOException {
        ListenerHandover.Address at = parkingAddress(s.address.socketAddress());
        NetworkChannel ch = switch (s.address.transport()) {
            case UDP -> ListenerHandover.take(at, DatagramChannel.class);
            case TCP -> ListenerHandover.take(at, ServerSocketChannel.class);
            case UNIX -> {
                ParkedUnixSocket u = ListenerHandover.take(at, ParkedUnixSocket.class);
                yield u == null ? null : u.channel();
            }
        };
        if (ch == null || !ch.isOpen()) {
            return false;
        }
        listener = ch;
        parkAt = at;
        return true;
    }

    /**
     * Where this server's socket is parked once bound at {@code bound}: the address asked for (0.0.0.0 stays
     * 0.0.0.0 whatever the socket reports, a unix path as configured) with the port bound; null for none.
     */
    private ListenerHandover.Address parkingAddress(java.net.SocketAddress bound) {
        java.net.SocketAddress asked = s.address.socketAddress();
        if (asked instanceof InetSocketAddress a && bound instanceof InetSocketAddress b && !a.isUnresolved()) {
            asked = new InetSocketAddress(a.getAddress(), b.getPort());
        }
        return ListenerHandover.at(s.address.transport().name().toLowerCase(java.util.Locale.ROOT), asked);
    }

    /**
     * Serves the socket until {@link #stop()}.
     *
     * @throws IOException when the listener was lost while the pipeline runs: the process must not stay up
     *     without it
     */
    void run(ConsumerContext ctx) throws Exception {
        if (stopped) {
            return;
        }
        open(ctx);
        serving = true;
        try {
            if (s.address.transport() == HostPort.Transport.UDP) {
                runUdp(ctx);
            } else {
                StreamLoop l;
                try {
                    l = new StreamLoop(this, ctx, (ServerSocketChannel) listener);
                } catch (IOException | NullPointerException e) {
                    if (stopped) {
                        return;
                    }
                    throw new IOException("listener on " + s.address + " lost: " + e, e);
                }
                loop = l;
                l.serve();
            }
        } finally {
            serving = false;
            closeListener();
            report(ctx.log());
        }
    }

    private void runUdp(ConsumerContext ctx) throws IOException, InterruptedException {
        DatagramChannel ch = (DatagramChannel) listener;
        ch.configureBlocking(false);
        Selector sel = Selector.open();
        udpSelector = sel;
        ch.register(sel, SelectionKey.OP_READ);
        Session session = new Session(ctx);
        Framer framer = newFramer(s.readBufferSize);
        ByteBuffer datagram = ByteBuffer.allocate(65536);
        try {
            while (!stopped && ctx.isActive()) {
                sel.select(200);
                sel.selectedKeys().clear();
                if (!ch.isOpen()) {
                    if (stopped) {
                        break;
                    }
                    throw new IOException(id + ": the socket on " + s.address + " was closed");
                }
                java.net.SocketAddress from;
                while ((from = ch.receive(datagram.clear())) != null) {
                    session.now = Clock.epochNanos();
                    session.peer = from;
                    // A datagram is a whole message (or several lines): its end ends the last frame.
                    framer.feed(datagram.array(), 0, datagram.position(), session);
                    framer.finish(session);
                }
                session.flush();
            }
        } catch (java.nio.channels.ClosedChannelException e) {
            if (!stopped) {
                throw new IOException(id + ": the socket on " + s.address + " was closed", e);
            }
        } finally {
            session.flush();
            session.discard();
            truncated.addAndGet(framer.truncated());
            badHeaders.addAndGet(framer.badHeaders());
            lines.addAndGet(session.lines);
            if (session.parser != null) {
                syslogErrors.addAndGet(session.parser.errors());
            }
            sel.close();
            udpSelector = null;
        }
    }

    /** A framer for one connection (or the UDP socket); {@code initialSize} 0: the caller lends buffers. */
    Framer newFramer(int initialSize) {
        return new Framer(s.mode, s.delimiter, s.offset, s.size, s.maxLineSize, initialSize);
    }

    /**
     * Fills {@code m} from one frame: the payload (or the parsed syslog fields and MSG), the time, the truncated
     * flag. A cut frame is counted too large, a line the syslog parser rejects malformed.
     */
    void fill(Message m, byte[] buf, int off, int len, boolean cut, long now, SyslogParser parser,
            ConsumerContext ctx, Object peer) {
        m.setTimestamp(now);
        if (parser != null) {
            if (!parser.parse(buf, off, len, m) && !cut) {
                ctx.reject(Rejection.MALFORMED, peer, malformed);
            }
            if (!s.metadata) {
                m.metadata().clear();
            }
        } else {
            m.setPayload(buf, off, len);
        }
        if (cut) {
            m.metadata().set(TRUNCATED, 0, TRUNCATED.length, TRUE, 0, TRUE.length, Metadata.BOOLEAN);
            ctx.reject(Rejection.TOO_LARGE, peer, tooLarge);
        }
    }

    private void report(Log log) {
        if (truncated.get() > 0) {
            log.warn(id + ": " + truncated.get() + " lines longer than MaxLineSize were cut (flagged truncated)");
        }
        if (badHeaders.get() > 0) {
            log.warn(id + ": " + badHeaders.get() + " frames had a length header that did not parse; kept as lines");
        }
        if (unterminated.get() > 0) {
            log.info(id + ": " + unterminated.get() + " connections ended in the middle of a line; the partial line was kept");
        }
        if (syslogErrors.get() > 0) {
            log.warn(id + ": " + syslogErrors.get() + " lines were not valid syslog; kept as payload with syslog_error set");
        }
    }

    /** Stops serving: the loop passes on what it read, closes every connection and the listener. */
    void stop() {
        stopped = true;
        StreamLoop l = loop;
        if (l != null) {
            l.wakeup();
        }
        Selector sel = udpSelector;
        if (sel != null) {
            sel.wakeup();
        }
        if (!serving) {
            closeListener(); // opened, but the pipeline stopped before serving (another plugin could not start)
        }
    }

    /** Whether the socket is bound and served (or about to be): false once the listener was lost. */
    boolean isReady() {
        java.nio.channels.Channel l = listener;
        StreamLoop sl = loop;
        return l != null && l.isOpen() && (sl == null || sl.isHealthy());
    }

    /** Closes the socket, or under a reload's hold parks it, still bound, for the consumer that replaces this one. */
    void closeListener() {
        java.nio.channels.Channel l = listener;
        listener = null;
        if (l != null) {
            boolean unix = s.address.transport() == HostPort.Transport.UNIX;
            if (l.isOpen() && ListenerHandover.park(parkAt, unix
                    ? new ParkedUnixSocket((ServerSocketChannel) l, Path.of(s.address.path())) : l)) {
                return;
            }
            closeQuietly(l);
            if (s.address.transport() == HostPort.Transport.UNIX) {
                try {
                    Files.deleteIfExists(Path.of(s.address.path()));
                } catch (IOException ignored) {
                    // Best effort: RemoveOldSocket clears it at the next start.
                }
            }
        }
    }

    /** A parked unix socket: its file goes when it is closed, as when its server closes it. */
    private record ParkedUnixSocket(ServerSocketChannel channel, Path path) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            channel.close();
            Files.deleteIfExists(path);
        }
    }

    /** The listening channel, for tests that take it away. */
    java.nio.channels.Channel listenerForTest() {
        return listener;
    }

    static void closeQuietly(java.nio.channels.Channel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // Closing; nothing to do.
        }
    }

    /** The UDP socket's batch under construction; published from the consumer's thread, which may wait. */
    private final class Session implements Framer.Sink {
        private final ConsumerContext ctx;
        final SyslogParser parser;
        private Batch batch;
        long now;
        long lines;
        Object peer;

        Session(ConsumerContext ctx) {
            this.ctx = ctx;
            this.parser = s.syslog == null ? null : new SyslogParser(s.syslog);
        }

        @Override
        public void frame(byte[] buf, int off, int len, boolean cut) throws InterruptedException {
            if (len == 0 && s.skipEmpty) {
                return;
            }
            if (batch == null) {
                batch = ctx.newBatch();
            }
            fill(batch.add(), buf, off, len, cut, now, parser, ctx, peer);
            lines++;
            if (batch.isFull()) {
                flush();
            }
        }

        void flush() throws InterruptedException {
            Batch b = batch;
            if (b != null) {
                batch = null;
                ctx.publish(b);
            }
        }

        /** A batch left over when publishing was interrupted goes back to the pool. */
        void discard() {
            if (batch != null) {
                batch.release();
                batch = null;
            }
        }
    }
}

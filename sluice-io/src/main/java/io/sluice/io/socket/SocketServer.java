package io.sluice.io.socket;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Clock;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The listening side shared by {@link SocketConsumer} and {@link Syslogd}: binds TCP, UDP or a unix stream
 * socket, reads each stream connection on a thread of its own with blocking reads, frames, parses and
 * publishes in batches.
 *
 * <p>Backpressure is the blocking itself: while {@link ConsumerContext#publish} waits for room, the
 * connection's thread does not read, the kernel's receive buffer fills and TCP closes the sender's window.
 * Plain blocking channels were chosen over Netty because each connection is a sequential read-frame-publish
 * loop whose cost is the copying, not the I/O multiplexing, and the blocking publish has to stop the
 * reading anyway; no dependency is needed and unix sockets come with the JDK (16+).
 */
final class SocketServer {
    /** What one server does. */
    static final class Settings {
        Address address;
        Framer.Mode mode = Framer.Mode.DELIMITER;
        byte[] delimiter = {'\n'};
        int offset;
        int size = 1;
        int maxLineSize = 1 << 20;
        int readBufferSize = 256 * 1024;
        /** Null: the frame is the payload. */
        SyslogParser.Rfc syslog;
        boolean metadata = true;
        boolean skipEmpty;
        byte[] acknowledge;
        String permissions = "0770";
        boolean removeOldSocket = true;
        long reconnectAfterMs = 2000;
        long ackTimeoutMs = 1000;
    }

    static final byte[] TRUNCATED = "truncated".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "true".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final String id;
    private final Settings s;
    private final Set<java.nio.channels.Channel> open = ConcurrentHashMap.newKeySet();
    private final Set<Thread> readers = ConcurrentHashMap.newKeySet();
    private final AtomicLong lines = new AtomicLong();
    private final AtomicLong truncated = new AtomicLong();
    private final AtomicLong badHeaders = new AtomicLong();
    private final AtomicLong unterminated = new AtomicLong();
    private final AtomicLong syslogErrors = new AtomicLong();
    private final AtomicLong connections = new AtomicLong();
    private volatile boolean stopped;
    private volatile java.nio.channels.Channel listener;
    private volatile Selector selector;
    private volatile java.net.SocketAddress boundAddress;

    SocketServer(String id, Settings settings) {
        this.id = id;
        this.s = settings;
    }

    /** Listens and reads until {@link #stop()}; re-binds after failures, as Gollum does. */
    void run(ConsumerContext ctx) throws InterruptedException {
        Log log = ctx.log();
        while (!stopped && ctx.isActive()) {
            try {
                if (s.address.protocol() == Address.Protocol.UDP) {
                    runUdp(ctx);
                } else {
                    runStream(ctx);
                }
            } catch (ClosedChannelException e) {
                // stop() closed the listener.
            } catch (IOException e) {
                if (stopped || !ctx.isActive()) {
                    break;
                }
                log.error(id + ": cannot listen on " + s.address + ": " + e + "; retrying in " + s.reconnectAfterMs + " ms");
                Thread.sleep(s.reconnectAfterMs);
            } finally {
                closeListener();
            }
        }
        for (Thread t : readers) {
            t.join(TimeUnit.SECONDS.toMillis(5));
        }
        report(log);
    }

    private void runStream(ConsumerContext ctx) throws IOException {
        ServerSocketChannel server;
        if (s.address.protocol() == Address.Protocol.UNIX) {
            Path path = Path.of(s.address.path());
            if (s.removeOldSocket && Files.exists(path)) {
                ctx.log().warn(id + ": removing old socket file " + path);
                Files.delete(path);
            }
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            listener = server;
            server.bind(s.address.socketAddress());
            try {
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(rwx(s.permissions)));
            } catch (UnsupportedOperationException | IllegalArgumentException e) {
                ctx.log().warn(id + ": cannot set Permissions " + s.permissions + " on " + path + ": " + e.getMessage());
            }
        } else {
            server = ServerSocketChannel.open();
            listener = server;
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(s.address.socketAddress(), 128);
        }
        boundAddress = server.getLocalAddress();
        ctx.log().info(id + ": listening on " + s.address);
        while (!stopped && ctx.isActive()) {
            SocketChannel ch = server.accept();
            if (s.address.protocol() == Address.Protocol.TCP) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
            open.add(ch);
            connections.incrementAndGet();
            Thread t = new Thread(() -> readConnection(ctx, ch), "consumer-" + id + "-conn-" + connections.get());
            t.setDaemon(true);
            readers.add(t);
            t.start();
        }
    }

    private void readConnection(ConsumerContext ctx, SocketChannel ch) {
        Session session = new Session(ctx);
        Framer framer = newFramer();
        ByteBuffer ack = s.acknowledge == null ? null : ByteBuffer.wrap(s.acknowledge);
        try {
            while (true) {
                ByteBuffer target = framer.readTarget();
                int free = target.remaining();
                int n = ch.read(target);
                if (n < 0) {
                    break;
                }
                session.now = Clock.epochNanos();
                framer.drain(session);
                if (n < free) {
                    // Nothing more is waiting: hand over what we have rather than wait for a full batch.
                    session.flush();
                    if (ack != null) {
                        ack.clear();
                        while (ack.hasRemaining()) {
                            ch.write(ack);
                        }
                    }
                }
            }
            framer.finish(session);
        } catch (ClosedChannelException e) {
            // Shutdown closed the connection.
        } catch (IOException e) {
            if (!stopped) {
                ctx.log().info(id + ": connection from " + remote(ch) + " ended: " + e.getMessage());
            }
            try {
                framer.finish(session);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                session.flush();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            session.discard();
            count(framer, session);
            open.remove(ch);
            closeQuietly(ch);
            readers.remove(Thread.currentThread());
        }
    }

    private void runUdp(ConsumerContext ctx) throws IOException, InterruptedException {
        DatagramChannel ch = DatagramChannel.open();
        listener = ch;
        ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        ch.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
        ch.bind(s.address.socketAddress());
        boundAddress = ch.getLocalAddress();
        ch.configureBlocking(false);
        Selector sel = Selector.open();
        selector = sel;
        ch.register(sel, SelectionKey.OP_READ);
        ctx.log().info(id + ": listening on " + s.address);
        Session session = new Session(ctx);
        Framer framer = newFramer();
        ByteBuffer datagram = ByteBuffer.allocate(65536);
        try {
            while (!stopped && ctx.isActive()) {
                sel.select(200);
                sel.selectedKeys().clear();
                while (ch.receive(datagram.clear()) != null) {
                    session.now = Clock.epochNanos();
                    // A datagram is a whole message (or several lines): its end ends the last frame.
                    framer.feed(datagram.array(), 0, datagram.position(), session);
                    framer.finish(session);
                }
                session.flush();
            }
        } finally {
            session.flush();
            session.discard();
            count(framer, session);
            sel.close();
            selector = null;
        }
    }

    private Framer newFramer() {
        return new Framer(s.mode, s.delimiter, s.offset, s.size, s.maxLineSize, s.readBufferSize);
    }

    private void count(Framer framer, Session session) {
        truncated.addAndGet(framer.truncated());
        badHeaders.addAndGet(framer.badHeaders());
        if (s.address.protocol() != Address.Protocol.UDP) {
            unterminated.addAndGet(framer.unterminated());
        }
        lines.addAndGet(session.lines);
        if (session.parser != null) {
            syslogErrors.addAndGet(session.parser.errors());
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

    /** Closes the listener and every connection, which ends the blocked reads. */
    void stop() {
        stopped = true;
        closeListener();
        Selector sel = selector;
        if (sel != null) {
            sel.wakeup();
        }
        for (java.nio.channels.Channel c : open) {
            closeQuietly(c);
        }
    }

    private void closeListener() {
        java.nio.channels.Channel l = listener;
        listener = null;
        if (l != null) {
            closeQuietly(l);
            if (s.address.protocol() == Address.Protocol.UNIX) {
                try {
                    Files.deleteIfExists(Path.of(s.address.path()));
                } catch (IOException ignored) {
                    // Best effort: RemoveOldSocket clears it at the next start.
                }
            }
        }
    }

    /** The address actually bound (port 0 resolved), or null before binding. */
    java.net.SocketAddress boundAddress() {
        return boundAddress;
    }

    long lines() {
        return lines.get();
    }

    long truncated() {
        return truncated.get();
    }

    long badHeaders() {
        return badHeaders.get();
    }

    long unterminated() {
        return unterminated.get();
    }

    long syslogErrors() {
        return syslogErrors.get();
    }

    private static String remote(SocketChannel ch) {
        try {
            return String.valueOf(ch.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    private static void closeQuietly(java.nio.channels.Channel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // Closing during shutdown; nothing to do.
        }
    }

    /** "0770" to "rwxrwx---". */
    static String rwx(String octal) {
        int mode = Integer.parseInt(octal, 8);
        StringBuilder b = new StringBuilder(9);
        for (int shift = 6; shift >= 0; shift -= 3) {
            int bits = (mode >> shift) & 7;
            b.append((bits & 4) != 0 ? 'r' : '-').append((bits & 2) != 0 ? 'w' : '-').append((bits & 1) != 0 ? 'x' : '-');
        }
        return b.toString();
    }

    /** One connection's (or the UDP socket's) batch under construction. */
    private final class Session implements Framer.Sink {
        private final ConsumerContext ctx;
        final SyslogParser parser;
        private Batch batch;
        long now;
        long lines;

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
            Message m = batch.add();
            m.setTimestamp(now);
            if (parser != null) {
                parser.parse(buf, off, len, m);
                if (!s.metadata) {
                    m.metadata().clear();
                }
            } else {
                m.setPayload(buf, off, len);
            }
            if (cut) {
                m.metadata().set(TRUNCATED, 0, TRUNCATED.length, TRUE, 0, TRUE.length, Metadata.BOOLEAN);
            }
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

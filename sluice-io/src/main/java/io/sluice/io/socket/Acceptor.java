package io.sluice.io.socket;

import io.sluice.core.net.HostPort;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Rejection;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Accepts the connections of a {@link StreamLoop}'s listener and registers them with its selector, up to
 * {@code MaxConnections} open at once: one more is closed at once and counted busy. When accepting fails (out of
 * file descriptors and the like) the listener stays and accepting pauses for a moment. Used by the loop's thread.
 */
final class Acceptor {
    /** Connections accepted per selector event, so that a flood of them does not starve the others. */
    private static final int PER_ROUND = 256;

    private final SocketServer server;
    private final SocketServer.Settings s;
    private final ConsumerContext ctx;
    private final ServerSocketChannel listener;
    private final Selector selector;
    private final SelectionKey key;
    private final TlsBufferPool tlsPool;
    private final long retryNanos;
    private final String busyDetail;
    private int open;
    private long pausedUntil;

    /**
     * @param tlsPool    the TLS buffers of the loop, or null: connections are plain
     * @param retryNanos how long accepting pauses after a failure
     */
    Acceptor(SocketServer server, ConsumerContext ctx, ServerSocketChannel listener, Selector selector,
            TlsBufferPool tlsPool, long retryNanos) throws IOException {
        this.server = server;
        this.s = server.s;
        this.ctx = ctx;
        this.listener = listener;
        this.selector = selector;
        this.key = listener.register(selector, SelectionKey.OP_ACCEPT);
        this.tlsPool = tlsPool;
        this.retryNanos = retryNanos;
        this.busyDetail = "MaxConnections (" + s.maxConnections + ") reached; connection closed";
    }

    /** Whether the selector's {@code k} is the listener's. */
    boolean owns(SelectionKey k) {
        return k == key;
    }

    /** Accepts what the listener has, each connection registered for reading with a {@link StreamConnection}. */
    void accept() {
        String id = server.id;
        for (int i = 0; i < PER_ROUND; i++) {
            SocketChannel ch;
            try {
                ch = listener.accept();
            } catch (ClosedChannelException e) {
                return; // the loop sees the listener closed
            } catch (IOException e) {
                ctx.log().limited(Log.ERROR, id + ": accept", id + ": cannot accept on " + s.address + ": " + e.getMessage());
                key.interestOps(0);
                pausedUntil = System.nanoTime() + retryNanos;
                return;
            }
            if (ch == null) {
                return;
            }
            String peer = remote(ch);
            if (open >= s.maxConnections) {
                ctx.reject(Rejection.BUSY, peer, busyDetail); // counted before the peer can see the close
                SocketServer.closeQuietly(ch);
                continue;
            }
            try {
                ch.configureBlocking(false);
                if (s.address.transport() == HostPort.Transport.TCP) {
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                }
                StreamConnection c = new StreamConnection(ch, peer, server.newFramer(0));
                if (tlsPool != null) {
                    c.tls = new TlsStream(s.tls.newEngine(null, 0), tlsPool);
                }
                c.lastProgress = System.nanoTime();
                c.key = ch.register(selector, SelectionKey.OP_READ, c);
                open++;
                ctx.stats().addConnections(1);
            } catch (IOException e) {
                SocketServer.closeQuietly(ch);
            }
        }
    }

    /** Whether accepting pauses after a failure. */
    boolean paused() {
        return pausedUntil != 0;
    }

    /** Between rounds: accepting resumes once its pause is over. */
    void resumeWhenDue() {
        if (pausedUntil != 0 && System.nanoTime() - pausedUntil >= 0) {
            pausedUntil = 0;
            key.interestOps(SelectionKey.OP_ACCEPT);
        }
    }

    /** A connection accepted here was closed. */
    void closed() {
        open--;
        ctx.stats().addConnections(-1);
    }

    private static String remote(SocketChannel ch) {
        try {
            String a = String.valueOf(ch.getRemoteAddress());
            return a.isEmpty() ? "unix socket peer" : a;
        } catch (IOException e) {
            return "?";
        }
    }
}

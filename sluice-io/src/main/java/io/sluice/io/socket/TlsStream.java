package io.sluice.io.socket;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * TLS on one non-blocking connection of the {@link StreamLoop}: an {@link SSLEngine} driven by the loop's thread,
 * which reads ciphertext, unwraps it into the buffer the framer reads (or, when that has less room than a record,
 * into a buffer of this connection's), answers the handshake, and writes close_notify at the end. Nothing blocks:
 * a handshake step that needs the peer returns and goes on when the selector says the socket is ready; delegated
 * tasks (certificate checks) run inline, on the loop, because they are short and the loop owns the connection.
 *
 * <p>Buffers: a connection holds a ciphertext and a plaintext buffer only while it needs them (handshaking, or a
 * partial record or undelivered plaintext left over); an established connection with nothing pending gives them
 * back to the loop's {@link TlsBufferPool}, so idle TLS connections, like plain ones, hold no buffer. Writes (handshake,
 * acknowledgements, close_notify) go through one buffer shared by the loop; only what the socket does not take
 * at once is copied into the connection.
 */
final class TlsStream {
    /** The engine refused what the peer sent (a failed handshake, a bad record). */
    static final class Failure extends IOException {
        final boolean handshake;

        Failure(SSLException cause, boolean handshake) {
            super(cause.getMessage(), cause);
            this.handshake = handshake;
        }
    }

    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    private final SSLEngine engine;
    private final TlsBufferPool pool;
    /** Ciphertext read and not unwrapped yet, in write mode; null while the connection holds no buffers. */
    private ByteBuffer netIn;
    /** Plaintext unwrapped and not handed out yet, in write mode; null with {@link #netIn}. */
    private ByteBuffer appIn;
    /** Ciphertext the socket did not take yet, in read mode; null when everything was written. */
    private ByteBuffer pendingOut;
    /** The last unwrap needs more ciphertext than {@link #netIn} holds. */
    private boolean underflow = true;
    private boolean established;
    private boolean inboundDone;

    TlsStream(SSLEngine engine, TlsBufferPool pool) throws SSLException {
        this.engine = engine;
        this.pool = pool;
        engine.beginHandshake();
    }

    /** Whether the handshake completed. */
    boolean established() {
        return established;
    }

    /** Whether the connection holds its buffers (reserved by the loop). */
    boolean holdsBuffers() {
        return netIn != null;
    }

    /** Lends the connection a buffer pair (from {@link TlsBufferPool}); the loop has reserved it. */
    void lend(ByteBuffer[] pair) {
        netIn = pair[0];
        appIn = pair[1];
    }

    /**
     * Gives the buffer pair back when nothing is pending in it (or when {@code always}, at close).
     *
     * @return the pair, for the loop to pool or drop (and unreserve), or null when kept
     */
    ByteBuffer[] reclaim(boolean always) {
        if (netIn == null || !always && (!established || netIn.position() > 0 || appIn.position() > 0
                || handshakeStep())) {
            return null;
        }
        ByteBuffer[] pair = {netIn, appIn};
        netIn = null;
        appIn = null;
        underflow = true;
        return pair;
    }

    /** Whether the engine has work that needs no bytes from the peer (its TLS 1.3 session ticket, a task). */
    private boolean handshakeStep() {
        SSLEngineResult.HandshakeStatus hs = engine.getHandshakeStatus();
        return hs == SSLEngineResult.HandshakeStatus.NEED_TASK || hs == SSLEngineResult.HandshakeStatus.NEED_WRAP;
    }

    /**
     * Whether there is work the selector will not report: plaintext not handed out, whole records not unwrapped,
     * a handshake step of the engine's own. The loop then serves the connection again without waiting.
     */
    boolean hasBuffered() {
        if (inboundDone || pendingOut != null) {
            return false;
        }
        return netIn != null && (appIn.position() > 0 || netIn.position() > 0 && !underflow) || handshakeStep();
    }

    /** Whether ciphertext waits for the socket to take it (the loop then asks for {@code OP_WRITE}). */
    boolean wantsWrite() {
        return pendingOut != null;
    }

    /**
     * Reads plaintext into {@code dst}: hands out what was unwrapped before, then reads and unwraps records and
     * drives the handshake until {@code dst} is full or the socket has nothing more now.
     *
     * @return bytes put into {@code dst}; -1 when the peer closed (close_notify or end of stream) and nothing
     *     is left
     * @throws Failure when the engine refuses the peer's bytes (the alert is sent first, if the socket takes it)
     */
    int read(SocketChannel ch, ByteBuffer dst) throws IOException {
        int start = dst.position();
        try {
            while (true) {
                handOut(dst);
                if (!dst.hasRemaining() || inboundDone) {
                    break;
                }
                SSLEngineResult.HandshakeStatus hs = engine.getHandshakeStatus();
                if (hs == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                    runTasks();
                } else if (hs == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                    if (!wrap(ch, NOTHING)) {
                        break; // the socket is full: OP_WRITE resumes the handshake
                    }
                } else if (netIn.position() > 0 && !underflow) {
                    unwrap(dst);
                } else if (!fill(ch)) {
                    break;
                }
            }
        } catch (SSLException e) {
            sendAlert(ch);
            throw new Failure(e, !established);
        }
        int n = dst.position() - start;
        return n == 0 && inboundDone && appIn.position() == 0 ? -1 : n;
    }

    /** Moves unwrapped plaintext into {@code dst}, as much as fits. */
    private void handOut(ByteBuffer dst) {
        if (appIn.position() == 0) {
            return;
        }
        appIn.flip();
        int n = Math.min(appIn.remaining(), dst.remaining());
        int limit = appIn.limit();
        appIn.limit(appIn.position() + n);
        dst.put(appIn);
        appIn.limit(limit);
        appIn.compact();
    }

    /**
     * Unwraps one record: straight into {@code dst} when it has room for any record (no copy), else into the
     * connection's plaintext buffer.
     */
    private void unwrap(ByteBuffer dst) throws SSLException {
        ByteBuffer into = appIn.position() == 0 && dst.remaining() >= pool.appSize ? dst : appIn;
        netIn.flip();
        SSLEngineResult r;
        try {
            r = engine.unwrap(netIn, into);
        } finally {
            netIn.compact();
        }
        finished(r);
        switch (r.getStatus()) {
            case BUFFER_UNDERFLOW:
                underflow = true;
                if (!netIn.hasRemaining()) {
                    netIn = grow(netIn, engine.getSession().getPacketBufferSize());
                }
                break;
            case BUFFER_OVERFLOW:
                if (into == appIn && appIn.position() == 0) {
                    appIn = grow(appIn, engine.getSession().getApplicationBufferSize());
                }
                break; // else the plaintext waits in appIn until dst has room
            case CLOSED:
                inboundDone = true; // the peer's close_notify
                break;
            default:
                if (r.bytesConsumed() == 0 && r.bytesProduced() == 0) {
                    underflow = true; // nothing to do with these bytes until more arrive
                }
        }
    }

    /**
     * A larger copy of {@code b} (write mode): the session asked for larger records than the pool's buffers, which
     * the JDK does only when the peer negotiated it. Such a buffer is not pooled afterwards.
     */
    private static ByteBuffer grow(ByteBuffer b, int size) {
        b.flip();
        return ByteBuffer.allocate(Math.max(size, b.capacity() * 2)).put(b);
    }

    /** Reads ciphertext; false when the socket has none now. */
    private boolean fill(SocketChannel ch) throws IOException {
        int n = ch.read(netIn);
        if (n < 0) {
            inboundDone = true;
            try {
                engine.closeInbound();
            } catch (SSLException truncated) {
                // The peer closed without close_notify, as many syslog senders do: what arrived is kept.
            }
            return true;
        }
        if (n == 0) {
            return false;
        }
        underflow = false;
        return true;
    }

    private void runTasks() {
        for (Runnable t; (t = engine.getDelegatedTask()) != null; ) {
            t.run();
        }
    }

    private void finished(SSLEngineResult r) {
        if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.FINISHED) {
            established = true;
        }
    }

    /**
     * Writes {@code src} (plaintext; empty for a handshake step) through the engine.
     *
     * @return false when the socket did not take everything: the rest waits for {@code OP_WRITE}
     */
    private boolean wrap(SocketChannel ch, ByteBuffer src) throws IOException {
        if (!flush(ch)) {
            return false;
        }
        while (true) {
            ByteBuffer out = pool.out;
            out.clear();
            SSLEngineResult r = engine.wrap(src, out);
            finished(r);
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                pool.out = ByteBuffer.allocate(Math.max(out.capacity() * 2, engine.getSession().getPacketBufferSize()));
                continue;
            }
            out.flip();
            ch.write(out);
            if (out.hasRemaining()) {
                pendingOut = ByteBuffer.allocate(out.remaining()).put(out).flip();
                return false;
            }
            if (!src.hasRemaining() || r.getStatus() == SSLEngineResult.Status.CLOSED
                    || r.bytesProduced() == 0 && r.bytesConsumed() == 0) {
                return true;
            }
        }
    }

    /** Writes ciphertext left over from before; false while some is still left. */
    boolean flush(SocketChannel ch) throws IOException {
        if (pendingOut == null) {
            return true;
        }
        ch.write(pendingOut);
        if (pendingOut.hasRemaining()) {
            return false;
        }
        pendingOut = null;
        return true;
    }

    /**
     * Writes plaintext (an acknowledgement): consumed whole once wrapped, even if part of its ciphertext waits for
     * the socket.
     *
     * @return false when earlier ciphertext still waits and {@code src} was not taken
     */
    boolean write(SocketChannel ch, ByteBuffer src) throws IOException {
        if (!flush(ch)) {
            return false;
        }
        try {
            wrap(ch, src);
        } catch (SSLException e) {
            throw new Failure(e, !established);
        }
        return true;
    }

    /** After a refused handshake: the engine's alert tells the peer why, if the socket takes it now. */
    private void sendAlert(SocketChannel ch) {
        try {
            if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                wrap(ch, NOTHING);
            }
        } catch (IOException | RuntimeException ignored) {
            // The connection is closed next anyway.
        }
    }

    /** Sends close_notify, if the socket takes it now: a closing connection does not wait for a slow peer. */
    void closeOutbound(SocketChannel ch) {
        try {
            engine.closeOutbound();
            if (flush(ch)) {
                wrap(ch, NOTHING);
            }
        } catch (IOException | RuntimeException ignored) {
            // The peer is gone or refused the handshake: nothing to tell it.
        }
    }
}

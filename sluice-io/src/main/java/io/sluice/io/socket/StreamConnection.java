package io.sluice.io.socket;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One accepted connection of a {@link StreamLoop}, served by the loop's thread: its channel and framer, whether it
 * is paused for memory or at its end, the acknowledgements it is owed, its TLS, and its own buffer.
 *
 * <p><b>Its buffer.</b> Reads go into the loop's shared buffer; only the unfinished end of a read moves to a buffer
 * of the connection's, sized to it ({@link #fit}): it grows towards {@code MaxLineSize} while a long line arrives
 * ({@link #roomToRead}) and shrinks back afterwards, and an idle connection holds none. Every byte of it is
 * reserved from the loop's {@link MemoryCredit}.
 */
final class StreamConnection {
    /** Smallest buffer a connection keeps for an unfinished frame. */
    private static final int OWN_MIN = 512;
    /** A connection's buffer up to this size is kept between reads; a larger one shrinks to fit what it holds. */
    private static final int OWN_KEEP = 4096;

    final SocketChannel ch;
    final String peer;
    final Framer framer;
    SelectionKey key;
    /** The connection's buffer for an unfinished frame (reserved from the budget), or null. */
    private byte[] own;
    private ByteBuffer ownView;
    boolean paused;
    /** Bytes of memory the paused connection waits for. */
    long needs;
    boolean eof;
    boolean closed;
    boolean ackThisRound;
    int acksOwed;
    private ByteBuffer ack;
    long readEpoch;
    long readNanos;
    long lastProgress;
    /** TLS on this connection, or null (plain). */
    TlsStream tls;
    /** In the loop's TLS queue: it has decrypted or whole encrypted bytes that no selector event will announce. */
    boolean tlsQueued;

    StreamConnection(SocketChannel ch, String peer, Framer framer) {
        this.ch = ch;
        this.peer = peer;
        this.framer = framer;
    }

    /**
     * Moves the unfinished end of what was read to the connection's buffer, made to fit it: grown, or shrunk back
     * after a long line, or none at all ({@code emptyView}, the loop's view of an empty array).
     */
    void fit(MemoryCredit credit, ByteBuffer emptyView) {
        Framer f = framer;
        int left = f.pending();
        int cap = own == null ? 0 : own.length;
        if (left == 0 && cap > OWN_KEEP) {
            dropOwn(credit);
            cap = 0;
        } else if (left > 0 && (cap < left || cap > Math.max(OWN_KEEP, 4L * left))) {
            dropOwn(credit);
            long pow2 = Long.highestOneBit(Math.max(left, OWN_MIN) - 1L) << 1;
            int size = (int) Math.min(Math.max(left, f.capacityLimit()), pow2);
            if (!credit.take(size)) {
                size = left;
                credit.take(size); // always granted: the bytes were held by the read's hold or the old buffer
            }
            own = new byte[size];
            ownView = ByteBuffer.wrap(own);
            cap = size;
        }
        if (cap == 0) {
            f.useBuffer(emptyView.array(), emptyView);
        } else {
            f.useBuffer(own, ownView);
        }
    }

    /** Gives the connection's buffer up (its reservation back to {@code credit}). */
    void dropOwn(MemoryCredit credit) {
        if (own != null) {
            credit.give(own.length);
            own = null;
            ownView = null;
        }
    }

    /**
     * Makes room for a long unfinished frame, read into the connection's own buffer: doubled when full.
     *
     * @return 0 when there is room, else the bytes of memory the connection must wait for
     */
    long roomToRead(MemoryCredit credit) {
        Framer f = framer;
        int cap = f.capacity();
        if (f.pending() < cap) {
            return 0;
        }
        int limit = f.capacityLimit();
        if (cap >= limit) {
            throw new IllegalStateException("a full buffer of " + cap + " bytes holds no frame");
        }
        int size = (int) Math.min(limit, 2L * cap);
        if (!credit.take(size)) {
            return size;
        }
        byte[] bigger = new byte[size];
        ByteBuffer view = ByteBuffer.wrap(bigger);
        f.useBuffer(bigger, view);
        dropOwn(credit);
        own = bigger;
        ownView = view;
        return 0;
    }

    /** Sets the selector interest: reading unless paused or ended, writing while something waits to go out. */
    void interest() {
        if (closed || !key.isValid()) {
            return;
        }
        boolean write = acksOwed > 0 || tls != null && tls.wantsWrite();
        int ops = (paused || eof ? 0 : SelectionKey.OP_READ) | (write ? SelectionKey.OP_WRITE : 0);
        if (key.interestOps() != ops) {
            key.interestOps(ops);
        }
    }

    /** Writes the acknowledgements owed ({@code Acknowledge}'s bytes each) as far as the socket takes them. */
    void writeAcks(byte[] acknowledge) throws IOException {
        while (acksOwed > 0) {
            if (ack == null) {
                ack = ByteBuffer.wrap(acknowledge);
            }
            if (tls != null) {
                if (!tls.write(ch, ack)) {
                    break; // earlier ciphertext still waits for the socket
                }
            } else {
                ch.write(ack);
                if (ack.hasRemaining()) {
                    break;
                }
            }
            ack.clear();
            acksOwed--;
        }
        interest();
    }
}

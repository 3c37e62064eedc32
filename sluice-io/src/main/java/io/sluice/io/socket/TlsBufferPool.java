package io.sluice.io.socket;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import javax.net.ssl.SSLEngine;

/**
 * The TLS buffers of one {@link StreamLoop}: a ciphertext and a plaintext buffer per connection that needs them
 * (see {@link TlsStream}), reused across connections and reserved from the loop's {@link MemoryCredit} while held
 * or pooled. Used by the loop's thread only.
 */
final class TlsBufferPool {
    /** Buffers kept for reuse beyond those in use; more go to the garbage collector (and the budget). */
    private static final int KEEP = 16;
    final int netSize;
    final int appSize;
    /** What one connection's pair costs. */
    final long bytes;
    private final ArrayDeque<ByteBuffer[]> free = new ArrayDeque<>();
    /** The shared buffer writes are wrapped into. */
    ByteBuffer out;

    /** @param probe an engine of the listener's settings, for the sizes of its packets and plaintext */
    TlsBufferPool(SSLEngine probe) {
        this.netSize = probe.getSession().getPacketBufferSize();
        this.appSize = probe.getSession().getApplicationBufferSize();
        this.bytes = (long) netSize + appSize;
        this.out = ByteBuffer.allocate(netSize);
    }

    /**
     * Lends {@code tls} its buffers: pooled ones, or new ones reserved from {@code credit}.
     *
     * @return false when the memory is spent: the connection waits for {@link #bytes}
     */
    boolean lend(TlsStream tls, MemoryCredit credit) {
        ByteBuffer[] pair = free.poll();
        if (pair == null) {
            if (!credit.take(bytes)) {
                return false;
            }
            pair = new ByteBuffer[] {ByteBuffer.allocate(netSize), ByteBuffer.allocate(appSize)};
        }
        tls.lend(pair);
        return true;
    }

    /**
     * Takes {@code tls}'s buffers back when nothing is pending in them (or {@code always}: closing); a pair the pool
     * has no room for goes to the garbage collector and its reservation back to {@code credit}.
     */
    void reclaim(TlsStream tls, boolean always, MemoryCredit credit) {
        ByteBuffer[] pair = tls.reclaim(always);
        if (pair != null && !offer(pair)) {
            credit.give(bytes);
        }
    }

    private boolean offer(ByteBuffer[] pair) {
        if (free.size() >= KEEP || pair[0].capacity() != netSize || pair[1].capacity() != appSize) {
            return false;
        }
        pair[0].clear();
        pair[1].clear();
        free.add(pair);
        return true;
    }

    /** Bytes held by pooled pairs (reserved by the loop until it ends). */
    long pooledBytes() {
        return free.size() * bytes;
    }
}

package io.sluice.io.socket;

import java.util.concurrent.TimeUnit;

/**
 * The deadlines of a {@link StreamLoop}'s connections: one that completes no message for {@code IdleTimeoutMs}
 * (idle, or trickling a line) is closed, and so is one whose TLS handshake does not complete within IdleTimeoutMs,
 * or {@link #HANDSHAKE_NANOS} when that is 0 (a half-open handshake must not hold a slot). Time the whole loop
 * spent waiting for the pipeline does not count against a connection.
 */
final class ConnectionTimeouts {
    /** How long a TLS handshake may take when IdleTimeoutMs is 0. */
    static final long HANDSHAKE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final long idleNanos;
    private final String idleDetail;
    /** The longest a TLS handshake may take; 0 without TLS. */
    private final long handshakeNanos;
    private final String handshakeDetail;
    /** How often connections are checked; 0: never. */
    private final long sweepNanos;
    private long nextSweep;

    /** @param tls whether connections speak TLS */
    ConnectionTimeouts(long idleTimeoutMs, boolean tls) {
        this.idleNanos = TimeUnit.MILLISECONDS.toNanos(idleTimeoutMs);
        this.idleDetail = "no complete message for " + idleTimeoutMs + " ms (IdleTimeoutMs); connection closed";
        this.handshakeNanos = !tls ? 0 : idleNanos > 0 ? idleNanos : HANDSHAKE_NANOS;
        this.handshakeDetail = "TLS handshake not completed within " + TimeUnit.NANOSECONDS.toMillis(handshakeNanos)
                + " ms; connection closed";
        this.sweepNanos = idleNanos > 0 ? idleNanos : handshakeNanos;
    }

    /** The longest the selector may wait (milliseconds) so that deadlines are checked in time, at most {@code max}. */
    long selectMillis(long max) {
        return sweepNanos > 0 ? Math.min(max, Math.max(1, TimeUnit.NANOSECONDS.toMillis(sweepNanos / 4))) : max;
    }

    /** Whether connections are due to be checked at {@code now} (nanoTime): a quarter of the deadline after the last. */
    boolean sweepDue(long now) {
        if (sweepNanos > 0 && now - nextSweep >= 0) {
            nextSweep = now + sweepNanos / 4;
            return true;
        }
        return false;
    }

    /**
     * Whether {@code c} missed its deadline at {@code now}, counting from its last progress or from when the loop
     * last stopped waiting for the pipeline ({@code unblockedAt}).
     *
     * @return the detail of its {@code timeout} rejection, or null when in time
     */
    String expired(StreamConnection c, long now, long unblockedAt) {
        boolean handshaking = c.tls != null && !c.tls.established();
        long limit = handshaking ? handshakeNanos : idleNanos;
        if (limit > 0 && now - Math.max(c.lastProgress, unblockedAt) > limit) {
            return handshaking ? handshakeDetail : idleDetail;
        }
        return null;
    }
}

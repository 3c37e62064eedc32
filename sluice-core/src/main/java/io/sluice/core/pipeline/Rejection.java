package io.sluice.core.pipeline;

import java.util.Locale;

/**
 * Why an input refused something a peer sent. Each is counted per plugin on {@code /metrics}
 * ({@code sluice_rejected_total{reason=...}}) and logged as a rate-limited WARN naming the peer, through
 * {@link ConsumerContext#reject}.
 */
public enum Rejection {
    /** Missing or wrong credentials, a failed handshake, or credentials not good for what was asked (an index). */
    AUTH,
    /** Bytes that do not parse: a malformed frame, request, line or event. */
    MALFORMED,
    /** More than a per-request, per-frame or per-line limit, or more than the memory budget could ever hold. */
    TOO_LARGE,
    /** The memory budget or a connection limit is spent: the peer is told to come back later. */
    BUSY,
    /** A peer too slow or idle for too long. */
    TIMEOUT;

    /** The label value on {@code /metrics}: the name in lower case. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}

package io.sluice.core.pipeline;

import java.io.IOException;

/**
 * Thrown by a producer when a retry can help and the server named the least time to wait before it (HTTP
 * {@code Retry-After}, gRPC {@code RetryInfo}): the pipeline retries under {@code Retry/*} as for any retryable
 * failure, but waits at least that long, since retrying sooner only earns the same answer.
 */
public class RetryLaterException extends IOException {
    private static final long serialVersionUID = 1L;
    private final long retryAfterMillis;

    /** A retryable failure described by {@code message}; the next attempt waits at least {@code retryAfterMillis}. */
    public RetryLaterException(String message, long retryAfterMillis) {
        super(message);
        this.retryAfterMillis = Math.max(0, retryAfterMillis);
    }

    /** The least time to wait before the next attempt, in milliseconds. */
    public long retryAfterMillis() {
        return retryAfterMillis;
    }
}

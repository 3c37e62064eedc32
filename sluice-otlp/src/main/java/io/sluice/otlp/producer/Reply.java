package io.sluice.otlp.producer;

/**
 * The outcome of one export request, classified by the transport's protocol rules: accepted (with the response
 * message, which may report a partial success), retryable (with the least delay the server asked for), or
 * permanent.
 */
final class Reply {
    final boolean ok;
    final boolean retryable;
    /** The least delay before a retry the server named (Retry-After, RetryInfo), or -1. */
    final long retryAfterMillis;
    /** What went wrong, for logs and the fallback reason; null when ok. */
    final String error;
    /** The response message (an Export*ServiceResponse) when ok; may be empty. */
    final byte[] body;

    private Reply(boolean ok, boolean retryable, long retryAfterMillis, String error, byte[] body) {
        this.ok = ok;
        this.retryable = retryable;
        this.retryAfterMillis = retryAfterMillis;
        this.error = error;
        this.body = body;
    }

    static Reply ok(byte[] body) {
        return new Reply(true, false, -1, null, body);
    }

    static Reply failed(boolean retryable, long retryAfterMillis, String error) {
        return new Reply(false, retryable, retryAfterMillis, error, null);
    }
}

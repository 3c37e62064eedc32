package io.sluice.hec.consumer;

import io.sluice.core.pipeline.Rejection;

/**
 * An answer computed while handling a request, written after the request's resources were released: Splunk's
 * status, the body, and the refusal to count (with its detail for the log), or null for none.
 */
record HecAnswer(HecStatus status, byte[] body, Rejection reason, String detail) {
    /** A refusal with the status's own body. */
    static HecAnswer refuse(HecStatus s, String detail) {
        return new HecAnswer(s, s.body(), s.rejection(), detail);
    }
}

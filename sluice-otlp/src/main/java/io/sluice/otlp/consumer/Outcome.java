package io.sluice.otlp.consumer;

import io.sluice.core.pipeline.Rejection;

/**
 * How one export request ended, in terms both transports map onto their own: a gRPC status code and an HTTP
 * status. {@code rejected} counts items refused inside an accepted request (OTLP's partial success).
 */
record Outcome(Code code, long rejected, String message) {
    /** The kinds of answer, each with its gRPC status code, HTTP status and the refusal counted on /metrics. */
    enum Code {
        OK(0, 200, null),
        INVALID(3, 400, Rejection.MALFORMED),
        TOO_LARGE(8, 413, Rejection.TOO_LARGE),
        BUSY(14, 503, Rejection.BUSY),
        UNAUTHENTICATED(16, 401, Rejection.AUTH),
        UNIMPLEMENTED(12, 404, Rejection.MALFORMED);

        final int grpc;
        final int http;
        final Rejection rejection;

        Code(int grpc, int http, Rejection rejection) {
            this.grpc = grpc;
            this.http = http;
            this.rejection = rejection;
        }

        /** A refused memory reservation: too large for the whole budget, or busy for now. */
        static Code of(Rejection refusal) {
            return refusal == Rejection.TOO_LARGE ? TOO_LARGE : BUSY;
        }
    }

    static final Outcome OK = new Outcome(Code.OK, 0, "");

    static Outcome refuse(Code code, String message) {
        return new Outcome(code, 0, message);
    }
}

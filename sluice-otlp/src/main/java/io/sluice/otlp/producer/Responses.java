package io.sluice.otlp.producer;

import java.nio.charset.StandardCharsets;

/**
 * Reads the few protobuf answers the exporter needs: the partial success of an {@code Export*ServiceResponse},
 * and the message and {@code RetryInfo} of a {@code google.rpc.Status} (gRPC's {@code grpc-status-details-bin},
 * OTLP/HTTP's error body). Answers are small and rare, so this reads with plain loops and allocates freely.
 */
final class Responses {
    static final String RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";

    private Responses() {
    }

    /** A partial success: the records or points the server rejected, and why. */
    record Partial(long rejected, String message) {
    }

    /** The partial success in an Export*ServiceResponse, or null when there is none (or nothing was rejected). */
    static Partial partialSuccess(byte[] body) {
        if (body == null) {
            return null;
        }
        Reader r = new Reader(body, 0, body.length);
        while (r.more()) {
            int tag = (int) r.varint();
            if (tag == (1 << 3 | 2)) {
                Reader p = r.sub();
                long rejected = 0;
                String message = "";
                while (p.more()) {
                    int t = (int) p.varint();
                    if (t == (1 << 3)) {
                        rejected = p.varint();
                    } else if (t == (2 << 3 | 2)) {
                        message = p.string();
                    } else {
                        p.skip(t & 7);
                    }
                }
                return rejected > 0 || !message.isEmpty() ? new Partial(rejected, message) : null;
            }
            r.skip(tag & 7);
        }
        return null;
    }

    /** The message (field 2) of a google.rpc.Status, or "" when it has none or does not parse. */
    static String statusMessage(byte[] status) {
        try {
            Reader r = new Reader(status, 0, status.length);
            while (r.more()) {
                int tag = (int) r.varint();
                if (tag == (2 << 3 | 2)) {
                    return r.string();
                }
                r.skip(tag & 7);
            }
        } catch (RuntimeException e) {
            // not a Status after all: no message
        }
        return "";
    }

    /** The delay of a RetryInfo among a google.rpc.Status's details, in milliseconds, or -1 when there is none. */
    static long retryDelayMillis(byte[] status) {
        try {
            Reader r = new Reader(status, 0, status.length);
            while (r.more()) {
                int tag = (int) r.varint();
                if (tag == (3 << 3 | 2)) {
                    long d = retryInfo(r.sub());
                    if (d >= 0) {
                        return d;
                    }
                } else {
                    r.skip(tag & 7);
                }
            }
        } catch (RuntimeException e) {
            // damaged details: as if there were none
        }
        return -1;
    }

    /** A google.protobuf.Any: the RetryInfo's delay when it is one, else -1. */
    private static long retryInfo(Reader any) {
        String type = null;
        Reader value = null;
        while (any.more()) {
            int tag = (int) any.varint();
            if (tag == (1 << 3 | 2)) {
                type = any.string();
            } else if (tag == (2 << 3 | 2)) {
                value = any.sub();
            } else {
                any.skip(tag & 7);
            }
        }
        if (!RETRY_INFO.equals(type)) {
            return -1;
        }
        long millis = 0;
        while (value != null && value.more()) {
            int tag = (int) value.varint();
            if (tag == (1 << 3 | 2)) { // retry_delay: google.protobuf.Duration
                Reader d = value.sub();
                long seconds = 0;
                long nanos = 0;
                while (d.more()) {
                    int t = (int) d.varint();
                    if (t == (1 << 3)) {
                        seconds = d.varint();
                    } else if (t == (2 << 3)) {
                        nanos = d.varint();
                    } else {
                        d.skip(t & 7);
                    }
                }
                millis = seconds * 1000 + nanos / 1_000_000;
            } else {
                value.skip(tag & 7);
            }
        }
        return Math.max(0, millis);
    }

    /** A cursor over protobuf bytes; throws IllegalArgumentException on damaged input. */
    private static final class Reader {
        private final byte[] b;
        private int p;
        private final int end;

        Reader(byte[] b, int off, int end) {
            this.b = b;
            this.p = off;
            this.end = end;
        }

        boolean more() {
            return p < end;
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (p >= end) {
                    throw new IllegalArgumentException("truncated varint");
                }
                byte x = b[p++];
                v |= (long) (x & 0x7F) << shift;
                if (x >= 0) {
                    return v;
                }
            }
            throw new IllegalArgumentException("varint too long");
        }

        Reader sub() {
            int len = (int) varint();
            if (len < 0 || len > end - p) {
                throw new IllegalArgumentException("truncated field");
            }
            Reader r = new Reader(b, p, p + len);
            p += len;
            return r;
        }

        String string() {
            Reader s = sub();
            return new String(b, s.p, s.end - s.p, StandardCharsets.UTF_8);
        }

        void skip(int wireType) {
            switch (wireType) {
                case 0:
                    varint();
                    break;
                case 1:
                    p += 8;
                    break;
                case 2:
                    sub();
                    break;
                case 5:
                    p += 4;
                    break;
                default:
                    throw new IllegalArgumentException("wire type " + wireType);
            }
            if (p > end) {
                throw new IllegalArgumentException("truncated field");
            }
        }
    }
}

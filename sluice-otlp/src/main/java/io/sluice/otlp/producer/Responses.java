package io.sluice.otlp.producer;

import io.sluice.otlp.codec.OtlpFormatException;
import io.sluice.otlp.codec.ProtoReader;
import java.nio.charset.StandardCharsets;

/**
 * Reads the few protobuf answers the exporter needs: the partial success of an {@code Export*ServiceResponse},
 * and the message and {@code RetryInfo} of a {@code google.rpc.Status} (gRPC's {@code grpc-status-details-bin},
 * OTLP/HTTP's error body), with the codec's {@link ProtoReader}. Answers are small and rare: this allocates freely.
 */
final class Responses {
    static final String RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";

    private Responses() {
    }

    /** A partial success: the records or points the server rejected, and why. */
    record Partial(long rejected, String message) {
    }

    /** The partial success in an Export*ServiceResponse, or null when there is none (or nothing was rejected). */
    static Partial partialSuccess(byte[] body) throws OtlpFormatException {
        if (body == null) {
            return null;
        }
        ProtoReader r = new ProtoReader().reset(body, 0, body.length);
        while (r.hasMore()) {
            int tag = r.readTag();
            if (tag == (1 << 3 | 2)) {
                r.enterMessage(tag);
                long rejected = 0;
                String message = "";
                while (r.hasMore()) {
                    int t = r.readTag();
                    if (t == (1 << 3)) {
                        rejected = r.readVarint();
                    } else if (t == (2 << 3 | 2)) {
                        message = string(r, t);
                    } else {
                        r.skip(t);
                    }
                }
                return rejected > 0 || !message.isEmpty() ? new Partial(rejected, message) : null;
            }
            r.skip(tag);
        }
        return null;
    }

    /** The message (field 2) of a google.rpc.Status, or "" when it has none or does not parse. */
    static String statusMessage(byte[] status) {
        try {
            ProtoReader r = new ProtoReader().reset(status, 0, status.length);
            while (r.hasMore()) {
                int tag = r.readTag();
                if (tag == (2 << 3 | 2)) {
                    return string(r, tag);
                }
                r.skip(tag);
            }
        } catch (OtlpFormatException e) {
            // not a Status after all: no message
        }
        return "";
    }

    /** The delay of a RetryInfo among a google.rpc.Status's details, in milliseconds, or -1 when there is none. */
    static long retryDelayMillis(byte[] status) {
        try {
            ProtoReader r = new ProtoReader().reset(status, 0, status.length);
            while (r.hasMore()) {
                int tag = r.readTag();
                if (tag == (3 << 3 | 2)) {
                    int old = r.enterMessage(tag);
                    long d = retryInfo(r);
                    r.leave(old);
                    if (d >= 0) {
                        return d;
                    }
                } else {
                    r.skip(tag);
                }
            }
        } catch (OtlpFormatException e) {
            // damaged details: as if there were none
        }
        return -1;
    }

    /** The google.protobuf.Any {@code any} is in: the RetryInfo's delay when it is one, else -1. */
    private static long retryInfo(ProtoReader any) throws OtlpFormatException {
        String type = null;
        int value = -1;
        while (any.hasMore()) {
            int tag = any.readTag();
            if (tag == (1 << 3 | 2)) {
                type = string(any, tag);
                continue;
            }
            if (tag == (2 << 3 | 2)) {
                value = any.position();
            }
            any.skip(tag);
        }
        if (!RETRY_INFO.equals(type)) {
            return -1;
        }
        long millis = 0;
        if (value >= 0) {
            any.position(value);
            int old = any.enter(any.readLength());
            while (any.hasMore()) {
                int tag = any.readTag();
                if (tag == (1 << 3 | 2)) { // retry_delay: google.protobuf.Duration
                    int o = any.enterMessage(tag);
                    long seconds = 0;
                    long nanos = 0;
                    while (any.hasMore()) {
                        int t = any.readTag();
                        if (t == (1 << 3)) {
                            seconds = any.readVarint();
                        } else if (t == (2 << 3)) {
                            nanos = any.readVarint();
                        } else {
                            any.skip(t);
                        }
                    }
                    any.leave(o);
                    millis = seconds * 1000 + nanos / 1_000_000;
                } else {
                    any.skip(tag);
                }
            }
            any.leave(old);
        }
        return Math.max(0, millis);
    }

    /** A length-delimited field (its tag read) as UTF-8 text. */
    private static String string(ProtoReader r, int tag) throws OtlpFormatException {
        int old = r.enterMessage(tag);
        String s = new String(r.buffer(), r.position(), r.limit() - r.position(), StandardCharsets.UTF_8);
        r.leave(old);
        return s;
    }
}

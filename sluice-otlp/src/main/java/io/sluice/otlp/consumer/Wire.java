package io.sluice.otlp.consumer;

import io.sluice.core.json.JsonWriter;
import io.sluice.otlp.codec.ProtoWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The few protobuf and JSON answers consumer.OTLP writes, encoded by hand (they are a handful of fields, and the
 * runtime has no protobuf library): Export responses with {@code partial_success}, {@code google.rpc.Status}, and
 * gRPC's {@code grpc-status-details-bin} carrying a {@code google.rpc.RetryInfo}. Tests check them against the
 * official generated classes.
 */
final class Wire {
    private Wire() {
    }

    static final byte[] EMPTY = new byte[0];
    static final byte[] JSON_EMPTY = "{}".getBytes(StandardCharsets.US_ASCII);
    private static final String RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo";

    /**
     * ExportLogsServiceResponse / ExportMetricsServiceResponse: empty, or {@code partial_success} (field 1) holding
     * the rejected count (field 1, int64) and an error message (field 2).
     */
    static byte[] exportResponse(long rejected, String message) {
        if (rejected == 0 && message.isEmpty()) {
            return EMPTY;
        }
        ProtoWriter out = new ProtoWriter(64);
        out.begin(1);
        if (rejected != 0) {
            out.varintField(1, rejected);
        }
        bytesField(out, 2, message);
        out.end();
        return Arrays.copyOf(out.buffer(), out.size());
    }

    /** The JSON form of {@link #exportResponse}: {@code {}} or {@code {"partialSuccess":{...}}} (int64 as a string). */
    static byte[] exportResponseJson(Signal signal, long rejected, String message) {
        if (rejected == 0 && message.isEmpty()) {
            return JSON_EMPTY;
        }
        JsonWriter w = new JsonWriter().beginObject().name("partialSuccess").beginObject();
        if (rejected != 0) {
            w.name(signal.rejectedJson).string(Long.toString(rejected));
        }
        w.name("errorMessage").string(message).endObject().endObject();
        return Arrays.copyOf(w.buffer(), w.length());
    }

    /**
     * google.rpc.Status {code = 1, message = 2, details = 3}, its details a google.protobuf.Any {type_url = 1,
     * value = 2} holding RetryInfo {retry_delay = 1: Duration {seconds = 1}} when retryAfterSeconds > 0.
     */
    static byte[] status(int code, String message, long retryAfterSeconds) {
        ProtoWriter out = new ProtoWriter(64);
        out.varintField(1, code);
        if (!message.isEmpty()) {
            bytesField(out, 2, message);
        }
        if (retryAfterSeconds > 0) {
            out.begin(3);
            bytesField(out, 1, RETRY_INFO_TYPE);
            out.begin(2);
            out.begin(1);
            out.varintField(1, retryAfterSeconds);
            out.end();
            out.end();
            out.end();
        }
        return Arrays.copyOf(out.buffer(), out.size());
    }

    /** google.rpc.Status as OTLP/HTTP JSON: {@code {"code":14,"message":"..."}}. */
    static byte[] statusJson(int code, String message) {
        JsonWriter w = new JsonWriter().beginObject().name("code").number(code).name("message").string(message);
        w.endObject();
        return Arrays.copyOf(w.buffer(), w.length());
    }

    private static void bytesField(ProtoWriter out, int field, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.bytesField(field, b, 0, b.length);
    }

    /**
     * grpc-message's value: percent-encoded UTF-8 as the gRPC spec asks (every byte outside printable ASCII, and
     * '%').
     */
    static String percentEncode(String message) {
        StringBuilder b = new StringBuilder(message.length());
        for (byte x : message.getBytes(StandardCharsets.UTF_8)) {
            int c = x & 0xFF;
            if (c >= 0x20 && c <= 0x7E && c != '%') {
                b.append((char) c);
            } else {
                b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return b.toString();
    }
}

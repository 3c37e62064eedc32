package io.sluice.otlp.consumer;

import io.sluice.core.json.JsonStrings;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

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
        ByteArrayOutputStream partial = new ByteArrayOutputStream();
        if (rejected != 0) {
            varintField(partial, 1, rejected);
        }
        bytesField(partial, 2, message.getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        bytesField(out, 1, partial.toByteArray());
        return out.toByteArray();
    }

    /** The JSON form of {@link #exportResponse}: {@code {}} or {@code {"partialSuccess":{...}}} (int64 as a string). */
    static byte[] exportResponseJson(Signal signal, long rejected, String message) {
        if (rejected == 0 && message.isEmpty()) {
            return JSON_EMPTY;
        }
        StringBuilder b = new StringBuilder("{\"partialSuccess\":{");
        if (rejected != 0) {
            b.append('"').append(signal.rejectedJson).append("\":\"").append(rejected).append("\",");
        }
        b.append("\"errorMessage\":");
        quote(b, message);
        return b.append("}}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** google.rpc.Status {code = 1, message = 2, details = 3 (a RetryInfo when retryAfterSeconds > 0)}. */
    static byte[] status(int code, String message, long retryAfterSeconds) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        varintField(out, 1, code);
        if (!message.isEmpty()) {
            bytesField(out, 2, message.getBytes(StandardCharsets.UTF_8));
        }
        if (retryAfterSeconds > 0) {
            bytesField(out, 3, retryInfoAny(retryAfterSeconds));
        }
        return out.toByteArray();
    }

    /** google.rpc.Status as OTLP/HTTP JSON: {@code {"code":14,"message":"..."}}. */
    static byte[] statusJson(int code, String message) {
        StringBuilder b = new StringBuilder("{\"code\":").append(code).append(",\"message\":");
        quote(b, message);
        return b.append('}').toString().getBytes(StandardCharsets.UTF_8);
    }

    /** google.protobuf.Any {type_url = 1, value = 2} holding RetryInfo {retry_delay = 1: Duration {seconds = 1}}. */
    private static byte[] retryInfoAny(long seconds) {
        ByteArrayOutputStream duration = new ByteArrayOutputStream();
        varintField(duration, 1, seconds);
        ByteArrayOutputStream retryInfo = new ByteArrayOutputStream();
        bytesField(retryInfo, 1, duration.toByteArray());
        ByteArrayOutputStream any = new ByteArrayOutputStream();
        bytesField(any, 1, RETRY_INFO_TYPE.getBytes(StandardCharsets.US_ASCII));
        bytesField(any, 2, retryInfo.toByteArray());
        return any.toByteArray();
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

    private static void quote(StringBuilder b, String s) {
        byte[] raw = s.getBytes(StandardCharsets.UTF_8);
        byte[] esc = new byte[JsonStrings.maxEscapedLength(raw.length)];
        int n = JsonStrings.escape(raw, 0, raw.length, esc, 0);
        b.append('"').append(new String(esc, 0, n, StandardCharsets.UTF_8)).append('"');
    }

    private static void varintField(ByteArrayOutputStream out, int field, long value) {
        varint(out, (long) field << 3);
        varint(out, value);
    }

    private static void bytesField(ByteArrayOutputStream out, int field, byte[] value) {
        varint(out, (long) field << 3 | 2);
        varint(out, value.length);
        out.write(value, 0, value.length);
    }

    private static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write((int) v);
    }
}

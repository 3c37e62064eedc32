package io.sluice.core.format;

import io.sluice.core.json.JsonScanner;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Modulator;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a formatter does with a message it cannot format: it is dropped to the plugin's fallback stream (never
 * thrown, never silently lost), the reason is put in its metadata and a process-wide counter rises. Writing the
 * reason allocates nothing: reasons are constants whose bytes are cached.
 */
public final class FormatErrors {
    /** Metadata key holding why the payload was not valid JSON. */
    public static final String JSON_ERROR = "json_error";
    /** Metadata key holding the byte offset of the JSON error, as a number. */
    public static final String JSON_ERROR_OFFSET = "json_error_offset";
    /** Metadata key holding why another formatter failed. */
    public static final String FORMAT_ERROR = "format_error";

    private static final byte[] JSON_ERROR_KEY = JSON_ERROR.getBytes(StandardCharsets.UTF_8);
    private static final byte[] JSON_OFFSET_KEY = JSON_ERROR_OFFSET.getBytes(StandardCharsets.UTF_8);
    private static final byte[] FORMAT_ERROR_KEY = FORMAT_ERROR.getBytes(StandardCharsets.UTF_8);
    private static final ConcurrentHashMap<String, byte[]> REASONS = new ConcurrentHashMap<>();
    private static final LongAdder INVALID_JSON = new LongAdder();
    private static final LongAdder FAILED = new LongAdder();

    private FormatErrors() {
    }

    /** Messages dropped because their JSON did not parse, since the process started. */
    public static long invalidJson() {
        return INVALID_JSON.sum();
    }

    /** Messages dropped because another formatter could not format them. */
    public static long failed() {
        return FAILED.sum();
    }

    /** Records a JSON error from {@code scanner} on the message and returns DROP. */
    static Modulator.Result invalidJson(Message m, JsonScanner scanner, byte[] digits) {
        INVALID_JSON.increment();
        Metadata md = m.metadata();
        byte[] reason = bytes(scanner.errorReason());
        md.set(JSON_ERROR_KEY, 0, JSON_ERROR_KEY.length, reason, 0, reason.length, Metadata.STRING);
        int n = writeInt(Math.max(0, scanner.errorOffset()), digits);
        md.set(JSON_OFFSET_KEY, 0, JSON_OFFSET_KEY.length, digits, digits.length - n, n, Metadata.NUMBER);
        return Modulator.Result.DROP;
    }

    /** Records a formatter failure (a constant reason) on the message and returns DROP. */
    static Modulator.Result failed(Message m, String reason) {
        FAILED.increment();
        byte[] r = bytes(reason);
        m.metadata().set(FORMAT_ERROR_KEY, 0, FORMAT_ERROR_KEY.length, r, 0, r.length, Metadata.STRING);
        return Modulator.Result.DROP;
    }

    private static byte[] bytes(String reason) {
        byte[] b = REASONS.get(reason);
        return b != null ? b : REASONS.computeIfAbsent(reason, r -> r.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes a non-negative int right-aligned at the end of {@code digits}; returns its length. */
    static int writeInt(int v, byte[] digits) {
        int at = digits.length;
        do {
            digits[--at] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v > 0);
        return digits.length - at;
    }
}

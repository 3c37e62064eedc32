package io.sluice.hec.consumer;

import io.sluice.core.json.JsonError;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonText;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Parses HEC request bodies into messages, straight from the bytes: an {@code /event} body (one or many
 * concatenated JSON events) or a {@code /raw} body (lines). Strings are copied, unescaped only when they hold
 * escapes; nested {@code event} objects are copied as their JSON text. Nothing is allocated per event.
 * <p>Mapping (the module README has the full contract): {@code event} → payload; {@code time} → timestamp;
 * {@code host}, {@code source}, {@code sourcetype}, {@code index} → metadata of those names; each
 * {@code fields} entry → a metadata field of its name and JSON kind. A metric event is the same: payload
 * {@code metric}, measurements as {@code metric_name:<name>} NUMBER fields. One instance per thread.
 * <p>Over 400 lines: it is the per-event hot path of consumer.HEC, one pass per endpoint (/event, /raw) over the
 * body with core's JsonScanner; the split-out parts (EpochSeconds, the answers) are what is not per byte.
 */
final class EventParser {
    static final byte[] K_HOST = "host".getBytes(StandardCharsets.US_ASCII);
    static final byte[] K_SOURCE = "source".getBytes(StandardCharsets.US_ASCII);
    static final byte[] K_SOURCETYPE = "sourcetype".getBytes(StandardCharsets.US_ASCII);
    static final byte[] K_INDEX = "index".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] K_EVENT = "event".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] K_TIME = "time".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] K_FIELDS = "fields".getBytes(StandardCharsets.US_ASCII);

    /** Query-string defaults of one request ({@code ?host=&source=&sourcetype=&index=}); null when absent. */
    static final class Defaults {
        byte[] host;
        byte[] source;
        byte[] sourcetype;
        byte[] index;

        boolean any() {
            return host != null || source != null || sourcetype != null || index != null;
        }

        /** Bytes each event's metadata gains from these defaults (keys and values), at most. */
        long bytesPerEvent() {
            return len(K_HOST, host) + len(K_SOURCE, source) + len(K_SOURCETYPE, sourcetype) + len(K_INDEX, index);
        }

        private static long len(byte[] key, byte[] value) {
            return value == null ? 0 : key.length + value.length;
        }
    }

    /** UTF-8 checked, as Splunk requires of an /event body. */
    private final JsonScanner scanner;
    private final JsonText keyText = new JsonText();
    private final JsonText text = new JsonText();
    /** The detail of {@link JsonError#TOO_DEEP}, with the limit. */
    private final String tooDeep;
    private final boolean eventRequired;
    /** The allowed indexes of the request being parsed (null: any). */
    private byte[][] indexes;

    private HecStatus error;
    private int invalidEvent;
    private String detail;

    /**
     * @param eventRequired Splunk's rule: an object without {@code event} is rejected (code 12); when false,
     *                      the whole object becomes the event (what Fluent Bit's Splunk_Send_Raw sends)
     */
    EventParser(int maxDepth, boolean eventRequired) {
        this.scanner = new JsonScanner(maxDepth, true);
        this.tooDeep = JsonError.TOO_DEEP.detail() + " " + maxDepth;
        this.eventRequired = eventRequired;
    }

    HecStatus error() {
        return error;
    }

    int invalidEvent() {
        return invalidEvent;
    }

    String detail() {
        return detail;
    }

    private boolean fail(HecStatus s, int event, String why) {
        error = s;
        invalidEvent = event;
        detail = why;
        return false;
    }

    /**
     * Parses an /event body; false with {@link #error()} set when an event is invalid or the collector refuses one
     * more (too many events, no memory for them).
     *
     * @param dflt    what events that do not set host, source, sourcetype or index get; null for nothing
     * @param indexes the indexes an event may name (after {@code dflt}), or null for any: another is code 7
     */
    boolean parseEvents(byte[] b, int off, int end, BatchCollector out, Defaults dflt, byte[][] indexes, long now) {
        error = null;
        this.indexes = indexes;
        int p = JsonScanner.ws(b, off, end);
        int n = 0;
        while (p < end) {
            if (!out.admit()) {
                return fail(out.refusal(), -1, out.refusalDetail());
            }
            p = parseEvent(b, p, end, out, dflt, now, n);
            if (p < 0) {
                return false;
            }
            n++;
            p = JsonScanner.ws(b, p, end);
        }
        return true;
    }

    /** One event object at p; returns the position after it, or -1. */
    private int parseEvent(byte[] b, int p, int end, BatchCollector out, Defaults dflt, long now, int n) {
        if (b[p] != '{') {
            fail(HecStatus.INVALID_DATA_FORMAT, n, "expected an event object");
            return -1;
        }
        int objStart = p;
        Message m = out.next();
        m.setTimestamp(now);
        boolean hasEvent = false;
        boolean blank = false;
        int iIndex = -1;
        p = JsonScanner.ws(b, p + 1, end);
        if (p < end && b[p] == '}') {
            p++;
        } else {
            while (true) {
                if (p >= end || b[p] != '"') {
                    return invalid(out, n, "expected a key");
                }
                int ks = p;
                p = scanner.skipString(b, p, end);
                if (p < 0) {
                    return invalid(out, n, scanError());
                }
                int ke = p - 1;
                p = JsonScanner.ws(b, p, end);
                if (p >= end || b[p] != ':') {
                    return invalid(out, n, "expected ':'");
                }
                p = JsonScanner.ws(b, p + 1, end);
                if (p >= end) {
                    return invalid(out, n, "unexpected end of data");
                }
                int klen = ke - ks - 1;
                int k = ks + 1;
                if (is(b, k, klen, K_EVENT)) {
                    hasEvent = true;
                    int vs = p;
                    byte c = b[p];
                    if (c == '"') {
                        p = scanner.skipString(b, p, end);
                        if (p < 0) {
                            return invalid(out, n, scanError());
                        }
                        byte[] t = text.of(scanner, b);
                        m.setPayload(t, text.offset(), text.length());
                        blank = text.length() == 0;
                    } else {
                        p = scanner.skipValue(b, p, end);
                        if (p < 0) {
                            return invalid(out, n, scanError());
                        }
                        if (c == 'n') {
                            blank = true; // "event": null
                        }
                        m.setPayload(b, vs, p - vs);
                    }
                } else if (is(b, k, klen, K_TIME)) {
                    p = parseTime(b, p, end, m);
                    if (p < 0) {
                        return invalid(out, n, "invalid time");
                    }
                } else if (is(b, k, klen, K_HOST) || is(b, k, klen, K_SOURCE) || is(b, k, klen, K_SOURCETYPE)
                        || is(b, k, klen, K_INDEX)) {
                    if (b[p] != '"') {
                        return invalid(out, n, new String(b, k, klen, StandardCharsets.UTF_8) + " must be a string");
                    }
                    p = scanner.skipString(b, p, end);
                    if (p < 0) {
                        return invalid(out, n, scanError());
                    }
                    byte[] t = text.of(scanner, b);
                    m.metadata().set(b, k, klen, t, text.offset(), text.length(), Metadata.STRING);
                    if (klen == 5) {
                        iIndex = 0;
                    }
                } else if (is(b, k, klen, K_FIELDS)) {
                    p = parseFields(b, p, end, m);
                    if (p < 0) {
                        return invalid(out, n, p == SCAN_ERROR ? scanError() : "fields must be an object");
                    }
                } else {
                    p = scanner.skipValue(b, p, end);
                    if (p < 0) {
                        return invalid(out, n, scanError());
                    }
                }
                p = JsonScanner.ws(b, p, end);
                if (p < end && b[p] == ',') {
                    p = JsonScanner.ws(b, p + 1, end);
                    continue;
                }
                if (p < end && b[p] == '}') {
                    p++;
                    break;
                }
                return invalid(out, n, "expected ',' or '}'");
            }
        }
        if (!hasEvent) {
            if (eventRequired) {
                return drop(out, HecStatus.EVENT_REQUIRED, n, null);
            }
            m.setPayload(b, objStart, p - objStart);
        } else if (blank) {
            return drop(out, HecStatus.EVENT_BLANK, n, null);
        }
        if (dflt != null && dflt.any()) {
            applyDefaults(m, dflt);
            if (iIndex < 0 && dflt.index != null) {
                iIndex = 0;
            }
        }
        if (indexes != null && iIndex >= 0) {
            Metadata md = m.metadata();
            int i = md.indexOf(K_INDEX);
            if (i >= 0 && !allowed(md.arena(), md.valueOffset(i), md.valueLength(i))) {
                return drop(out, HecStatus.INCORRECT_INDEX, n, "index '" + shown(md.value(i)) + "' is not allowed");
            }
        }
        return p;
    }

    /** What the scanner found wrong, as consumer.HEC has always logged it. */
    private String scanError() {
        JsonError e = scanner.error();
        return e == JsonError.TOO_DEEP ? tooDeep : e.detail();
    }

    private int invalid(BatchCollector out, int n, String why) {
        return drop(out, HecStatus.INVALID_DATA_FORMAT, n, why);
    }

    /** Drops event {@code n}, the message last taken, refused with {@code s}; returns -1. */
    private int drop(BatchCollector out, HecStatus s, int n, String why) {
        out.dropLast();
        fail(s, n, why);
        return -1;
    }

    private static boolean is(byte[] b, int off, int len, byte[] key) {
        return len == key.length && Arrays.equals(b, off, off + len, key, 0, len);
    }

    /** Whether the index name in {@code b[off, off + len)} is one of {@link #indexes}. */
    private boolean allowed(byte[] b, int off, int len) {
        for (byte[] ok : indexes) {
            if (is(b, off, len, ok)) {
                return true;
            }
        }
        return false;
    }

    /** A client's index name for a log line: cut short, since anyone holding a token chooses it. */
    private static String shown(String index) {
        return index.length() <= 64 ? index : index.substring(0, 64) + "...";
    }

    private static void applyDefaults(Message m, Defaults d) {
        Metadata md = m.metadata();
        setIfAbsent(md, K_HOST, d.host);
        setIfAbsent(md, K_SOURCE, d.source);
        setIfAbsent(md, K_SOURCETYPE, d.sourcetype);
        setIfAbsent(md, K_INDEX, d.index);
    }

    private static void setIfAbsent(Metadata md, byte[] key, byte[] value) {
        if (value != null && md.indexOf(key) < 0) {
            md.set(key, value, Metadata.STRING);
        }
    }

    /** {@link #parseFields}' answer when the scanner found the JSON invalid ({@link #scanError()} says why). */
    private static final int SCAN_ERROR = -2;

    /** {@code "fields": {...}}: each entry becomes a metadata field with its JSON kind; -1 if it is no such object. */
    private int parseFields(byte[] b, int p, int end, Message m) {
        if (b[p] != '{') {
            return -1;
        }
        p = JsonScanner.ws(b, p + 1, end);
        if (p < end && b[p] == '}') {
            return p + 1;
        }
        Metadata md = m.metadata();
        while (true) {
            if (p >= end || b[p] != '"') {
                return -1;
            }
            p = scanner.skipString(b, p, end);
            if (p < 0) {
                return SCAN_ERROR;
            }
            byte[] kb = keyText.of(scanner, b); // its own buffer: the value's text must not overwrite the key
            p = JsonScanner.ws(b, p, end);
            if (p >= end || b[p] != ':') {
                return -1;
            }
            p = JsonScanner.ws(b, p + 1, end);
            if (p >= end) {
                return -1;
            }
            int vs = p;
            byte c = b[p];
            p = scanner.skipValue(b, p, end);
            if (p < 0) {
                return SCAN_ERROR;
            }
            if (c == '"') {
                byte[] t = text.of(scanner, b);
                md.set(kb, keyText.offset(), keyText.length(), t, text.offset(), text.length(), Metadata.STRING);
            } else {
                byte kind = c == '{' || c == '[' ? Metadata.JSON
                        : c == 't' || c == 'f' ? Metadata.BOOLEAN : c == 'n' ? Metadata.NULL : Metadata.NUMBER;
                md.set(kb, keyText.offset(), keyText.length(), b, vs, p - vs, kind);
            }
            p = JsonScanner.ws(b, p, end);
            if (p < end && b[p] == ',') {
                p = JsonScanner.ws(b, p + 1, end);
                continue;
            }
            if (p < end && b[p] == '}') {
                return p + 1;
            }
            return -1;
        }
    }

    /** {@code time}: epoch seconds as a number or a numeric string ({@link EpochSeconds}). */
    private int parseTime(byte[] b, int p, int end, Message m) {
        boolean quoted = b[p] == '"';
        int s = quoted ? p + 1 : p;
        int e = scanner.skipNumber(b, s, end);
        if (e < 0) {
            return -1;
        }
        if (quoted && (e >= end || b[e] != '"')) {
            return -1;
        }
        long nanos = EpochSeconds.toNanos(b, s, e);
        if (nanos == Long.MIN_VALUE) {
            return -1;
        }
        m.setTimestamp(nanos);
        return quoted ? e + 1 : e;
    }

    /**
     * Parses a /raw body: one message per line (CR LF or LF), empty lines skipped, with the query-string
     * metadata and the receive time. The index is the request's ({@code dflt}), so it is checked once, before any
     * line: a disallowed one refuses the whole request (code 7, no event number).
     */
    boolean parseRaw(byte[] b, int off, int end, BatchCollector out, Defaults dflt, byte[][] indexes, long now) {
        error = null;
        this.indexes = indexes;
        if (indexes != null && dflt != null && dflt.index != null && !allowed(dflt.index, 0, dflt.index.length)) {
            return fail(HecStatus.INCORRECT_INDEX, -1,
                    "index '" + shown(new String(dflt.index, StandardCharsets.UTF_8)) + "' is not allowed");
        }
        boolean withDefaults = dflt != null && dflt.any();
        int p = off;
        while (p < end) {
            int nl = p;
            while (nl < end && b[nl] != '\n') {
                nl++;
            }
            int le = nl;
            if (le > p && b[le - 1] == '\r') {
                le--;
            }
            if (le > p) {
                if (!out.admit()) {
                    return fail(out.refusal(), -1, out.refusalDetail());
                }
                Message m = out.next();
                m.setPayload(b, p, le - p);
                m.setTimestamp(now);
                if (withDefaults) {
                    applyDefaults(m, dflt);
                }
            }
            p = nl + 1;
        }
        return true;
    }
}

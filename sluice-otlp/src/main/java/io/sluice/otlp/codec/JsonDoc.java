package io.sluice.otlp.codec;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonStrings;
import io.sluice.core.json.Utf8;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * An OTLP/JSON document read with core's {@link JsonScanner}: objects and arrays are scanned level by level into
 * reused {@link JsonFields} (one per nesting level, so a parent's members stay valid while a child is read), and
 * values are read by OTLP JSON's rules (protobuf's JSON mapping): field names in lowerCamelCase or as in the
 * .proto, 64-bit integers as numbers or strings, doubles as numbers or "NaN"/"Infinity"/"-Infinity", bytes as
 * base64, ids as hex. Strings are unescaped into {@link #text()} and must be valid UTF-8.
 *
 * <p>Each level is validated again when it is scanned (the scanner validates what it scans), which makes a document
 * cost its size times its depth: fine off the hot path, and the depth is bounded by the decoders.
 */
final class JsonDoc {
    private final JsonScanner scanner = new JsonScanner();
    private final List<JsonFields> levels = new ArrayList<>();
    private byte[] buf;
    private int base;
    private byte[] text = new byte[256];
    private int textLen;

    /** Starts reading {@code buf}; error positions are counted from {@code off}. */
    void reset(byte[] buf, int off) {
        this.buf = buf;
        this.base = off;
    }

    byte[] buffer() {
        return buf;
    }

    /** Scans the object at {@code [off, off+len)} into the fields of nesting level {@code level}. */
    JsonFields object(int level, int off, int len) throws OtlpFormatException {
        JsonFields f = level(level);
        if (!scanner.scanObject(buf, off, off + len, f)) {
            throw error(off);
        }
        return f;
    }

    /** Scans the array at {@code [off, off+len)} into the fields of level {@code level} (elements, empty keys). */
    JsonFields array(int level, int off, int len) throws OtlpFormatException {
        JsonFields f = level(level);
        if (!scanner.scanArray(buf, off, off + len, f)) {
            throw error(off);
        }
        return f;
    }

    /** The object member {@code i} of {@code f} holds, scanned at {@code level}; an error if it is not an object. */
    JsonFields object(JsonFields f, int i, int level) throws OtlpFormatException {
        expect(f, i, JsonFields.OBJECT, "an object");
        return object(level, f.valueOffset(i), f.valueLength(i));
    }

    /** The array member {@code i} of {@code f} holds, scanned at {@code level}; null is taken as empty. */
    JsonFields array(JsonFields f, int i, int level) throws OtlpFormatException {
        if (f.kind(i) == JsonFields.NULL) {
            return empty(level);
        }
        expect(f, i, JsonFields.ARRAY, "an array");
        return array(level, f.valueOffset(i), f.valueLength(i));
    }

    /** No members, at {@code level}: an absent array. */
    JsonFields empty(int level) {
        JsonFields f = level(level);
        f.clear();
        return f;
    }

    /** An array member {@code camel}/{@code snake} of {@code f} scanned at {@code level}, or no members if absent. */
    JsonFields arrayOrEmpty(JsonFields f, byte[] camel, byte[] snake, int level) throws OtlpFormatException {
        int i = find(f, camel, snake);
        return i < 0 ? empty(level) : array(f, i, level);
    }

    private OtlpFormatException error(int off) {
        return new OtlpFormatException("invalid JSON: " + scanner.errorReason() + " at byte "
                + (off - base + scanner.errorOffset()));
    }

    private JsonFields level(int level) {
        while (levels.size() <= level) {
            levels.add(new JsonFields());
        }
        return levels.get(level);
    }

    private void expect(JsonFields f, int i, byte kind, String what) throws OtlpFormatException {
        if (f.kind(i) != kind) {
            throw mustBe(f, i, what);
        }
    }

    private OtlpFormatException mustBe(JsonFields f, int i, String what) {
        return new OtlpFormatException("field " + key(f, i) + " must be " + what + " (at byte "
                + (f.valueOffset(i) - base) + ")");
    }

    /** The member's key as a String, for error messages. */
    String key(JsonFields f, int i) {
        return new String(buf, f.keyOffset(i), f.keyLength(i), StandardCharsets.UTF_8);
    }

    /**
     * The index of the last member of {@code f} named {@code camel} or {@code snake} (protobuf's JSON parsers take
     * both), or -1; a member whose value is null counts as absent, as in protobuf's JSON mapping.
     */
    int find(JsonFields f, byte[] camel, byte[] snake) {
        for (int i = f.size() - 1; i >= 0; i--) {
            if (f.kind(i) != JsonFields.NULL && named(f, i, camel, snake)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether member {@code i} is named {@code camel} or {@code snake}. */
    boolean named(JsonFields f, int i, byte[] camel, byte[] snake) {
        int ko = f.keyOffset(i);
        int kl = f.keyLength(i);
        byte[] k = buf;
        if (f.keyEscaped(i)) { // a name written with escapes ("\u0073tringValue") is still the name
            k = unescapeKey(ko, kl);
            kl = keyScratchLen;
            ko = 0;
        }
        return Arrays.equals(k, ko, ko + kl, camel, 0, camel.length)
                || snake != null && Arrays.equals(k, ko, ko + kl, snake, 0, snake.length);
    }

    private byte[] keyScratch = new byte[64];
    private int keyScratchLen;

    private byte[] unescapeKey(int off, int len) {
        if (keyScratch.length < len) {
            keyScratch = new byte[len];
        }
        keyScratchLen = JsonStrings.unescape(buf, off, len, keyScratch, 0);
        return keyScratch;
    }

    /**
     * Unescapes the string member {@code i} into {@code dst} at {@code at} (room for its raw length) and returns
     * the unescaped length; checks it is valid UTF-8.
     */
    int string(JsonFields f, int i, byte[] dst, int at) throws OtlpFormatException {
        expect(f, i, JsonFields.STRING, "a string");
        int off = f.valueOffset(i);
        int len = f.valueLength(i);
        int n = f.valueEscaped(i) ? JsonStrings.unescape(buf, off, len, dst, at) : copy(off, len, dst, at);
        if (!Utf8.isValid(dst, at, n)) {
            throw new OtlpFormatException("invalid UTF-8 in a string at byte " + (off - base));
        }
        return n;
    }

    private int copy(int off, int len, byte[] dst, int at) {
        System.arraycopy(buf, off, dst, at, len);
        return len;
    }

    /** Unescapes string member {@code i} into the shared {@link #text()} buffer; returns its length. */
    int text(JsonFields f, int i) throws OtlpFormatException {
        int len = f.valueLength(i);
        if (text.length < len) {
            text = new byte[Math.max(len, text.length * 2)];
        }
        textLen = string(f, i, text, 0);
        return textLen;
    }

    /** The buffer {@link #text(JsonFields, int)} wrote into (valid until the next call). */
    byte[] text() {
        return text;
    }

    /** A 64-bit signed integer: a JSON number without fraction, or a string holding one. */
    long int64(JsonFields f, int i) throws OtlpFormatException {
        return integer(f, i, false, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** A 64-bit unsigned integer (fixed64, uint64): as {@link #int64}, up to 2^64-1. */
    long uint64(JsonFields f, int i) throws OtlpFormatException {
        return integer(f, i, true, 0, -1);
    }

    /** A 32-bit signed integer (int32, sint32, enums). */
    int int32(JsonFields f, int i) throws OtlpFormatException {
        return (int) integer(f, i, false, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /**
     * An enum: an integer, as OTLP JSON writes enums, or, as protobuf's JSON parsers also take, the name of one of
     * {@code names} (indexed by value).
     */
    int enumValue(JsonFields f, int i, byte[][] names) throws OtlpFormatException {
        if (f.kind(i) == JsonFields.STRING && !f.valueEscaped(i)) {
            int off = f.valueOffset(i);
            int len = f.valueLength(i);
            for (int v = 0; v < names.length; v++) {
                if (Arrays.equals(buf, off, off + len, names[v], 0, names[v].length)) {
                    return v;
                }
            }
        }
        return int32(f, i);
    }

    /** The position of {@code absolute} (an index into the buffer) counted from the start of the document. */
    int at(int absolute) {
        return absolute - base;
    }

    /** A 32-bit unsigned integer (uint32, fixed32), as a non-negative long. */
    long uint32(JsonFields f, int i) throws OtlpFormatException {
        return integer(f, i, false, 0, 0xFFFF_FFFFL);
    }

    private long integer(JsonFields f, int i, boolean unsigned, long min, long max) throws OtlpFormatException {
        byte kind = f.kind(i);
        if (kind != JsonFields.NUMBER && kind != JsonFields.STRING) {
            throw mustBe(f, i, "an integer");
        }
        int p = f.valueOffset(i);
        int end = p + f.valueLength(i);
        boolean negative = p < end && buf[p] == '-';
        if (negative) {
            p++;
        }
        if (p == end || negative && unsigned) {
            throw notInteger(f, i);
        }
        long v = 0;
        for (; p < end; p++) {
            int d = buf[p] - '0';
            if (d < 0 || d > 9) {
                throw notInteger(f, i);
            }
            if (unsigned) {
                // 2^64-1 is 1844674407370955161 * 10 + 5.
                if (Long.compareUnsigned(v, MAX_U64_TENTH) > 0 || v == MAX_U64_TENTH && d > 5) {
                    throw notInteger(f, i);
                }
                v = v * 10 + d;
            } else {
                // Accumulate negatively so that Long.MIN_VALUE fits.
                if (v < (Long.MIN_VALUE + d) / 10) {
                    throw notInteger(f, i);
                }
                v = v * 10 - d;
            }
        }
        if (!unsigned) {
            if (!negative) {
                if (v == Long.MIN_VALUE) {
                    throw notInteger(f, i);
                }
                v = -v;
            }
            if (v < min || v > max) {
                throw notInteger(f, i);
            }
        }
        return v;
    }

    private static final long MAX_U64_TENTH = 1844674407370955161L;

    private OtlpFormatException notInteger(JsonFields f, int i) {
        return new OtlpFormatException("field " + key(f, i) + " is not an integer in range: "
                + new String(buf, f.valueOffset(i), f.valueLength(i), StandardCharsets.UTF_8) + " (at byte "
                + (f.valueOffset(i) - base) + ")");
    }

    /** A double: a JSON number, or a string holding one or "NaN", "Infinity", "-Infinity". */
    double dbl(JsonFields f, int i) throws OtlpFormatException {
        byte kind = f.kind(i);
        if (kind != JsonFields.NUMBER && kind != JsonFields.STRING) {
            throw mustBe(f, i, "a number");
        }
        if (kind == JsonFields.STRING && Text.isNamedDouble(buf, f.valueOffset(i), f.valueLength(i))) {
            return Text.named(buf, f.valueOffset(i), f.valueLength(i));
        }
        // Not the hot path: the JDK's parser, which rounds correctly, on the few bytes of a number.
        String s = new String(buf, f.valueOffset(i), f.valueLength(i), StandardCharsets.ISO_8859_1);
        if (!isJsonNumber(s)) {
            throw new OtlpFormatException("field " + key(f, i) + " is not a number: " + s + " (at byte "
                    + (f.valueOffset(i) - base) + ")");
        }
        return Double.parseDouble(s);
    }

    /** JSON number syntax (Double.parseDouble also takes "0x1p3", "1d", " 1" and the like, which JSON does not). */
    private static boolean isJsonNumber(String s) {
        int n = s.length();
        int p = 0;
        if (p < n && s.charAt(p) == '-') {
            p++;
        }
        int digits = 0;
        while (p < n && Character.isDigit(s.charAt(p)) && s.charAt(p) < 128) {
            p++;
            digits++;
        }
        if (p < n && s.charAt(p) == '.') {
            p++;
            while (p < n && s.charAt(p) >= '0' && s.charAt(p) <= '9') {
                p++;
                digits++;
            }
        }
        if (digits == 0) {
            return false;
        }
        if (p < n && (s.charAt(p) == 'e' || s.charAt(p) == 'E')) {
            p++;
            if (p < n && (s.charAt(p) == '+' || s.charAt(p) == '-')) {
                p++;
            }
            int e = p;
            while (p < n && s.charAt(p) >= '0' && s.charAt(p) <= '9') {
                p++;
            }
            if (p == e) {
                return false;
            }
        }
        return p == n;
    }

    /** A boolean: true or false. */
    boolean bool(JsonFields f, int i) throws OtlpFormatException {
        if (f.kind(i) != JsonFields.BOOLEAN) {
            throw mustBe(f, i, "true or false");
        }
        return buf[f.valueOffset(i)] == 't';
    }

    /** Bytes: base64, standard or URL-safe, padded or not, as protobuf's JSON parsers take them. */
    byte[] base64(JsonFields f, int i) throws OtlpFormatException {
        int n = text(f, i);
        String s = new String(text, 0, n, StandardCharsets.ISO_8859_1);
        try {
            return s.indexOf('-') >= 0 || s.indexOf('_') >= 0 ? Base64.getUrlDecoder().decode(s)
                    : Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            throw new OtlpFormatException("field " + key(f, i) + " is not base64 (at byte "
                    + (f.valueOffset(i) - base) + ")");
        }
    }

    /**
     * An id in hex (OTLP JSON's exception to protobuf's base64), into {@code dst} at {@code at}; returns its length
     * in bytes, which must be 0 (not set) or {@code size}.
     */
    int hexId(JsonFields f, int i, byte[] dst, int at, int size, String name) throws OtlpFormatException {
        expect(f, i, JsonFields.STRING, "a string");
        int off = f.valueOffset(i);
        int len = f.valueLength(i);
        if (len == 0) {
            return 0;
        }
        if (f.valueEscaped(i) || len != 2 * size) {
            throw new OtlpFormatException(name + " must be " + 2 * size + " hex digits (at byte " + (off - base) + ")");
        }
        if (Text.hex(buf, off, len, dst, at) < 0) {
            throw new OtlpFormatException(name + " is not hex (at byte " + (off - base) + ")");
        }
        return size;
    }
}

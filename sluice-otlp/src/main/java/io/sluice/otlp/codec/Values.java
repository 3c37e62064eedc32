package io.sluice.otlp.codec;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonStrings;
import io.sluice.core.message.Metadata;
import java.util.Arrays;

/**
 * Writes metadata values and JSON values back as OTLP {@code AnyValue}s, by the rules of
 * {@link io.sluice.core.message.OtlpFields}: STRING as string; BOOLEAN as bool; NUMBER with a fraction or exponent
 * as double, else int (an integer beyond 64 bits as double); NULL as an empty value; a JSON array as an array, a
 * JSON object as a key-value list, except {@code {"bytesValue":"<base64>"}}, which is bytes. Nested JSON is read
 * with core's {@link JsonScanner}, one reused {@link JsonFields} per nesting level: nothing is allocated per value.
 */
final class Values {
    /** Deeper JSON is sent as its text (a string value): protobuf parsers refuse nesting past 100 anyway. */
    static final int MAX_DEPTH = 64;

    private final JsonScanner scanner = new JsonScanner();
    private JsonFields[] levels = new JsonFields[0];
    private byte[] scratch = new byte[256];
    private byte[] text = new byte[64];
    private int unescapedLength;

    /** The scanner, shared with the encoders (each scan's results live in its own {@link JsonFields}). */
    JsonScanner scanner() {
        return scanner;
    }

    /** Writes metadata field {@code i} as a {@code KeyValue} (field {@code field}) whose key is {@code key[ko, ko+kl)}. */
    void keyValue(ProtoWriter w, int field, byte[] key, int ko, int kl, Metadata md, int i) {
        w.begin(field);
        w.stringField(1, key, ko, kl);
        metadataValue(w, 2, md, i);
        w.end();
    }

    /** Writes metadata field {@code i}'s value as an {@code AnyValue} (field {@code field}). */
    void metadataValue(ProtoWriter w, int field, Metadata md, int i) {
        byte kind = md.kind(i);
        int off = md.valueOffset(i); // decodes an escaped string in place first
        int len = md.valueLength(i);
        byte[] a = md.arena();
        switch (kind) {
            case Metadata.STRING -> stringValue(w, field, a, off, len);
            case Metadata.BOOLEAN -> boolValue(w, field, equals(a, off, len, ValueText.TRUE));
            case Metadata.NUMBER -> numberValue(w, field, a, off, len);
            case Metadata.JSON -> jsonContainer(w, field, a, off, len, 0);
            default -> emptyValue(w, field);
        }
    }

    /**
     * Writes the JSON value of kind {@code kind} (a {@link JsonFields} kind) at {@code b[off, off+len)} as an
     * {@code AnyValue}; strings are given as their raw contents, with {@code escaped} saying whether they hold escapes.
     */
    void jsonValue(ProtoWriter w, int field, byte[] b, int off, int len, byte kind, boolean escaped, int depth) {
        switch (kind) {
            case JsonFields.STRING -> {
                if (escaped) {
                    int n = unescape(b, off, len);
                    stringValue(w, field, scratch, 0, n);
                } else {
                    stringValue(w, field, b, off, len);
                }
            }
            case JsonFields.NUMBER -> numberValue(w, field, b, off, len);
            case JsonFields.BOOLEAN -> boolValue(w, field, b[off] == 't');
            case JsonFields.OBJECT, JsonFields.ARRAY -> jsonContainer(w, field, b, off, len, depth);
            default -> emptyValue(w, field);
        }
    }

    /** A JSON array (as an array value) or object (a key-value list, or bytes); text that does not scan as a string. */
    private void jsonContainer(ProtoWriter w, int field, byte[] b, int off, int len, int depth) {
        JsonFields f = level(depth);
        int p = off;
        while (p < off + len && b[p] <= ' ') {
            p++;
        }
        boolean array = p < off + len && b[p] == '[';
        boolean ok = depth < MAX_DEPTH
                && (array ? scanner.scanArray(b, off, off + len, f) : scanner.scanObject(b, off, off + len, f));
        if (!ok) {
            stringValue(w, field, b, off, len);
            return;
        }
        if (!array && isBytes(b, f)) {
            if (f.valueEscaped(0)) { // a JSON writer may escape the base64 '/' as "\/"
                byte[] text = unescaped(b, f.valueOffset(0), f.valueLength(0));
                bytesValue(w, field, text, 0, unescapedLength);
            } else {
                bytesValue(w, field, b, f.valueOffset(0), f.valueLength(0));
            }
            return;
        }
        w.begin(field);
        w.begin(array ? ProtoValues.ARRAY : ProtoValues.KVLIST);
        if (array) {
            for (int k = 0; k < f.size(); k++) {
                jsonValue(w, 1, b, f.valueOffset(k), f.valueLength(k), f.kind(k), f.valueEscaped(k), depth + 1);
            }
        } else {
            members(w, 1, b, f, depth + 1);
        }
        w.end();
        w.end();
    }

    /** Writes the members of a scanned JSON object as repeated {@code KeyValue}s (field {@code field}). */
    void members(ProtoWriter w, int field, byte[] b, JsonFields f, int depth) {
        for (int k = 0; k < f.size(); k++) {
            w.begin(field);
            rawString(w, 1, b, f.keyOffset(k), f.keyLength(k), f.keyEscaped(k));
            jsonValue(w, 2, b, f.valueOffset(k), f.valueLength(k), f.kind(k), f.valueEscaped(k), depth);
            w.end();
        }
    }

    /** A string field from raw JSON string contents, unescaped first when they hold escapes. */
    void rawString(ProtoWriter w, int field, byte[] b, int off, int len, boolean escaped) {
        if (escaped) {
            int n = unescape(b, off, len);
            w.stringField(field, scratch, 0, n);
        } else {
            w.stringField(field, b, off, len);
        }
    }

    /** Scans the JSON object {@code b[off, off+len)} and writes its members as repeated {@code KeyValue}s. */
    void objectMembers(ProtoWriter w, int field, byte[] b, int off, int len) {
        JsonFields f = level(0);
        if (scanner.scanObject(b, off, off + len, f)) {
            members(w, field, b, f, 1);
        }
    }

    private static boolean isBytes(byte[] b, JsonFields f) {
        return f.size() == 1 && f.kind(0) == JsonFields.STRING && !f.keyEscaped(0)
                && equals(b, f.keyOffset(0), f.keyLength(0), ValueText.BYTES_VALUE);
    }

    /** A bytes value from base64 text; text that is not base64 stays the object it was, as a string. */
    private void bytesValue(ProtoWriter w, int field, byte[] b, int off, int len) {
        int n = base64(b, off, len);
        if (n < 0) {
            stringValue(w, field, b, off, len);
            return;
        }
        w.begin(field);
        w.bytesField(ProtoValues.BYTES, scratch, 0, n);
        w.end();
    }

    /** Decodes base64 into the scratch buffer; returns the length or -1. */
    int base64(byte[] b, int off, int len) {
        ensureScratch(Text.base64Max(len));
        return Text.base64(b, off, len, scratch);
    }

    /** Decodes hex into the scratch buffer; returns the length or -1. */
    int hex(byte[] b, int off, int len) {
        ensureScratch(len / 2 + 1);
        return Text.hex(b, off, len, scratch, 0);
    }

    /** The buffer {@link #base64}, {@link #hex} and unescaping write into; valid until the next of them. */
    byte[] scratch() {
        return scratch;
    }

    /**
     * A string value; text that is not valid UTF-8 (a binary payload, bytes a msgpack peer sent as a string) goes as
     * a bytes value instead: a protobuf string may not hold it, and bytes keep every byte.
     */
    static void stringValue(ProtoWriter w, int field, byte[] b, int off, int len) {
        w.begin(field);
        w.bytesField(ProtoWriter.isValidUtf8(b, off, len) ? ProtoValues.STRING : ProtoValues.BYTES, b, off, len);
        w.end();
    }

    static void boolValue(ProtoWriter w, int field, boolean v) {
        w.begin(field);
        w.boolField(ProtoValues.BOOL, v);
        w.end();
    }

    static void emptyValue(ProtoWriter w, int field) {
        w.begin(field);
        w.end();
    }

    /** A JSON number: int when it is an integer that fits 64 bits, else double. */
    static void numberValue(ProtoWriter w, int field, byte[] b, int off, int len) {
        if (!Text.isNumber(b, off, len)) {
            stringValue(w, field, b, off, len); // a NUMBER field whose text is none (set by hand): kept as text
            return;
        }
        w.begin(field);
        if (Text.isInteger(b, off, len, false)) {
            w.varintField(ProtoValues.INT, Text.parseLong(b, off, len));
        } else {
            w.doubleField(ProtoValues.DOUBLE, Text.parseDouble(b, off, len));
        }
        w.end();
    }

    /** Unescapes into a buffer of its own (base64 text on its way into {@link #scratch}); see {@link #unescapedLength}. */
    private byte[] unescaped(byte[] b, int off, int len) {
        if (text.length < len) {
            text = new byte[Math.max(len, text.length * 2)];
        }
        unescapedLength = JsonStrings.unescape(b, off, len, text, 0);
        return text;
    }

    private int unescape(byte[] b, int off, int len) {
        ensureScratch(len);
        return JsonStrings.unescape(b, off, len, scratch, 0);
    }

    private void ensureScratch(int n) {
        if (scratch.length < n) {
            scratch = new byte[Math.max(n, scratch.length * 2)];
        }
    }

    private JsonFields level(int depth) {
        if (depth >= levels.length) {
            int old = levels.length;
            levels = Arrays.copyOf(levels, Math.max(depth + 1, old * 2));
            for (int i = old; i < levels.length; i++) {
                levels[i] = new JsonFields();
            }
        }
        return levels[depth];
    }

    static boolean equals(byte[] b, int off, int len, byte[] word) {
        return len == word.length && MessageKeys.startsWith(b, off, len, word);
    }
}

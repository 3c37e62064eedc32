package io.sluice.hec.codec;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Rewrites an OTLP attribute or body value, held as JSON by the {@code OtlpFields} contract, into the JSON Go
 * writes for its {@code AsRaw()} value: object keys sorted (Go marshals maps in key order), doubles in Go's form
 * ({@link GoNumbers}), and bytes, which the contract spells {@code {"bytesValue":"<base64>"}}, as the base64
 * string Go makes of a {@code []byte}. Strings are copied as they are (Go would also escape {@code <>&}; the
 * parsed value is the same). Allocates nothing once its per-depth tables have grown.
 */
final class GoJson {
    /** Deeper values are copied as they are rather than recursed into (a thread stack is not a budget). */
    static final int MAX_DEPTH = 64;
    private static final byte[] BYTES_VALUE = "bytesValue".getBytes(StandardCharsets.US_ASCII);

    final JsonScanner scanner = new JsonScanner();
    private final GoNumbers numbers;
    private JsonFields[] levels = new JsonFields[4];
    private int[][] orders = new int[4][];

    GoJson(GoNumbers numbers) {
        this.numbers = numbers;
    }

    /** The member table for recursion depth {@code depth}, reused. */
    JsonFields level(int depth) {
        if (depth >= levels.length) {
            levels = Arrays.copyOf(levels, Math.max(depth + 1, levels.length * 2));
            orders = Arrays.copyOf(orders, levels.length);
        }
        JsonFields f = levels[depth];
        if (f == null) {
            f = levels[depth] = new JsonFields();
        }
        return f;
    }

    /** The first non-blank byte of {@code b[off, end)}, or 0. */
    static byte first(byte[] b, int off, int end) {
        int p = JsonScanner.ws(b, off, end);
        return p < end ? b[p] : 0;
    }

    /** Whether the scanned object {@code f} is the contract's spelling of bytes: one string member "bytesValue". */
    static boolean isBytes(byte[] b, JsonFields f) {
        return f.size() == 1 && f.kind(0) == JsonFields.STRING && !f.keyEscaped(0)
                && f.keyLength(0) == BYTES_VALUE.length
                && Arrays.equals(b, f.keyOffset(0), f.keyOffset(0) + BYTES_VALUE.length, BYTES_VALUE, 0, BYTES_VALUE.length);
    }

    /** Whether the JSON object {@code b[off, end)} is bytes ({@link #isBytes}); scans it at {@code depth}. */
    boolean isBytesObject(byte[] b, int off, int end, int depth) {
        JsonFields f = level(depth);
        return scanner.scanObject(b, off, end, f) && isBytes(b, f);
    }

    /**
     * Whether the JSON array {@code b[off, end)} is "flat" as the exporter's {@code isArrayFlat} says: no element
     * is an array or a map (bytes are neither). False when it is not a valid array.
     */
    boolean isFlatArray(byte[] b, int off, int end, int depth) {
        JsonFields f = level(depth);
        if (!scanner.scanArray(b, off, end, f)) {
            return false;
        }
        for (int i = 0; i < f.size(); i++) {
            byte k = f.kind(i);
            if (k == JsonFields.ARRAY) {
                return false;
            }
            if (k == JsonFields.OBJECT) {
                int vo = f.valueOffset(i);
                // The element is scanned into the next depth's table: this one stays valid.
                if (depth + 1 >= MAX_DEPTH || !isBytesObject(b, vo, vo + f.valueLength(i), depth + 1)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Writes the JSON value {@code b[off, end)} as Go marshals its {@code AsRaw()}; invalid text is copied. */
    void write(byte[] b, int off, int end, ByteOut o, int depth) {
        byte c = first(b, off, end);
        if (c == '{' || c == '[') {
            JsonFields f = level(depth);
            boolean object = c == '{';
            boolean ok = depth < MAX_DEPTH
                    && (object ? scanner.scanObject(b, off, end, f) : scanner.scanArray(b, off, end, f));
            if (!ok) {
                o.write(b, off, end - off);
            } else if (object && isBytes(b, f)) {
                o.write('"');
                o.write(b, f.valueOffset(0), f.valueLength(0));
                o.write('"');
            } else if (object) {
                writeObject(b, f, o, depth);
            } else {
                o.write('[');
                for (int i = 0; i < f.size(); i++) {
                    if (i > 0) {
                        o.write(',');
                    }
                    writeMember(b, f, i, o, depth);
                }
                o.write(']');
            }
        } else if (c == '"' || c == 't' || c == 'f' || c == 'n' || c == 0) {
            o.write(b, off, end - off);
        } else {
            writeNumber(b, off, end - off, o, GoNumbers.JSON);
        }
    }

    /** A JSON number as Go prints it in {@code style}; integers and text that is no number are copied. */
    void writeNumber(byte[] b, int off, int len, ByteOut o, int style) {
        if (GoNumbers.isFloat(b, off, len) && numbers.parse(b, off, len)) {
            numbers.write(o, style);
        } else {
            o.write(b, off, len);
        }
    }

    private void writeMember(byte[] b, JsonFields f, int i, ByteOut o, int depth) {
        int vo = f.valueOffset(i);
        int vl = f.valueLength(i);
        switch (f.kind(i)) {
            case JsonFields.STRING -> {
                o.write('"');
                o.write(b, vo, vl);
                o.write('"');
            }
            case JsonFields.NUMBER -> writeNumber(b, vo, vl, o, GoNumbers.JSON);
            case JsonFields.OBJECT, JsonFields.ARRAY -> write(b, vo, vo + vl, o, depth + 1);
            default -> o.write(b, vo, vl);
        }
    }

    /** An object with its keys in Go's order (byte order; the last of equal keys wins, as in a Go map). */
    private void writeObject(byte[] b, JsonFields f, ByteOut o, int depth) {
        int n = f.size();
        int[] order = orders[depth];
        if (order == null || order.length < n) {
            order = orders[depth] = new int[Math.max(8, n)];
        }
        for (int i = 0; i < n; i++) {
            int j = i;
            while (j > 0 && compareKeys(b, f, order[j - 1], i) > 0) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        o.write('{');
        boolean comma = false;
        for (int s = 0; s < n; s++) {
            int i = order[s];
            if (s + 1 < n && compareKeys(b, f, i, order[s + 1]) == 0) {
                continue; // a later duplicate follows (the sort is stable): it wins
            }
            if (comma) {
                o.write(',');
            }
            comma = true;
            o.write('"');
            o.write(b, f.keyOffset(i), f.keyLength(i));
            o.write('"');
            o.write(':');
            writeMember(b, f, i, o, depth);
        }
        o.write('}');
    }

    private static int compareKeys(byte[] b, JsonFields f, int x, int y) {
        int xo = f.keyOffset(x);
        int yo = f.keyOffset(y);
        return Arrays.compareUnsigned(b, xo, xo + f.keyLength(x), b, yo, yo + f.keyLength(y));
    }
}

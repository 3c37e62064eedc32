package io.sluice.core.json;

/**
 * A validating JSON scanner over bytes that allocates nothing: it reports members as byte ranges
 * ({@link JsonFields}) and errors as an offset and a constant reason. Nesting is tracked with a bit stack
 * instead of recursion, so deep documents cannot overflow the thread stack; they are limited by
 * {@link #MAX_DEPTH} (or the depth given) instead.
 *
 * <p>The grammar is RFC 8259, strictly: no comments, no trailing commas, no leading zeros, no raw control
 * characters in strings. Bytes at or above 0x80 inside strings are taken as they are, valid UTF-8 or not, so
 * that they round-trip exactly; one made {@linkplain #JsonScanner(int, boolean) checking UTF-8} rejects invalid
 * UTF-8 there (RFC 3629), as sluice-hec must before it sends a payload as JSON. One instance per thread.
 * <p>Close to 500 lines: the grammar's states and the nesting bit stack are one unit on the per-byte path; numbers
 * ({@code JsonNumbers}), escapes ({@code JsonStrings}) and error texts ({@code JsonError}) are split out.
 */
public final class JsonScanner {
    /** Deepest nesting accepted; deeper documents are rejected rather than exhausting memory. */
    public static final int MAX_DEPTH = 100_000;

    public static final String UNEXPECTED_END = "unexpected end of input";
    public static final String EXPECTED_OBJECT = "expected '{'";
    public static final String EXPECTED_ARRAY = "expected '['";
    public static final String EXPECTED_KEY = "expected a string key";
    public static final String EXPECTED_COLON = "expected ':' after key";
    public static final String EXPECTED_VALUE = "expected a value";
    public static final String EXPECTED_COMMA_OR_BRACE = "expected ',' or '}'";
    public static final String EXPECTED_COMMA_OR_BRACKET = "expected ',' or ']'";
    public static final String CONTROL_CHARACTER = "control character in string";
    public static final String BAD_ESCAPE = "invalid escape sequence";
    public static final String BAD_NUMBER = "invalid number";
    public static final String BAD_LITERAL = "invalid literal";
    public static final String TRAILING_DATA = "unexpected data after the value";
    public static final String TOO_DEEP = "nesting too deep";
    public static final String BAD_UTF8 = "invalid UTF-8 in string";

    private final int maxDepth;
    private final boolean checkUtf8;
    /** A bit per open container past the innermost: set for an object. Grows by 64 levels. */
    private long[] stack = new long[1];
    private JsonError error;
    private int errorOffset;
    private int base;
    // The last value scanned by scanValue/value lookups.
    private byte kind;
    private int valueStart;
    private int valueEnd;
    private boolean escaped;
    /** Backslashes seen in strings, counted (wrapping) so that a caller can tell whether one string had any. */
    private int escapes;

    /** A scanner taking strings' bytes at or above 0x80 as they are, nesting up to {@link #MAX_DEPTH}. */
    public JsonScanner() {
        this(MAX_DEPTH, false);
    }

    /** A scanner rejecting nesting deeper than {@code maxDepth} and, when {@code checkUtf8}, invalid UTF-8. */
    public JsonScanner(int maxDepth, boolean checkUtf8) {
        this.maxDepth = maxDepth;
        this.checkUtf8 = checkUtf8;
    }

    /** Why the last scan failed, or null: one of this class's constants. */
    public String errorReason() {
        return error == null ? null : error.reason();
    }

    /** Why the last scan (or skip) failed, or null. */
    public JsonError error() {
        return error;
    }

    /** Offset of the failure, counted from the start of the scanned range. */
    public int errorOffset() {
        return errorOffset;
    }

    /** Kind of the last value found by {@link #scanValue} or {@link #findMember} (see {@link JsonFields}). */
    public byte kind() {
        return kind;
    }

    /** Start of the last value; for strings the first byte after the quote. */
    public int valueStart() {
        return valueStart;
    }

    /** End (exclusive) of the last value; for strings the closing quote. */
    public int valueEnd() {
        return valueEnd;
    }

    /** Whether the last string value contains escapes. */
    public boolean valueEscaped() {
        return escaped;
    }

    /**
     * Scans {@code b[off, end)}, which must hold exactly one JSON object (whitespace around it allowed), and
     * records its members in {@code out}. Returns false with {@link #errorReason()} set if it is not valid.
     */
    public boolean scanObject(byte[] b, int off, int end, JsonFields out) {
        return scanContainer(b, off, end, out, (byte) '{');
    }

    /** Like {@link #scanObject} for a document that is one array; elements are recorded with empty keys. */
    public boolean scanArray(byte[] b, int off, int end, JsonFields out) {
        return scanContainer(b, off, end, out, (byte) '[');
    }

    /** Validates that {@code b[off, end)} is exactly one JSON value and records it as the last value. */
    public boolean scanValue(byte[] b, int off, int end) {
        begin(off);
        int p = ws(b, off, end);
        p = value(b, p, end);
        return p >= 0 && finish(b, p, end);
    }

    /**
     * Finds the member named {@code key[ko, ko+kl)} (raw, unescaped keys only; the last one wins, as in Go) in
     * the object {@code b[off, end)} and records it as the last value. Returns false if the text is not an
     * object or has no such member.
     */
    public boolean findMember(byte[] b, int off, int end, byte[] key, int ko, int kl, JsonFields scratch) {
        if (!scanObject(b, off, end, scratch)) {
            return false;
        }
        int i = scratch.lastIndexOf(b, key, ko, kl);
        return i >= 0 && select(scratch, i);
    }

    /** Finds element {@code index} of the array {@code b[off, end)} and records it as the last value. */
    public boolean findElement(byte[] b, int off, int end, int index, JsonFields scratch) {
        return scanArray(b, off, end, scratch) && index >= 0 && index < scratch.size() && select(scratch, index);
    }

    /** Records member {@code i} of {@code f} (from the last scan) as the last value; returns true. */
    public boolean select(JsonFields f, int i) {
        kind = f.kind(i);
        valueStart = f.valueOffset(i);
        valueEnd = valueStart + f.valueLength(i);
        escaped = f.valueEscaped(i);
        return true;
    }

    private void begin(int off) {
        error = null;
        errorOffset = -1;
        base = off;
    }

    private boolean finish(byte[] b, int p, int end) {
        p = ws(b, p, end);
        return p >= end || fail(p, JsonError.TRAILING_DATA) >= 0;
    }

    private int fail(int at, JsonError why) {
        error = why;
        errorOffset = at - base;
        return -1;
    }

    private boolean scanContainer(byte[] b, int off, int end, JsonFields out, byte open) {
        begin(off);
        out.clear();
        int p = ws(b, off, end);
        if (p >= end || b[p] != open) {
            return fail(p, open == '{' ? JsonError.EXPECTED_OBJECT : JsonError.EXPECTED_ARRAY) >= 0;
        }
        p = members(b, p + 1, end, out, open == '{');
        return p >= 0 && finish(b, p, end);
    }

    /** Reads the members after the opening brace; returns the position after the closing one. */
    private int members(byte[] b, int p, int end, JsonFields out, boolean object) {
        byte close = object ? (byte) '}' : (byte) ']';
        p = ws(b, p, end);
        if (p < end && b[p] == close) {
            return p + 1;
        }
        for (;;) {
            int ko = 0;
            int kl = 0;
            boolean ke = false;
            if (object) {
                int mark = escapes;
                ko = p + 1;
                p = key(b, p, end);
                if (p < 0) {
                    return p;
                }
                kl = p - 1 - ko;
                ke = escapes != mark;
                p = colon(b, p, end);
                if (p < 0) {
                    return p;
                }
            }
            p = value(b, p, end);
            if (p < 0) {
                return p;
            }
            out.add(ko, kl, ke, valueStart, valueEnd - valueStart, kind, escaped);
            if (p >= end || (b[p] != ',' && b[p] != close)) { // compact JSON: ',' or the close right after
                p = ws(b, p, end);
                if (p >= end) {
                    return fail(p, JsonError.END_OF_INPUT);
                }
            }
            if (b[p] == close) {
                return p + 1;
            }
            if (b[p] != ',') {
                return fail(p, object ? JsonError.EXPECTED_COMMA_OR_BRACE : JsonError.EXPECTED_COMMA_OR_BRACKET);
            }
            p = ws(b, p + 1, end);
        }
    }

    /**
     * Skips the value at {@code p} (no whitespace before it), checking it as {@link #scanValue} does, and records it
     * as the last value. Returns the position after it, or -1 with {@link #error()} set (offsets from 0).
     */
    public int skipValue(byte[] b, int p, int end) {
        base = 0;
        if (p < end && (b[p] == '{' || b[p] == '[')) { // straight to the loop: one call per value, not two
            return record(b[p], p, container(b, p, end));
        }
        return value(b, p, end);
    }

    /** {@link #skipValue} for the string whose opening quote is at {@code p}. */
    public int skipString(byte[] b, int p, int end) {
        base = 0;
        int mark = escapes;
        int q = string(b, p, end);
        escaped = escapes != mark;
        return record((byte) '"', p, q);
    }

    /** {@link #skipValue} for a number at {@code p}; stops after its last digit, whatever follows. */
    public int skipNumber(byte[] b, int p, int end) {
        base = 0;
        return record((byte) '0', p, number(b, p, end));
    }

    /** Scans one value at {@code p} (no leading whitespace) and records it; returns the position after it. */
    private int value(byte[] b, int p, int end) {
        if (p >= end) {
            return fail(p, JsonError.END_OF_INPUT);
        }
        byte c = b[p];
        if (c == '{' || c == '[') {
            return record(c, p, container(b, p, end)); // which sets escaped
        }
        int mark = escapes;
        int q = scalar(b, p, end, c);
        escaped = escapes != mark;
        return record(c, p, q);
    }

    /** Records the value from {@code p} to {@code q} (-1: none), which starts with {@code c}, as the last value. */
    private int record(byte c, int p, int q) {
        if (q >= 0) {
            kind = c == '"' ? JsonFields.STRING : c == '{' ? JsonFields.OBJECT : c == '[' ? JsonFields.ARRAY
                    : c == 't' || c == 'f' ? JsonFields.BOOLEAN : c == 'n' ? JsonFields.NULL : JsonFields.NUMBER;
            valueStart = c == '"' ? p + 1 : p;
            valueEnd = c == '"' ? q - 1 : q;
        }
        return q;
    }

    /**
     * Checks the string, number or literal starting with {@code c} at {@code p}; returns the position after it.
     * Records nothing: the loop over a container's values stores nothing per value.
     */
    private int scalar(byte[] b, int p, int end, byte c) {
        switch (c) {
            case '"':
                return string(b, p, end);
            case 't':
                return literal(b, p, end, TRUE);
            case 'f':
                return literal(b, p, end, FALSE);
            case 'n':
                return literal(b, p, end, NULL);
            default:
                return c == '-' || (c >= '0' && c <= '9') ? number(b, p, end) : fail(p, JsonError.EXPECTED_VALUE);
        }
    }

    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private int literal(byte[] b, int p, int end, byte[] word) {
        if (p + word.length > end) {
            return fail(p, JsonError.END_IN_LITERAL);
        }
        for (int i = 1; i < word.length; i++) { // four or five bytes: a loop beats Arrays.equals' set-up
            if (b[p + i] != word[i]) {
                return fail(p, JsonError.BAD_LITERAL);
            }
        }
        return p + word.length;
    }

    private int number(byte[] b, int p, int end) {
        int q = JsonNumbers.end(b, p, end);
        return q >= 0 ? q : fail(-1 - q, JsonError.BAD_NUMBER);
    }

    /**
     * Scans the string whose opening quote is at {@code p}; returns the position after the closing quote, and
     * counts its escapes in {@link #escapes}. Eight bytes at a time while none is a quote, a backslash or a control
     * character (or, checking UTF-8, at or above 0x80): the common case of plain text.
     */
    private int string(byte[] b, int p, int end) {
        int i = p + 1;
        for (;;) {
            i = JsonStrings.plainEnd(b, i, end, checkUtf8);
            if (i >= end) {
                return fail(i, JsonError.END_IN_STRING);
            }
            int c = b[i] & 0xFF;
            if (c == '"') {
                return i + 1;
            }
            if (c == '\\') {
                escapes++;
                i = escape(b, i, end);
                if (i < 0) {
                    return i;
                }
            } else if (c < 0x20) {
                return fail(i, JsonError.CONTROL_CHARACTER);
            } else if (c >= 0x80 && checkUtf8) {
                int n = Utf8.sequence(b, i, end);
                if (n < 0) {
                    return fail(i, JsonError.BAD_UTF8);
                }
                i += n;
            } else {
                i++;
            }
        }
    }

    /** Validates the escape at {@code i} (a backslash); returns the position after it. */
    private int escape(byte[] b, int i, int end) {
        if (i + 1 >= end) {
            return fail(i, JsonError.END_IN_STRING);
        }
        switch (b[i + 1]) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
                return i + 2;
            case 'u':
                if (i + 6 > end) {
                    return fail(i, JsonError.END_IN_UNICODE_ESCAPE);
                }
                for (int k = i + 2; k < i + 6; k++) {
                    if (JsonStrings.hexValue(b[k]) < 0) {
                        return fail(i, JsonError.BAD_UNICODE_ESCAPE);
                    }
                }
                return i + 6;
            default:
                return fail(i, JsonError.BAD_ESCAPE);
        }
    }

    /**
     * Skips (and validates) a whole object or array, from its opening bracket, without recursion; returns the
     * position after it. One pass, the kind of the innermost container in a local and of the others in a bit
     * stack: consumer.HEC runs this for the nested values of every event.
     */
    private int container(byte[] b, int p, int end) {
        int depth = 0;
        boolean obj = false; // whether the innermost open container is an object
        boolean lastEscaped = false; // whether the last string value had escapes: what valueEscaped() has said
        for (;;) {
            // At a value: p after '[', ',' or ':' and whitespace (at the first bracket on entry).
            if (p >= end) {
                return fail(p, JsonError.END_OF_INPUT);
            }
            byte c = b[p];
            if (c == '"') { // the most common value first
                int mark = escapes;
                p = string(b, p, end);
                if (p < 0) {
                    return p;
                }
                lastEscaped = escapes != mark;
            } else if (c == '{' || c == '[') {
                if (depth >= maxDepth) {
                    return fail(p, JsonError.TOO_DEEP);
                }
                obj = c == '{';
                push(depth++, obj);
                p = ws(b, p + 1, end);
                if (p >= end || b[p] != (obj ? '}' : ']')) {
                    if (obj && (p = colon(b, key(b, p, end), end)) < 0) {
                        return p;
                    }
                    continue;
                }
                p++; // empty
                if (--depth == 0) {
                    escaped = lastEscaped;
                    return p;
                }
                obj = isObject(depth - 1);
            } else {
                p = scalar(b, p, end, c);
                if (p < 0) {
                    return p;
                }
                lastEscaped = false;
            }
            // After a value: close containers, or ',' and on to the next value.
            for (;;) {
                p = ws(b, p, end);
                if (p >= end) {
                    return fail(p, JsonError.END_OF_INPUT);
                }
                c = b[p];
                if (c == ',') {
                    p = ws(b, p + 1, end);
                    if (obj && (p = colon(b, key(b, p, end), end)) < 0) {
                        return p;
                    }
                    break;
                }
                if (c != (obj ? '}' : ']')) {
                    return fail(p, obj ? JsonError.EXPECTED_COMMA_OR_BRACE : JsonError.EXPECTED_COMMA_OR_BRACKET);
                }
                p++;
                if (--depth == 0) {
                    escaped = lastEscaped;
                    return p;
                }
                obj = isObject(depth - 1);
            }
        }
    }

    /** Reads an object's key at {@code p}; returns the position after it. */
    private int key(byte[] b, int p, int end) {
        if (p >= end || b[p] != '"') {
            return fail(p, p >= end ? JsonError.END_BEFORE_KEY : JsonError.EXPECTED_KEY);
        }
        return string(b, p, end);
    }

    /** Reads the colon after a key ending at {@code p} (-1: passed on) and whitespace; returns where the value is. */
    private int colon(byte[] b, int p, int end) {
        if (p < 0) {
            return p;
        }
        if (p >= end || b[p] != ':') { // compact JSON: the colon right after the key
            p = ws(b, p, end);
            if (p >= end || b[p] != ':') {
                return fail(p, p >= end ? JsonError.END_BEFORE_COLON : JsonError.EXPECTED_COLON);
            }
        }
        return ws(b, p + 1, end);
    }

    private void push(int depth, boolean object) {
        int w = depth >> 6;
        if (w == stack.length) {
            stack = java.util.Arrays.copyOf(stack, w * 2);
        }
        long bit = 1L << depth; // shifts count mod 64
        stack[w] = object ? stack[w] | bit : stack[w] & ~bit;
    }

    private boolean isObject(int depth) {
        return (stack[depth >> 6] & (1L << depth)) != 0;
    }

    /** Skips JSON whitespace from {@code p}; returns the first other position (or {@code end}). */
    public static int ws(byte[] b, int p, int end) {
        if (p < end && b[p] > ' ') {
            return p; // the common case, compact JSON: one compare instead of four
        }
        while (p < end) {
            byte c = b[p];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return p;
            }
            p++;
        }
        return p;
    }
}

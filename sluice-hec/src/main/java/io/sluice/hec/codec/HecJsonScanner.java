package io.sluice.hec.codec;

import io.sluice.core.json.JsonStrings;

/**
 * A validating JSON scanner over UTF-8 bytes that never builds a tree: it finds where a value ends, checks
 * the grammar, checks UTF-8 inside strings, and unescapes strings into a reused buffer. Nesting is tracked
 * with a bit stack of fixed size, so a 10,000-deep document is rejected at {@link #maxDepth()} without
 * recursion or allocation. One instance per thread; it keeps scratch state.
 *
 * <p>Only consumer.HEC's {@code EventParser} uses it now (the encoder checks payloads with core's
 * {@link io.sluice.core.json.JsonScanner}, UTF-8 checked); moving the parser onto core's scanner needs its skip and
 * unescape calls there, and a choice for its different error texts and lone-surrogate unescaping.
 */
public final class HecJsonScanner {
    /** Returned (negated positions are never used) when the input is not valid JSON. */
    public static final int ERROR = -1;

    private final int maxDepth;
    private final long[] stack;
    private final ByteOut scratch = new ByteOut(256);
    private String error;

    /** A scanner rejecting documents nested deeper than {@code maxDepth}. */
    public HecJsonScanner(int maxDepth) {
        this.maxDepth = maxDepth;
        this.stack = new long[(maxDepth >> 6) + 1];
    }

    public int maxDepth() {
        return maxDepth;
    }

    /** Why the last call returned {@link #ERROR}. */
    public String error() {
        return error;
    }

    private int fail(String why) {
        error = why;
        return ERROR;
    }

    /** Skips JSON whitespace. */
    public static int ws(byte[] b, int p, int end) {
        while (p < end) {
            byte c = b[p];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                break;
            }
            p++;
        }
        return p;
    }

    /** True when {@code b[off, end)} is exactly one JSON object or array, with optional surrounding whitespace. */
    public boolean isJsonContainer(byte[] b, int off, int end) {
        int p = ws(b, off, end);
        if (p >= end || (b[p] != '{' && b[p] != '[')) {
            return false;
        }
        int q = skipValue(b, p, end);
        return q >= 0 && ws(b, q, end) == end;
    }

    /**
     * Returns the position after the value starting at {@code p} (whitespace skipped first), or {@link #ERROR}.
     * One pass, no calls for whitespace that is not there (the compact JSON most senders write), and the kind of
     * the innermost container kept in a local: this runs once per event of every HEC request.
     */
    public int skipValue(byte[] b, int p, int end) {
        int depth = 0;
        boolean obj = false; // whether the innermost open container is an object (when depth > 0)
        while (true) {
            if (p < end && b[p] <= ' ') {
                p = ws(b, p, end);
            }
            if (p >= end) {
                return fail("unexpected end of data");
            }
            byte c = b[p];
            if (c == '"') {
                p = skipString(b, p, end);
            } else if (c == '{' || c == '[') {
                boolean isObj = c == '{';
                p++;
                if (p < end && b[p] <= ' ') {
                    p = ws(b, p, end);
                }
                if (p < end && b[p] == (isObj ? '}' : ']')) {
                    p++;
                } else {
                    if (depth >= maxDepth) {
                        return fail("nested deeper than " + maxDepth);
                    }
                    setTop(depth++, isObj);
                    obj = isObj;
                    if (isObj) {
                        p = key(b, p, end);
                        if (p < 0) {
                            return ERROR;
                        }
                    }
                    continue;
                }
            } else if (c == 't') {
                p = literal(b, p, end, TRUE);
            } else if (c == 'f') {
                p = literal(b, p, end, FALSE);
            } else if (c == 'n') {
                p = literal(b, p, end, NULL);
            } else {
                p = skipNumber(b, p, end);
            }
            if (p < 0) {
                return ERROR;
            }
            // After a complete value: close containers or move to the next element.
            while (depth > 0) {
                if (p < end && b[p] <= ' ') {
                    p = ws(b, p, end);
                }
                if (p >= end) {
                    return fail("unexpected end of data");
                }
                c = b[p];
                if (c == ',') {
                    p++;
                    if (obj) {
                        if (p < end && b[p] <= ' ') {
                            p = ws(b, p, end);
                        }
                        p = key(b, p, end);
                        if (p < 0) {
                            return ERROR;
                        }
                    }
                    break;
                }
                if (c != (obj ? '}' : ']')) {
                    return fail("expected ',' or a closing bracket");
                }
                p++;
                if (--depth > 0) {
                    obj = isObject(depth - 1);
                }
            }
            if (depth == 0) {
                return p;
            }
        }
    }

    /** Reads {@code "key" :} at p; returns the position after the colon. */
    private int key(byte[] b, int p, int end) {
        if (p >= end || b[p] != '"') {
            return fail("expected a key string");
        }
        p = skipString(b, p, end);
        if (p < 0) {
            return ERROR;
        }
        if (p < end && b[p] == ':') {
            return p + 1;
        }
        p = ws(b, p, end);
        if (p >= end || b[p] != ':') {
            return fail("expected ':'");
        }
        return p + 1;
    }

    private void setTop(int depth, boolean object) {
        long bit = 1L << (depth & 63);
        if (object) {
            stack[depth >> 6] |= bit;
        } else {
            stack[depth >> 6] &= ~bit;
        }
    }

    private boolean isObject(int depth) {
        return (stack[depth >> 6] & (1L << (depth & 63))) != 0;
    }

    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private int literal(byte[] b, int p, int end, byte[] word) {
        if (end - p < word.length) {
            return fail("unexpected end of data");
        }
        for (int i = 0; i < word.length; i++) {
            if (b[p + i] != word[i]) {
                return fail("invalid literal");
            }
        }
        return p + word.length;
    }

    /** Skips a number as JSON defines it; returns the position after it. */
    public int skipNumber(byte[] b, int p, int end) {
        int start = p;
        if (p < end && b[p] == '-') {
            p++;
        }
        if (p >= end) {
            return fail("invalid number");
        }
        if (b[p] == '0') {
            p++;
        } else if (b[p] >= '1' && b[p] <= '9') {
            while (p < end && b[p] >= '0' && b[p] <= '9') {
                p++;
            }
        } else {
            return fail(start == p ? "unexpected character" : "invalid number");
        }
        if (p < end && b[p] == '.') {
            p++;
            int d = p;
            while (p < end && b[p] >= '0' && b[p] <= '9') {
                p++;
            }
            if (p == d) {
                return fail("invalid number");
            }
        }
        if (p < end && (b[p] == 'e' || b[p] == 'E')) {
            p++;
            if (p < end && (b[p] == '+' || b[p] == '-')) {
                p++;
            }
            int d = p;
            while (p < end && b[p] >= '0' && b[p] <= '9') {
                p++;
            }
            if (p == d) {
                return fail("invalid number");
            }
        }
        return p;
    }

    /** Skips a string starting at the quote at p, validating escapes and UTF-8; returns the position after it. */
    public int skipString(byte[] b, int p, int end) {
        p++;
        while (p < end) {
            p = JsonStrings.plainEnd(b, p, end, true); // ASCII text needs no check beyond this
            if (p >= end) {
                break;
            }
            byte c = b[p];
            if (c == '"') {
                return p + 1;
            }
            if (c == '\\') {
                if (p + 1 >= end) {
                    break;
                }
                byte e = b[p + 1];
                if (e == 'u') {
                    if (p + 6 > end || hex(b, p + 2) < 0) {
                        return fail("invalid \\u escape");
                    }
                    p += 6;
                } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                    p += 2;
                } else {
                    return fail("invalid escape");
                }
            } else if (c >= 0) {
                return fail("control character in string"); // plainEnd stops at no other ASCII byte
            } else {
                p = utf8(b, p, end);
                if (p < 0) {
                    return ERROR;
                }
            }
        }
        return fail("unterminated string");
    }

    /** Validates one multi-byte UTF-8 sequence at p; returns the position after it. */
    private int utf8(byte[] b, int p, int end) {
        int c = b[p] & 0xFF;
        int n;
        int min;
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
            min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            min = 0x10000;
        } else {
            return fail("invalid UTF-8");
        }
        if (p + n >= end) {
            return fail("invalid UTF-8");
        }
        int cp = c & (0x3F >> n);
        for (int i = 1; i <= n; i++) {
            int x = b[p + i] & 0xFF;
            if ((x & 0xC0) != 0x80) {
                return fail("invalid UTF-8");
            }
            cp = (cp << 6) | (x & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return fail("invalid UTF-8");
        }
        return p + n + 1;
    }

    private static int hex(byte[] b, int p) {
        int v = 0;
        for (int i = 0; i < 4; i++) {
            int d = Character.digit(b[p + i], 16);
            if (d < 0) {
                return -1;
            }
            v = (v << 4) | d;
        }
        return v;
    }

    /**
     * Unescapes the string whose opening quote is at {@code p} (already validated by {@link #skipString}) and
     * whose closing quote is at {@code close}. Returns the buffer holding the text: the input itself when it has
     * no escapes ({@link #textOffset()} then points into it), otherwise the scratch buffer.
     */
    public byte[] text(byte[] b, int p, int close) {
        int start = p + 1;
        int i = start;
        while (i < close && b[i] != '\\') {
            i++;
        }
        if (i == close) {
            textOff = start;
            textLen = close - start;
            return b;
        }
        ByteOut s = scratch;
        s.clear();
        s.write(b, start, i - start);
        while (i < close) {
            byte c = b[i];
            if (c != '\\') {
                s.write(c);
                i++;
                continue;
            }
            byte e = b[i + 1];
            i += 2;
            switch (e) {
                case 'n': s.write('\n'); break;
                case 'r': s.write('\r'); break;
                case 't': s.write('\t'); break;
                case 'b': s.write('\b'); break;
                case 'f': s.write('\f'); break;
                case 'u': {
                    int cp = hex(b, i);
                    i += 4;
                    if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= close && b[i] == '\\' && b[i + 1] == 'u') {
                        int lo = hex(b, i + 2);
                        if (lo >= 0xDC00 && lo <= 0xDFFF) {
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                            i += 6;
                        }
                    }
                    writeCodePoint(s, cp);
                    break;
                }
                default:
                    s.write(e);
            }
        }
        textOff = 0;
        textLen = s.length();
        return s.array();
    }

    private int textOff;
    private int textLen;

    /** Offset of the last {@link #text} result in its buffer. */
    public int textOffset() {
        return textOff;
    }

    /** Length of the last {@link #text} result. */
    public int textLength() {
        return textLen;
    }

    private static void writeCodePoint(ByteOut s, int cp) {
        if (cp < 0x80) {
            s.write(cp);
        } else if (cp < 0x800) {
            s.write(0xC0 | (cp >> 6));
            s.write(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            if (cp >= 0xD800 && cp <= 0xDFFF) {
                cp = 0xFFFD; // a lone surrogate has no UTF-8 form: the replacement character, as decoders do
            }
            s.write(0xE0 | (cp >> 12));
            s.write(0x80 | ((cp >> 6) & 0x3F));
            s.write(0x80 | (cp & 0x3F));
        } else {
            s.write(0xF0 | (cp >> 18));
            s.write(0x80 | ((cp >> 12) & 0x3F));
            s.write(0x80 | ((cp >> 6) & 0x3F));
            s.write(0x80 | (cp & 0x3F));
        }
    }
}

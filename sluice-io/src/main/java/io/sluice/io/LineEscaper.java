package io.sluice.io;

import io.sluice.core.json.JsonStrings;
import io.sluice.core.json.Utf8;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps one record on one line, whatever its payload holds: no newline, carriage return or other control byte
 * of a payload reaches a line-oriented output as such, so no input can forge a record boundary (or slip a NUL
 * into a file). Used by {@code producer.File} and by {@code producer.Socket} with delimiter framing.
 *
 * <p>A payload that starts with '{' is a JSON value (NDJSON output): a control byte inside a JSON string becomes
 * its JSON escape ({@code \n}, {@code \r}, {@code \t}, {@code \b}, {@code \f}, or backslash-u 00XX, DEL as
 * backslash-u 007f), so the line parses back to the same text; tab, LF and CR between values (pretty-printed JSON)
 * become a space, which JSON reads the same, and other control bytes there their backslash-u escape; a backslash in a string that starts no valid escape becomes
 * {@code \\}; bytes that are not valid UTF-8 become U+FFFD, one per invalid sequence as the JDK's decoder counts
 * them, counted in {@code sluice_invalid_utf8_total}.
 *
 * <p>Any other payload is plain text: LF is written as the two characters {@code \n}, CR as {@code \r}, every
 * other control byte (below 0x20, and DEL 0x7f) but tab as {@code \xHH} (two lowercase hex digits); tab and
 * bytes at or above 0x80 stay as they are. A backslash is doubled only where it would otherwise read as one of
 * these escapes: before {@code \}, {@code n}, {@code r}, {@code x} or a byte that is escaped. Reading
 * {@code \\} as one backslash, {@code \n}, {@code \r}, {@code \xHH} as their bytes and any other backslash as
 * itself gives the payload back exactly.
 *
 * <p>The common case is one word-at-a-time scan ({@link JsonStrings#controlEnd}) that finds nothing, after which
 * the caller copies the payload as it is; only a payload that needs escaping is scanned again to be measured and
 * a third time to be written. Nothing is allocated per payload. Not thread-safe: one instance per writer.
 */
public final class LineEscaper {
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final AtomicLong invalidUtf8;

    /** @param invalidUtf8 counts the invalid UTF-8 sequences replaced with U+FFFD in JSON payloads */
    public LineEscaper(AtomicLong invalidUtf8) {
        this.invalidUtf8 = invalidUtf8;
    }

    /**
     * The length of {@code p[0, len)} without its own line end: one trailing LF or CRLF ends the record and is
     * not part of what is escaped.
     */
    public static int content(byte[] p, int len) {
        if (len > 0 && p[len - 1] == '\n') {
            len--;
            if (len > 0 && p[len - 1] == '\r') {
                len--;
            }
        }
        return len;
    }

    /**
     * How many bytes {@link #write} makes of {@code p[off, off+len)}, or -1 when the bytes go out as they are
     * (the common case: then copy them).
     */
    public int measure(byte[] p, int off, int len) {
        int end = off + len;
        if (len > 0 && p[off] == '{') {
            // Pure ASCII without control bytes needs nothing, in or out of strings; valid UTF-8 neither.
            int i = off;
            while ((i = JsonStrings.controlEnd(p, i, end, false, false, true)) < end) {
                int n = p[i] < 0 ? Utf8.sequence(p, i, end) : 0;
                if (n <= 0) {
                    return json(p, off, end, null, 0);
                }
                i += n;
            }
            return -1;
        }
        int i = off;
        while ((i = JsonStrings.controlEnd(p, i, end, false, true, false)) < end) {
            if (p[i] == '\t' || p[i] == '\\' && !backslashEscaped(p, i + 1, end)) {
                i++;
            } else {
                return text(p, off, end, null, 0);
            }
        }
        return -1;
    }

    /**
     * Writes {@code p[off, off+len)} escaped into {@code dst} at {@code at}, which has the room {@link #measure}
     * reported; returns the position after it.
     */
    public int write(byte[] p, int off, int len, byte[] dst, int at) {
        int end = off + len;
        return len > 0 && p[off] == '{' ? json(p, off, end, dst, at) : text(p, off, end, dst, at);
    }

    private static boolean backslashEscaped(byte[] p, int next, int end) {
        if (next >= end) {
            return false;
        }
        int c = p[next] & 0xFF;
        return c == '\\' || c == 'n' || c == 'r' || c == 'x' || c == 0x7F || c < 0x20 && c != '\t';
    }

    /** Plain text; with {@code dst} null only measures. Returns the end position (the length when measuring). */
    private static int text(byte[] p, int i, int end, byte[] dst, int w) {
        while (i < end) {
            int run = JsonStrings.controlEnd(p, i, end, false, true, false);
            w = copy(p, i, run, dst, w);
            i = run;
            if (i == end) {
                break;
            }
            int c = p[i++] & 0xFF;
            if (c == '\t') {
                w = put(dst, w, c);
            } else if (c == '\\') {
                w = put(dst, w, '\\');
                if (backslashEscaped(p, i, end)) {
                    w = put(dst, w, '\\');
                }
            } else if (c == '\n') {
                w = put(dst, put(dst, w, '\\'), 'n');
            } else if (c == '\r') {
                w = put(dst, put(dst, w, '\\'), 'r');
            } else {
                w = put(dst, put(dst, w, '\\'), 'x');
                w = put(dst, put(dst, w, HEX[c >> 4]), HEX[c & 0xF]);
            }
        }
        return w;
    }

    /** A JSON value; with {@code dst} null only measures (and counts nothing). */
    private int json(byte[] p, int i, int end, byte[] dst, int w) {
        boolean inString = false;
        long invalid = 0;
        while (i < end) {
            // Outside strings a backslash is copied like any byte; inside, it starts an escape.
            int run = JsonStrings.controlEnd(p, i, end, true, inString, true);
            w = copy(p, i, run, dst, w);
            i = run;
            if (i == end) {
                break;
            }
            int c = p[i] & 0xFF;
            if (c == '"') {
                inString = !inString;
                w = put(dst, w, c);
                i++;
            } else if (c == '\\') {
                int next = i + 1 < end ? p[i + 1] & 0xFF : -1;
                w = put(dst, w, '\\');
                if (next >= 0x20 && next < 0x7F) {
                    // An escape (or an invalid one made of printable bytes): kept, and the byte after it is not a quote.
                    w = put(dst, w, next);
                    i += 2;
                } else {
                    w = put(dst, w, '\\');
                    i++;
                }
            } else if (c >= 0x80) {
                int n = Utf8.sequence(p, i, end);
                if (n > 0) {
                    w = copy(p, i, i + n, dst, w);
                    i += n;
                } else {
                    w = copy(Utf8.REPLACEMENT, 0, 3, dst, w);
                    invalid++;
                    i -= n;
                }
            } else {
                i++;
                if (!inString && (c == '\n' || c == '\r' || c == '\t')) {
                    w = put(dst, w, ' ');
                } else {
                    w = escapeControl(c, dst, w);
                }
            }
        }
        if (dst != null && invalid > 0) {
            invalidUtf8.addAndGet(invalid);
        }
        return w;
    }

    private static int escapeControl(int c, byte[] dst, int w) {
        w = put(dst, w, '\\');
        switch (c) {
            case '\n':
                return put(dst, w, 'n');
            case '\r':
                return put(dst, w, 'r');
            case '\t':
                return put(dst, w, 't');
            case '\b':
                return put(dst, w, 'b');
            case '\f':
                return put(dst, w, 'f');
            default:
                w = put(dst, put(dst, put(dst, w, 'u'), '0'), '0');
                return put(dst, put(dst, w, HEX[c >> 4]), HEX[c & 0xF]);
        }
    }

    private static int put(byte[] dst, int w, int c) {
        if (dst != null) {
            dst[w] = (byte) c;
        }
        return w + 1;
    }

    private static int copy(byte[] src, int from, int to, byte[] dst, int w) {
        int n = to - from;
        if (dst != null && n > 0) {
            System.arraycopy(src, from, dst, w, n);
        }
        return w + n;
    }
}

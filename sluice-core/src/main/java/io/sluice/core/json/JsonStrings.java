package io.sluice.core.json;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Unescaping and escaping of JSON string contents, byte for byte, without Strings.
 *
 * <p>Unescaping never writes more bytes than it reads (a six-byte {@code \\u00e9} becomes at most three UTF-8
 * bytes, a twelve-byte surrogate pair four), so it can run in place. Escaping writes only what JSON requires
 * ({@code "}, {@code \}, control characters) and copies every other byte unchanged, so non-UTF-8 bytes
 * round-trip exactly. A lone surrogate (backslash-u d800) is kept as its three-byte generalised UTF-8 form
 * and escaped back to the same escape on output, so it round-trips too (Go would turn it into U+FFFD).
 */
public final class JsonStrings {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private JsonStrings() {
    }

    /**
     * Unescapes the contents of a validated JSON string {@code src[off, off+len)} (without quotes) into
     * {@code dst} at {@code dstOff}; {@code dst} may be {@code src} with {@code dstOff <= off}. Returns the
     * number of bytes written. A lone surrogate escape is written as its three generalised-UTF-8 bytes, which
     * {@link #escape} turns back into the escape.
     */
    public static int unescape(byte[] src, int off, int len, byte[] dst, int dstOff) {
        return unescape(src, off, len, dst, dstOff, false);
    }

    /**
     * {@link #unescape}, writing a lone surrogate escape as U+FFFD instead when {@code replaceLoneSurrogates}
     * (what Go's encoding/json does): the result is then valid UTF-8 when the input was.
     */
    public static int unescape(byte[] src, int off, int len, byte[] dst, int dstOff, boolean replaceLoneSurrogates) {
        int end = off + len;
        int w = dstOff;
        int i = off;
        while (i < end) {
            byte c = src[i];
            if (c != '\\') {
                dst[w++] = c;
                i++;
                continue;
            }
            byte e = src[i + 1];
            if (e != 'u') {
                dst[w++] = simple(e);
                i += 2;
                continue;
            }
            int cu = hex4(src, i + 2);
            i += 6;
            if (Character.isHighSurrogate((char) cu) && i + 6 <= end && src[i] == '\\' && src[i + 1] == 'u') {
                int low = hex4(src, i + 2);
                if (Character.isLowSurrogate((char) low)) {
                    w = utf8(Character.toCodePoint((char) cu, (char) low), dst, w);
                    i += 6;
                    continue;
                }
            }
            if (replaceLoneSurrogates && Character.isSurrogate((char) cu)) {
                cu = 0xFFFD;
            }
            w = utf8(cu, dst, w);
        }
        return w - dstOff;
    }

    private static byte simple(byte e) {
        switch (e) {
            case 'b':
                return '\b';
            case 'f':
                return '\f';
            case 'n':
                return '\n';
            case 'r':
                return '\r';
            case 't':
                return '\t';
            default:
                return e; // " \ /
        }
    }

    static int hexValue(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static int hex4(byte[] b, int at) {
        return hexValue(b[at]) << 12 | hexValue(b[at + 1]) << 8 | hexValue(b[at + 2]) << 4 | hexValue(b[at + 3]);
    }

    /** Writes a code point (or a lone surrogate, as three bytes) as UTF-8; returns the new write position. */
    private static int utf8(int cp, byte[] dst, int w) {
        if (cp < 0x80) {
            dst[w++] = (byte) cp;
        } else if (cp < 0x800) {
            dst[w++] = (byte) (0xC0 | cp >> 6);
            dst[w++] = (byte) (0x80 | cp & 0x3F);
        } else if (cp < 0x10000) {
            dst[w++] = (byte) (0xE0 | cp >> 12);
            dst[w++] = (byte) (0x80 | cp >> 6 & 0x3F);
            dst[w++] = (byte) (0x80 | cp & 0x3F);
        } else {
            dst[w++] = (byte) (0xF0 | cp >> 18);
            dst[w++] = (byte) (0x80 | cp >> 12 & 0x3F);
            dst[w++] = (byte) (0x80 | cp >> 6 & 0x3F);
            dst[w++] = (byte) (0x80 | cp & 0x3F);
        }
        return w;
    }

    /** The most bytes {@link #escape} can write for {@code len} input bytes. */
    public static int maxEscapedLength(int len) {
        return len * 6;
    }

    /**
     * Escapes {@code src[off, off+len)} as JSON string contents (no quotes) into {@code dst} at {@code dstOff},
     * which must have {@link #maxEscapedLength} bytes of room. Returns the number of bytes written.
     */
    public static int escape(byte[] src, int off, int len, byte[] dst, int dstOff) {
        int w = dstOff;
        int end = off + len;
        for (int i = off; i < end; i++) {
            int c = src[i] & 0xFF;
            if (c >= 0x20 && c != '"' && c != '\\' && c != 0xED) {
                dst[w++] = (byte) c;
            } else if (c == 0xED && surrogatePair(src, i, end)) {
                // A high and a low surrogate as six raw bytes: as two escapes they would read back as one code point
                // (four bytes), so they are copied as they are, like other invalid UTF-8.
                System.arraycopy(src, i, dst, w, 6);
                w += 6;
                i += 5;
            } else if (c == 0xED && i + 2 < end && (src[i + 1] & 0xE0) == 0xA0 && (src[i + 2] & 0xC0) == 0x80) {
                // ED A0..BF 80..BF is a surrogate code unit (only backslash-u escapes produce it): write it back
                // escaped. Any other third byte is not part of it and is copied as it is, like other invalid UTF-8.
                int cu = 0xD000 | (src[i + 1] & 0x3F) << 6 | src[i + 2] & 0x3F;
                w = unicode(cu, dst, w);
                i += 2;
            } else if (c == 0xED) {
                dst[w++] = (byte) c;
            } else {
                w = escapeAscii(c, dst, w);
            }
        }
        return w - dstOff;
    }

    /** Whether {@code src[i, i+6)} is a high surrogate's three bytes (ED A0..AF xx) then a low one's (ED B0..BF xx). */
    private static boolean surrogatePair(byte[] src, int i, int end) {
        return i + 5 < end && (src[i + 1] & 0xF0) == 0xA0 && (src[i + 2] & 0xC0) == 0x80
                && (src[i + 3] & 0xFF) == 0xED && (src[i + 4] & 0xF0) == 0xB0 && (src[i + 5] & 0xC0) == 0x80;
    }

    private static int escapeAscii(int c, byte[] dst, int w) {
        dst[w++] = '\\';
        switch (c) {
            case '"':
                dst[w++] = '"';
                return w;
            case '\\':
                dst[w++] = '\\';
                return w;
            case '\n':
                dst[w++] = 'n';
                return w;
            case '\r':
                dst[w++] = 'r';
                return w;
            case '\t':
                dst[w++] = 't';
                return w;
            case '\b':
                dst[w++] = 'b';
                return w;
            case '\f':
                dst[w++] = 'f';
                return w;
            default:
                return unicode(c, dst, w - 1);
        }
    }

    private static int unicode(int cu, byte[] dst, int w) {
        dst[w++] = '\\';
        dst[w++] = 'u';
        dst[w++] = HEX[cu >> 12 & 0xF];
        dst[w++] = HEX[cu >> 8 & 0xF];
        dst[w++] = HEX[cu >> 4 & 0xF];
        dst[w++] = HEX[cu & 0xF];
        return w;
    }

    /**
     * Where the run of plain string text starting at {@code from} ends: the index of the first byte in
     * {@code b[from, to)} that is '"', '\\' or a control character (below 0x20), or, with {@code stopAtNonAscii},
     * at or above 0x80 (for a caller that validates UTF-8); {@code to} when there is none. Eight bytes per step.
     */
    public static int plainEnd(byte[] b, int from, int to, boolean stopAtNonAscii) {
        long high = stopAtNonAscii ? 0x8080808080808080L : 0;
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long w = word(b, i);
            long hits = specials(w) | (w & high);
            if (hits != 0) {
                // The lowest flagged byte is exact: borrows only disturb bytes above a real hit.
                return i + (Long.numberOfTrailingZeros(hits) >>> 3);
            }
        }
        if (i < to && i + 8 <= b.length) {
            // The last 1-7 bytes as one word read past the range (still inside the array), bytes past it masked
            // off: exact, since a byte past the range can only disturb the flags above it.
            long w = word(b, i);
            long hits = (specials(w) | (w & high)) & ((1L << ((to - i) << 3)) - 1);
            return hits == 0 ? to : i + (Long.numberOfTrailingZeros(hits) >>> 3);
        }
        for (; i < to; i++) {
            int c = b[i] & 0xFF;
            if (c == '"' || c == '\\' || c < 0x20 || stopAtNonAscii && c >= 0x80) {
                return i;
            }
        }
        return to;
    }

    /**
     * Copies the run of plain text at the start of {@code src[from, to)} to {@code dst} at {@code dstOff} and
     * returns where it ends: as {@link #plainEnd} with {@code stopAtNonAscii}, but the scan and the copy are one
     * load and one store per eight bytes, which for the short strings of log records beats a scan followed by
     * {@code System.arraycopy}. {@code dst} must have room for {@code to - from + 8} bytes from {@code dstOff}:
     * whole words are stored, so up to 8 bytes past the run are written over (the caller's next write goes there).
     */
    public static int copyPlain(byte[] src, int from, int to, byte[] dst, int dstOff) {
        int i = from;
        int d = dstOff;
        while (i < to && i + 8 <= src.length) {
            long w = word(src, i);
            putWord(dst, d, w);
            long hits = specials(w) | (w & HIGHS);
            int left = to - i;
            if (left < 8) {
                hits &= (1L << (left << 3)) - 1; // bytes past the range (read, not part of it) are no hits
            }
            if (hits != 0) {
                return i + (Long.numberOfTrailingZeros(hits) >>> 3);
            }
            if (left <= 8) {
                return to;
            }
            i += 8;
            d += 8;
        }
        for (; i < to; i++, d++) {
            int c = src[i] & 0xFF;
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) {
                return i;
            }
            dst[d] = (byte) c;
        }
        return to;
    }

    private static final long HIGHS = 0x8080808080808080L;
    private static final long ONES = 0x0101010101010101L;
    private static final long SPACES = 0x2020202020202020L;
    private static final long DELS = 0x7F7F7F7F7F7F7F7FL;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;

    /**
     * {@link #plainEnd}'s scanner for text that goes on one line: the index of the first control character in
     * {@code b[from, to)} (below 0x20, or DEL 0x7f), or of the first '"' with {@code stopAtQuote}, '\\' with
     * {@code stopAtBackslash}, byte at or above 0x80 with {@code stopAtNonAscii}; {@code to} when there is none.
     * Eight bytes per step, like {@link #plainEnd}.
     */
    public static int controlEnd(byte[] b, int from, int to, boolean stopAtQuote, boolean stopAtBackslash,
                                 boolean stopAtNonAscii) {
        long quotes = stopAtQuote ? HIGHS : 0;
        long backslashes = stopAtBackslash ? HIGHS : 0;
        long high = stopAtNonAscii ? HIGHS : 0;
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long w = word(b, i);
            long q = w ^ QUOTES;
            long s = w ^ BACKSLASHES;
            long d = w ^ DELS;
            // Each term flags its lowest real hit exactly (a borrow only disturbs bytes above a real hit), so the
            // lowest flagged byte of the union is exact too.
            long hits = ((w - SPACES) & ~w & HIGHS) | ((d - ONES) & ~d & HIGHS)
                    | ((q - ONES) & ~q & quotes) | ((s - ONES) & ~s & backslashes) | (w & high);
            if (hits != 0) {
                return i + (Long.numberOfTrailingZeros(hits) >>> 3);
            }
        }
        for (; i < to; i++) {
            int c = b[i] & 0xFF;
            if (c < 0x20 || c == 0x7F || stopAtQuote && c == '"' || stopAtBackslash && c == '\\'
                    || stopAtNonAscii && c >= 0x80) {
                return i;
            }
        }
        return to;
    }

    /**
     * Flags (high bit of the byte) the bytes of a little-endian word that are '"', '\\' or below 0x20; bytes at
     * or above 0x80 are never flagged. Zero when the eight bytes are plain string text.
     */
    static long specials(long w) {
        // Each term is the zero-byte test (x - ONES) & ~x & HIGHS; '"' and '\\' have no high bit, so ~q and ~s
        // have the high bits of ~w, and one ~w serves all three: two operations fewer per word, same result.
        long q = w ^ QUOTES;
        long s = w ^ BACKSLASHES;
        return ((q - ONES) | (s - ONES) | (w - SPACES)) & ~w & HIGHS;
    }

    /** Reads eight bytes at {@code i} as a little-endian word. */
    static long word(byte[] b, int i) {
        return (long) LONGS.get(b, i);
    }

    /** Writes {@link #word}'s eight bytes at {@code i}. */
    static void putWord(byte[] b, int i, long w) {
        LONGS.set(b, i, w);
    }

    /** Whether {@code src[off, off+len)} needs no escaping at all (the common case: copy it as is). */
    public static boolean isPlain(byte[] src, int off, int len) {
        int end = off + len;
        int i = off;
        for (; i + 8 <= end; i += 8) {
            long w = word(src, i);
            long e = w ^ 0xEDEDEDEDEDEDEDEDL;
            if ((specials(w) | ((e - 0x0101010101010101L) & ~e & 0x8080808080808080L)) != 0) {
                return false;
            }
        }
        for (; i < end; i++) {
            int c = src[i] & 0xFF;
            if (c < 0x20 || c == '"' || c == '\\' || c == 0xED) {
                return false;
            }
        }
        return true;
    }
}

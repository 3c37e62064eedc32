package io.sluice.hec.codec;

import io.sluice.core.json.Decimal;
import io.sluice.core.message.GzipWriter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer with the few JSON writes the HEC encoder needs. One instance is reused for every batch
 * an encoder handles: it grows to the working size once and is then written in place, so encoding allocates
 * nothing per event.
 *
 * <p>Two ways to write. The {@code write*} methods grow the buffer as needed. The static {@code put*} methods
 * write at a position of an array the caller made room in ({@link #ensure}) and return the new position: an
 * encoder that reserves an event's worst-case size once can then keep the position in a local variable, instead
 * of loading, checking and storing the buffer's length around every small write (that traffic was a large share
 * of encoding a HEC event). Both produce the same bytes.
 */
public final class ByteOut implements GzipWriter.Out {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    /** 0: copy as is; 1: two-character escape; 2: \\u00XX. Indexed by unsigned byte values below 128. */
    private static final byte[] ESCAPE = new byte[128];
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    /** Escaping a long string is done in slices, so that its worst case (6 bytes per byte) is reserved per slice. */
    private static final int SLICE = 4096;

    /** Bytes {@link #putEpochSeconds} may write. */
    public static final int MAX_EPOCH_SECONDS = 30;

    static {
        for (int i = 0; i < 0x20; i++) {
            ESCAPE[i] = 2;
        }
        ESCAPE['"'] = 1;
        ESCAPE['\\'] = 1;
        ESCAPE['\n'] = 1;
        ESCAPE['\r'] = 1;
        ESCAPE['\t'] = 1;
        ESCAPE['\b'] = 1;
        ESCAPE['\f'] = 1;
    }

    private byte[] buf;
    private int len;

    /** A buffer with an initial capacity. */
    public ByteOut(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    /** The backing array; valid in {@code [0, length())} until the next write. */
    public byte[] array() {
        return buf;
    }

    @Override
    public int length() {
        return len;
    }

    /** Moves the write position (back, to drop what was written after it; or on, after {@code put*} writes). */
    @Override
    public void setLength(int newLength) {
        if (newLength < 0 || newLength > buf.length) {
            throw new IndexOutOfBoundsException(newLength + " outside " + buf.length);
        }
        len = newLength;
    }

    public void clear() {
        len = 0;
    }

    /** Makes room for {@code n} more bytes; returns the (possibly new) backing array. */
    @Override
    public byte[] ensure(int n) {
        if (len + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(len + n, buf.length << 1));
        }
        return buf;
    }

    public void write(int b) {
        if (len == buf.length) {
            ensure(1);
        }
        buf[len++] = (byte) b;
    }

    public void write(byte[] src) {
        write(src, 0, src.length);
    }

    public void write(byte[] src, int off, int n) {
        ensure(n);
        System.arraycopy(src, off, buf, len, n);
        len += n;
    }

    /** Writes UTF-8 text as a quoted JSON string, escaping what JSON requires; other bytes are copied as is. */
    public void writeQuoted(byte[] src, int off, int n) {
        write('"');
        writeEscaped(src, off, n);
        write('"');
    }

    /** Writes UTF-8 text escaped for the inside of a JSON string, without the quotes (keys built in parts). */
    public void writeEscaped(byte[] src, int off, int n) {
        for (int end = off + n; off < end; ) {
            int slice = Math.min(SLICE, end - off);
            len = putEscaped(ensure(escapedBound(slice)), len, src, off, slice);
            off += slice;
        }
    }

    /** Writes a long in decimal. */
    public void writeLong(long v) {
        len = Decimal.putLong(ensure(Decimal.MAX_LONG), len, v);
    }

    // ------------------------------------------------------------------------------------ put: no growth

    /** Room {@link #putQuoted} needs for {@code n} source bytes: every byte escaped, both quotes, 8 bytes of slack. */
    public static int quotedBound(int n) {
        return escapedBound(n) + 2;
    }

    /**
     * Room {@link #putQuoted} needs for these bytes: {@link #quotedBound} for short strings, and for long ones the
     * bytes plus 5 per byte that may need an escape (counted a word at a time), so that a large payload does not
     * reserve six times its size.
     */
    public static int quotedRoom(byte[] src, int off, int n) {
        if (n <= 256) {
            return quotedBound(n);
        }
        int flagged = 0;
        int i = off;
        for (int end = off + n - 8; i <= end; i += 8) {
            flagged += Long.bitCount(needsEscape((long) LONGS.get(src, i)));
        }
        // The last bytes (fewer than 8) counted as all needing an escape; borrows may over-count, never under.
        return n + 5 * (flagged + (off + n - i)) + 10;
    }

    private static int escapedBound(int n) {
        return 6 * n + 8;
    }

    /** {@link #writeQuoted} at {@code b[at]}, which has room for {@link #quotedBound}{@code (n)}; returns the end. */
    public static int putQuoted(byte[] b, int at, byte[] src, int off, int n) {
        b[at++] = '"';
        at = putEscaped(b, at, src, off, n);
        b[at++] = '"';
        return at;
    }

    /**
     * Copies {@code src[off, off+n)} escaped for a JSON string, eight bytes at a time: most values (host names, keys,
     * log lines) need no escape. A word is stored whole even when only its first bytes belong to the string (the
     * last word, or the bytes before an escape): the slack in the bound takes it and later writes overwrite it.
     */
    private static int putEscaped(byte[] b, int at, byte[] src, int off, int n) {
        int i = off;
        int end = off + n;
        while (i < end) {
            int rest = end - i;
            if (rest < 8 && i + 8 > src.length) {
                return putEscapedBytes(b, at, src, i, end); // the string ends less than a word before its array
            }
            long w = (long) LONGS.get(src, i);
            long flags = needsEscape(w);
            int take = 8;
            if (rest < 8) {
                flags &= HIGHS >>> ((8 - rest) << 3);
                take = rest;
            }
            LONGS.set(b, at, w);
            if (flags == 0) {
                at += take;
                i += take;
            } else {
                int clean = Long.numberOfTrailingZeros(flags) >>> 3;
                at = putEscape(b, at + clean, src[i + clean]);
                i += clean + 1;
            }
        }
        return at;
    }

    /**
     * The high bit of each byte of {@code w} that JSON must escape ({@code < 0x20}, {@code "} or {@code \}); bytes
     * of 0x80 and above never are. A borrow can only flag bytes above (later than) a flagged one, so the lowest
     * flag is exact and "is any of the first k bytes flagged" is answered exactly.
     */
    private static long needsEscape(long w) {
        long control = (w - 0x2020202020202020L) & ~w;
        long q = w ^ 0x2222222222222222L;
        long bs = w ^ 0x5C5C5C5C5C5C5C5CL;
        return (control | ((q - ONES) & ~q) | ((bs - ONES) & ~bs)) & HIGHS;
    }

    private static int putEscapedBytes(byte[] b, int at, byte[] src, int from, int end) {
        for (int i = from; i < end; i++) {
            byte c = src[i];
            if (c >= 0 && ESCAPE[c] != 0) {
                at = putEscape(b, at, c);
            } else {
                b[at++] = c;
            }
        }
        return at;
    }

    private static int putEscape(byte[] b, int at, byte c) {
        b[at++] = '\\';
        switch (c) {
            case '"': b[at++] = '"'; break;
            case '\\': b[at++] = '\\'; break;
            case '\n': b[at++] = 'n'; break;
            case '\r': b[at++] = 'r'; break;
            case '\t': b[at++] = 't'; break;
            case '\b': b[at++] = 'b'; break;
            case '\f': b[at++] = 'f'; break;
            default:
                b[at++] = 'u';
                b[at++] = '0';
                b[at++] = '0';
                b[at++] = HEX[(c >> 4) & 0xF];
                b[at++] = HEX[c & 0xF];
        }
        return at;
    }

    /**
     * Stores the first {@code n <= 8} bytes of {@code word} (little-endian) at {@code b[at]}, which has 8 bytes of
     * room; returns the end.
     */
    public static int putWord(byte[] b, int at, long word, int n) {
        LONGS.set(b, at, word);
        return at + n;
    }

    /** The first 8 bytes of {@code s} (padded with zeros) as a word for {@link #putWord}. */
    public static long word(byte[] s, int off) {
        long w = 0;
        for (int i = Math.min(8, s.length - off) - 1; i >= 0; i--) {
            w = (w << 8) | (s[off + i] & 0xFF);
        }
        return w;
    }

    /**
     * Epoch nanoseconds as HEC's {@code time}: seconds with up to nine decimals, trailing zeros trimmed
     * ({@code 1.001}, {@code 1796002770.166598}), so that a receiver recovers the exact nanosecond; at
     * {@code b[at]}, which has room for {@link #MAX_EPOCH_SECONDS}. Returns the end.
     */
    public static int putEpochSeconds(byte[] b, int at, long nanos) {
        long secs = Math.floorDiv(nanos, 1_000_000_000L);
        int frac = (int) (nanos - secs * 1_000_000_000L);
        at = Decimal.putLong(b, at, secs);
        // The fraction with its trailing zeros divided away, after a leading 1 that keeps its leading zeros
        // (1_000_000_000 + frac), written as digits; the 1 then becomes the point, and a bare point is dropped
        // with arithmetic. No branch here depends on the timestamp's precision: timestamps are per read, so a
        // branch for whole microseconds, say, is rare but certain, C2 compiles a branch it has not seen taken as a
        // trap, and taking it mid-run recompiled every encoder method that inlines this one.
        int x = 1_000_000_000 + frac;
        while (x % 10 == 0) {
            x /= 10;
        }
        int end = at + Decimal.digits(x);
        Decimal.putDigits(b, end, x);
        b[at] = '.';
        return end - ((((b[end - 1] ^ '.') - 1) >>> 31)); // 1 when a bare point is left
    }

    /** The written bytes as a String (allocates; tests and logs). */
    @Override
    public String toString() {
        return new String(buf, 0, len, StandardCharsets.UTF_8);
    }
}

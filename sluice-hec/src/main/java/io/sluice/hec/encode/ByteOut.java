package io.sluice.hec.encode;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer with the few JSON writes the HEC encoder needs. One instance is reused for every batch
 * an encoder handles: it grows to the working size once and is then written in place, so encoding allocates
 * nothing per event.
 */
public final class ByteOut {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    /** 0: copy as is; 1: two-character escape; 2: \\u00XX. Indexed by unsigned byte values below 128. */
    private static final byte[] ESCAPE = new byte[128];

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

    public int length() {
        return len;
    }

    /** Moves the write position back (to drop what was written after {@code newLength}). */
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
        ensure(n + 2);
        byte[] b = buf;
        int at = len;
        b[at++] = '"';
        int end = off + n;
        for (int i = off; i < end; i++) {
            byte c = src[i];
            if (c >= 0 && ESCAPE[c] != 0) {
                len = at;
                writeEscape(c);
                ensure(end - i + 1);
                b = buf;
                at = len;
            } else {
                b[at++] = c;
            }
        }
        b[at++] = '"';
        len = at;
    }

    private void writeEscape(byte c) {
        ensure(6);
        byte[] b = buf;
        b[len++] = '\\';
        switch (c) {
            case '"': b[len++] = '"'; break;
            case '\\': b[len++] = '\\'; break;
            case '\n': b[len++] = 'n'; break;
            case '\r': b[len++] = 'r'; break;
            case '\t': b[len++] = 't'; break;
            case '\b': b[len++] = 'b'; break;
            case '\f': b[len++] = 'f'; break;
            default:
                b[len++] = 'u';
                b[len++] = '0';
                b[len++] = '0';
                b[len++] = HEX[(c >> 4) & 0xF];
                b[len++] = HEX[c & 0xF];
        }
    }

    /** Writes a non-negative or negative long in decimal. */
    public void writeLong(long v) {
        ensure(20);
        if (v < 0) {
            if (v == Long.MIN_VALUE) {
                write("-9223372036854775808".getBytes(StandardCharsets.US_ASCII));
                return;
            }
            buf[len++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        int at = len + digits;
        len = at;
        do {
            buf[--at] = (byte) ('0' + (v % 10));
            v /= 10;
        } while (v != 0);
    }

    /**
     * Writes epoch nanoseconds as HEC's {@code time}: seconds with up to nine decimals, trailing zeros trimmed
     * ({@code 1.001}, {@code 1796002770.166598}), so that a receiver recovers the exact nanosecond.
     */
    public void writeEpochSeconds(long nanos) {
        long secs = Math.floorDiv(nanos, 1_000_000_000L);
        int frac = (int) Math.floorMod(nanos, 1_000_000_000L);
        writeLong(secs);
        if (frac != 0) {
            int digits = 9;
            while (frac % 10 == 0) {
                frac /= 10;
                digits--;
            }
            ensure(10);
            buf[len++] = '.';
            int at = len + digits;
            len = at;
            for (int i = 0; i < digits; i++) {
                buf[--at] = (byte) ('0' + frac % 10);
                frac /= 10;
            }
        }
    }

    /** The written bytes as a String (allocates; tests and logs). */
    @Override
    public String toString() {
        return new String(buf, 0, len, StandardCharsets.UTF_8);
    }
}

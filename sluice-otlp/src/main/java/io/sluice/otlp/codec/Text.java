package io.sluice.otlp.codec;

import java.nio.charset.StandardCharsets;

/**
 * Reads the values of metadata and JSON text straight from bytes: integers, doubles (as the contract writes them,
 * NaN and the infinities as their names), lower-case hex and base64. Nothing is allocated on the common path;
 * a double with more than 15 significant digits or a large exponent falls back to {@link Double#parseDouble}.
 */
final class Text {
    private static final double[] POW10 = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
        1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    private static final byte[] B64 = new byte[256];
    private static final byte[] HEX = new byte[256];

    static {
        java.util.Arrays.fill(HEX, (byte) -1);
        for (int i = 0; i < 10; i++) {
            HEX['0' + i] = (byte) i;
        }
        for (int i = 0; i < 6; i++) {
            HEX['a' + i] = (byte) (10 + i);
            HEX['A' + i] = (byte) (10 + i);
        }
        java.util.Arrays.fill(B64, (byte) -1);
        String a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int i = 0; i < 64; i++) {
            B64[a.charAt(i)] = (byte) i;
        }
        B64['-'] = 62; // base64url too: OTLP JSON writers differ
        B64['_'] = 63;
    }

    private Text() {
    }

    /** Whether {@code b[off, off+len)} is a JSON number (RFC 8259's grammar) or NaN, Infinity, -Infinity. */
    static boolean isNumber(byte[] b, int off, int len) {
        if (isNamedDouble(b, off, len)) {
            return true;
        }
        int end = off + len;
        int i = off;
        if (i < end && b[i] == '-') {
            i++;
        }
        int digits = i;
        while (i < end && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        if (i == digits || b[digits] == '0' && i - digits > 1) {
            return false;
        }
        if (i < end && b[i] == '.') {
            int f = ++i;
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            if (i == f) {
                return false;
            }
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < end && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            int e = i;
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            if (i == e) {
                return false;
            }
        }
        return i == end;
    }

    /**
     * Whether {@code b[off, off+len)} is an integer that fits a long (signed) or, with {@code unsigned}, 64 bits
     * unsigned.
     */
    static boolean isInteger(byte[] b, int off, int len, boolean unsigned) {
        int i = off;
        int end = off + len;
        boolean neg = i < end && b[i] == '-';
        if (neg) {
            if (unsigned) {
                return false;
            }
            i++;
        }
        if (i >= end || end - i > 20) {
            return false;
        }
        long v = 0;
        for (; i < end; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return false;
            }
            if (Long.compareUnsigned(v, 0x1999999999999999L) > 0) {
                return false; // v * 10 would pass 2^64
            }
            long next = v * 10 + d;
            if (Long.compareUnsigned(next, v * 10) < 0) {
                return false; // adding the digit passed 2^64
            }
            v = next;
        }
        if (unsigned) {
            return true;
        }
        return neg ? Long.compareUnsigned(v, Long.MIN_VALUE) <= 0 : v >= 0;
    }

    /** The integer {@code b[off, off+len)} (validated by {@link #isInteger}); 64-bit unsigned values wrap. */
    static long parseLong(byte[] b, int off, int len) {
        int i = off;
        int end = off + len;
        boolean neg = b[i] == '-';
        if (neg) {
            i++;
        }
        long v = 0;
        for (; i < end; i++) {
            v = v * 10 + (b[i] - '0');
        }
        return neg ? -v : v;
    }

    /**
     * The double {@code b[off, off+len)}: a JSON number, or NaN, Infinity, -Infinity by name. Exact (Clinger's
     * fast path) for up to 15 significant digits and exponents up to 22; else parsed by the JDK.
     */
    static double parseDouble(byte[] b, int off, int len) {
        int end = off + len;
        int i = off;
        boolean neg = i < end && b[i] == '-';
        if (neg) {
            i++;
        }
        if (i < end && (b[i] == 'N' || b[i] == 'I')) {
            return named(b, off, len);
        }
        long m = 0;
        int digits = 0;
        int exp = 0;
        for (; i < end && b[i] >= '0' && b[i] <= '9'; i++) {
            m = m * 10 + (b[i] - '0');
            digits += m == 0 ? 0 : 1;
        }
        if (i < end && b[i] == '.') {
            for (i++; i < end && b[i] >= '0' && b[i] <= '9'; i++) {
                m = m * 10 + (b[i] - '0');
                digits += m == 0 ? 0 : 1;
                exp--;
            }
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            boolean eneg = i < end && b[i] == '-';
            if (i < end && (b[i] == '-' || b[i] == '+')) {
                i++;
            }
            int e = 0;
            for (; i < end && b[i] >= '0' && b[i] <= '9' && e < 100_000; i++) {
                e = e * 10 + (b[i] - '0');
            }
            exp += eneg ? -e : e;
        }
        if (i == end && digits <= 15 && exp >= -22 && exp <= 22) {
            double d = exp < 0 ? m / POW10[-exp] : m * POW10[exp];
            return neg ? -d : d;
        }
        try {
            return Double.parseDouble(new String(b, off, len, StandardCharsets.ISO_8859_1));
        } catch (NumberFormatException e) {
            return Double.NaN; // callers check with isNumber where text may be anything; this keeps the rest safe
        }
    }

    /** The double NaN, Infinity or -Infinity spell (NaN for any other text: not a number at all, see parseDouble). */
    static double named(byte[] b, int off, int len) {
        if (Values.equals(b, off, len, ValueText.INFINITY)) {
            return Double.POSITIVE_INFINITY;
        }
        return Values.equals(b, off, len, ValueText.NEGATIVE_INFINITY) ? Double.NEGATIVE_INFINITY : Double.NaN;
    }

    /** Whether {@code b[off, off+len)} spells NaN, Infinity or -Infinity (a double the contract writes as a string). */
    static boolean isNamedDouble(byte[] b, int off, int len) {
        return Values.equals(b, off, len, ValueText.NAN) || Values.equals(b, off, len, ValueText.INFINITY)
                || Values.equals(b, off, len, ValueText.NEGATIVE_INFINITY);
    }

    /** Decodes hex {@code src[off, off+len)} into {@code dst} from {@code at}: the byte count, or -1 if not hex. */
    static int hex(byte[] src, int off, int len, byte[] dst, int at) {
        if ((len & 1) != 0 || dst.length - at < len / 2) {
            return -1;
        }
        for (int i = 0; i < len / 2; i++) {
            int hi = HEX[src[off + 2 * i] & 0xFF];
            int lo = HEX[src[off + 2 * i + 1] & 0xFF];
            if ((hi | lo) < 0) {
                return -1;
            }
            dst[at + i] = (byte) (hi << 4 | lo);
        }
        return len / 2;
    }

    /** The most bytes {@link #base64} writes for {@code len} characters. */
    static int base64Max(int len) {
        return len / 4 * 3 + 3;
    }

    /**
     * Decodes base64 (standard or URL alphabet, padded or not) {@code src[off, off+len)} into {@code dst} at 0,
     * which has {@link #base64Max} bytes of room; returns the byte count, or -1 if it is not base64.
     */
    static int base64(byte[] src, int off, int len, byte[] dst) {
        int end = off + len;
        while (end > off && src[end - 1] == '=') {
            end--;
        }
        int acc = 0;
        int bits = 0;
        int w = 0;
        for (int i = off; i < end; i++) {
            int v = B64[src[i] & 0xFF];
            if (v < 0) {
                return -1;
            }
            acc = acc << 6 | v;
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                dst[w++] = (byte) (acc >>> bits);
            }
        }
        return w;
    }
}

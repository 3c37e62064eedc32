package io.sluice.otlp.codec;

import io.sluice.core.json.Decimal;
import io.sluice.core.json.JsonWriter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * How OtlpFields spells values as text, written into byte arrays: unsigned decimals, doubles (always with a
 * fraction or an exponent), lower-case hex ids and base64 bytes. Shared by the protobuf and the JSON decoders, so
 * that the same request gives the same bytes whichever way it came.
 */
final class ValueText {
    /** The most bytes {@link #putDouble} writes (Double.toString's longest, "-2.2250738585072014E-308", is 24). */
    static final int MAX_DOUBLE = 32;
    static final byte[] NAN = "NaN".getBytes(StandardCharsets.US_ASCII);
    static final byte[] INFINITY = "Infinity".getBytes(StandardCharsets.US_ASCII);
    static final byte[] NEGATIVE_INFINITY = "-Infinity".getBytes(StandardCharsets.US_ASCII);
    static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
    static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);
    static final byte[] BYTES_VALUE = "bytesValue".getBytes(StandardCharsets.US_ASCII);
    private static final VarHandle INTS_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONGS_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONGS_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BASE64 =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".getBytes(StandardCharsets.US_ASCII);
    private static final double[] POW10 = new double[16];
    private static final long[] LPOW10 = new long[16];
    /** Integers below this are exact doubles, so m / 10^n is one correctly rounded division. */
    private static final long EXACT = 1L << 53;

    static {
        long p = 1;
        for (int i = 0; i < POW10.length; i++) {
            LPOW10[i] = p;
            POW10[i] = p;
            p *= 10;
        }
    }

    private ValueText() {
    }

    /**
     * Writes {@code v} as an unsigned decimal (fixed64 and uint64 values); returns the end. Nanosecond timestamps
     * have 19 digits, written per record: eight at a time with int arithmetic, not a long division per two digits.
     */
    static int putUnsigned(byte[] b, int at, long v) {
        if (v < 0) {
            long q = (v >>> 1) / 5; // v / 10, unsigned
            at = putUnsigned(b, at, q);
            b[at++] = (byte) ('0' + (v - q * 10));
            return at;
        }
        if (v < EIGHT_DIGITS) {
            return Decimal.putLong(b, at, v);
        }
        long high = v / EIGHT_DIGITS;
        int low = (int) (v - high * EIGHT_DIGITS);
        if (high < EIGHT_DIGITS) {
            at = Decimal.putLong(b, at, high);
        } else { // 17 to 19 digits: nanosecond timestamps
            long top = high / EIGHT_DIGITS;
            at = Decimal.putLong(b, at, top);
            put8(b, at, (int) (high - top * EIGHT_DIGITS));
            at += 8;
        }
        put8(b, at, low);
        return at + 8;
    }

    private static final long EIGHT_DIGITS = 100_000_000L;
    /**
     * Writes {@code v < 10^8} as exactly eight digits, all in one long: its two halves of four digits, their pairs
     * and then their digits split by multiplying with reciprocals lane by lane (exact for these ranges), no table.
     */
    private static void put8(byte[] b, int at, int v) {
        long hi = v / 10000;
        long merged = hi | (v - hi * 10000) << 32; // first four digits in the low lane: the first byte written
        long pairs = ((merged * 10486) >>> 20) & 0x0000007F0000007FL; // lane / 100
        long hundreds = (merged - 100 * pairs) << 16 | pairs;
        long tens = ((hundreds * 103) >>> 10) & 0x000F000F000F000FL; // lane / 10
        LONGS_LE.set(b, at, ((hundreds - 10 * tens) << 8 | tens) + 0x3030303030303030L);
    }

    /** The string OTLP JSON writes for a NaN or an infinity. */
    static byte[] nonFinite(double d) {
        return Double.isNaN(d) ? NAN : d > 0 ? INFINITY : NEGATIVE_INFINITY;
    }

    /**
     * Writes a finite double as a JSON number that reads back as the same double and always has a fraction or an
     * exponent ({@code 1.0}, never {@code 1}), in Double.toString's notation; returns the end. Values between
     * 0.001 and 10^7 with at most 15 significant digits (what measurements and attributes mostly are) are written
     * without allocating: the fewest fraction digits n for which round(|d|·10^n)/10^n == |d|, a division of two
     * exact doubles, which parses back to |d|. Anything else goes through Double.toString.
     */
    static int putDouble(byte[] b, int at, double d) {
        if (d == 0) {
            if (Double.doubleToRawLongBits(d) < 0) {
                b[at++] = '-';
            }
            b[at++] = '0';
            b[at++] = '.';
            b[at++] = '0';
            return at;
        }
        double a = Math.abs(d);
        if (a >= 1e-3 && a < 1e7) {
            for (int n = 0; n < POW10.length; n++) {
                double scaled = a * POW10[n];
                if (scaled >= EXACT) {
                    break;
                }
                double whole = Math.rint(scaled);
                // The division (the exact check) only for a scaled value within rounding error of an integer: far
                // cheaper than dividing at every n, and it skips no candidate (a product is off by a few ulps).
                if (Math.abs(scaled - whole) > scaled * 0x1p-50) {
                    continue;
                }
                long m = (long) whole;
                if (m / POW10[n] == a) {
                    if (d < 0) {
                        b[at++] = '-';
                    }
                    return putFixed(b, at, m, n);
                }
            }
        }
        String s = Double.toString(d);
        for (int i = 0; i < s.length(); i++) {
            b[at++] = (byte) s.charAt(i);
        }
        return at;
    }

    /** Writes m / 10^n with n fraction digits (at least one). */
    private static int putFixed(byte[] b, int at, long m, int n) {
        long p = LPOW10[n];
        long whole = m / p;
        at = Decimal.putLong(b, at, whole);
        b[at++] = '.';
        if (n == 0) {
            b[at++] = '0';
            return at;
        }
        long frac = m - whole * p;
        int digits = Decimal.digits(frac);
        for (int i = digits; i < n; i++) {
            b[at++] = '0';
        }
        Decimal.putDigits(b, at + digits, frac);
        return at + digits;
    }

    /**
     * Writes {@code src[off, off+len)} as lower-case hex; returns the end. Four bytes per step, without a table:
     * their eight nibbles spread into the eight bytes of a long, turned into digits all at once (ids are 8 and 16
     * bytes, written per record).
     */
    static int putHex(byte[] b, int at, byte[] src, int off, int len) {
        int end = off + len;
        int i = off;
        for (; i + 4 <= end; i += 4, at += 8) {
            long x = (int) INTS_BE.get(src, i) & 0xFFFFFFFFL;
            x = (x | x << 16) & 0x0000FFFF0000FFFFL;
            x = (x | x << 8) & 0x00FF00FF00FF00FFL;
            x = (x | x << 4) & 0x0F0F0F0F0F0F0F0FL;
            // a nibble above 9 gets 'a' - 10 rather than '0' added: (nibble + 6) has bit 4 set exactly then
            long letters = ((x + 0x0606060606060606L) >>> 4) & 0x0101010101010101L;
            LONGS_BE.set(b, at, x + 0x3030303030303030L + letters * ('a' - '0' - 10));
        }
        for (; i < end; i++) {
            b[at++] = HEX[(src[i] >> 4) & 0xF];
            b[at++] = HEX[src[i] & 0xF];
        }
        return at;
    }

    /** The length of the base64 (padded, standard alphabet) of {@code len} bytes. */
    static int base64Length(int len) {
        return (len + 2) / 3 * 4;
    }

    /** Writes {@code src[off, off+len)} in padded standard base64, as protobuf's JSON does; returns the end. */
    static int putBase64(byte[] b, int at, byte[] src, int off, int len) {
        int end = off + len;
        int i = off;
        for (; i + 3 <= end; i += 3) {
            int v = (src[i] & 0xFF) << 16 | (src[i + 1] & 0xFF) << 8 | (src[i + 2] & 0xFF);
            b[at++] = BASE64[v >>> 18];
            b[at++] = BASE64[(v >>> 12) & 63];
            b[at++] = BASE64[(v >>> 6) & 63];
            b[at++] = BASE64[v & 63];
        }
        if (i < end) {
            int v = (src[i] & 0xFF) << 16 | (i + 1 < end ? (src[i + 1] & 0xFF) << 8 : 0);
            b[at++] = BASE64[v >>> 18];
            b[at++] = BASE64[(v >>> 12) & 63];
            b[at++] = i + 1 < end ? BASE64[(v >>> 6) & 63] : (byte) '=';
            b[at++] = '=';
        }
        return at;
    }

    /** Whether {@code src[off, off+len)} holds only zero bytes (an id that is not set). */
    static boolean allZero(byte[] src, int off, int len) {
        int i = off;
        for (; i + 8 <= off + len; i += 8) {
            if ((long) LONGS_BE.get(src, i) != 0) {
                return false;
            }
        }
        for (; i < off + len; i++) {
            if (src[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Helpers writing the same spellings into a {@link JsonWriter}, through a scratch array the caller owns
     * (one per decoder): numbers as numbers, NaN and infinities as strings, bytes as {@code {"bytesValue":...}}.
     */
    static final class Json {
        private byte[] scratch = new byte[64];

        void signed(JsonWriter w, long v) {
            w.raw(scratch, 0, Decimal.putLong(scratch, 0, v));
        }

        void unsigned(JsonWriter w, long v) {
            w.raw(scratch, 0, putUnsigned(scratch, 0, v));
        }

        void dbl(JsonWriter w, double d) {
            if (Double.isFinite(d)) {
                w.raw(scratch, 0, putDouble(scratch, 0, d));
            } else {
                byte[] s = nonFinite(d);
                w.string(s, 0, s.length);
            }
        }

        void nul(JsonWriter w) {
            w.raw(NULL, 0, NULL.length);
        }

        void hex(JsonWriter w, byte[] src, int off, int len) {
            ensure(len * 2);
            w.string(scratch, 0, putHex(scratch, 0, src, off, len));
        }

        /** {@code {"bytesValue":"<base64>"}}. */
        void bytes(JsonWriter w, byte[] src, int off, int len) {
            w.beginObject();
            w.rawName(BYTES_VALUE, 0, BYTES_VALUE.length);
            base64(w, src, off, len);
            w.endObject();
        }

        /** The base64 text as a JSON string. */
        void base64(JsonWriter w, byte[] src, int off, int len) {
            ensure(base64Length(len));
            w.rawString(scratch, 0, putBase64(scratch, 0, src, off, len));
        }

        private void ensure(int n) {
            if (n > scratch.length) {
                scratch = new byte[Math.max(n, scratch.length * 2)];
            }
        }
    }
}

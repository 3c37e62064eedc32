package io.sluice.core.json;

import java.nio.charset.StandardCharsets;

/**
 * Integers written as decimal text straight into a byte array: the digit count from the bit length (one table
 * compare), then two digits per division. The one integer writer of the JSON and HEC encoders, which write
 * numbers per event: {@code Long.toString} allocates, and a digit-per-division loop costs twice the divisions.
 */
public final class Decimal {
    /** The most bytes {@link #putLong} writes. */
    public static final int MAX_LONG = 20;
    /** "00" to "99". */
    private static final byte[] DIGIT_PAIRS = new byte[200];
    private static final long[] POW10 = new long[19];
    private static final byte[] MIN_LONG = "-9223372036854775808".getBytes(StandardCharsets.US_ASCII);

    static {
        for (int i = 0; i < 100; i++) {
            DIGIT_PAIRS[2 * i] = (byte) ('0' + i / 10);
            DIGIT_PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
        long p = 1;
        for (int i = 0; i < POW10.length; i++) {
            POW10[i] = p;
            p *= 10;
        }
    }

    private Decimal() {
    }

    /** Writes {@code v} in decimal at {@code b[at]}, which has room for {@link #MAX_LONG} bytes; returns the end. */
    public static int putLong(byte[] b, int at, long v) {
        if (v < 0) {
            if (v == Long.MIN_VALUE) {
                System.arraycopy(MIN_LONG, 0, b, at, MIN_LONG.length);
                return at + MIN_LONG.length;
            }
            b[at++] = '-';
            v = -v;
        }
        int end = at + digits(v);
        putDigits(b, end, v);
        return end;
    }

    /** Number of decimal digits of {@code v >= 0}: from its bit length, corrected by one comparison. */
    public static int digits(long v) {
        int d = ((64 - Long.numberOfLeadingZeros(v)) * 1233) >>> 12;
        return d < POW10.length && v >= POW10[d] ? d + 1 : Math.max(d, 1);
    }

    /** Writes the {@link #digits} of {@code v >= 0} backwards, two per division, ending just before {@code end}. */
    public static void putDigits(byte[] b, int end, long v) {
        int at = end;
        while (v >= 100) {
            long q = v / 100;
            int r = (int) (v - q * 100) << 1;
            b[--at] = DIGIT_PAIRS[r + 1];
            b[--at] = DIGIT_PAIRS[r];
            v = q;
        }
        if (v >= 10) {
            int r = (int) v << 1;
            b[--at] = DIGIT_PAIRS[r + 1];
            b[--at] = DIGIT_PAIRS[r];
        } else {
            b[--at] = (byte) ('0' + v);
        }
    }
}

package io.sluice.hec.consumer;

import java.nio.charset.StandardCharsets;

/**
 * HEC's {@code time}: epoch seconds with any number of decimals, converted to nanoseconds from the digits (not
 * through a double), so that 1796002770.166598 stays exact.
 */
final class EpochSeconds {
    private EpochSeconds() {
    }

    /** Decimal seconds to nanoseconds; exponents go through a double. Long.MIN_VALUE when out of range. */
    static long toNanos(byte[] b, int s, int e) {
        boolean neg = b[s] == '-';
        int i = neg ? s + 1 : s;
        long secs = 0;
        while (i < e && b[i] >= '0' && b[i] <= '9') {
            secs = secs * 10 + (b[i++] - '0');
            if (secs > 9_000_000_000L) {
                return Long.MIN_VALUE;
            }
        }
        long frac = 0;
        int digits = 0;
        if (i < e && b[i] == '.') {
            i++;
            while (i < e && b[i] >= '0' && b[i] <= '9') {
                if (digits < 9) {
                    frac = frac * 10 + (b[i] - '0');
                    digits++;
                }
                i++;
            }
        }
        if (i < e) { // exponent
            double d = Double.parseDouble(new String(b, s, e - s, StandardCharsets.US_ASCII));
            if (!(Math.abs(d) < 9e9)) {
                return Long.MIN_VALUE;
            }
            return Math.round(d * 1e9);
        }
        while (digits < 9) {
            frac *= 10;
            digits++;
        }
        long nanos = secs * 1_000_000_000L + frac;
        return neg ? -nanos : nanos;
    }
}

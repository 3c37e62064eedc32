package io.sluice.hec.codec;

/**
 * Rewrites the text of a JSON number the way Go prints the same float64, for OTLP events that must read as the
 * OTel exporter writes them: {@code encoding/json} (and goccy/go-json, and pdata's {@code Value.AsString}) print a
 * double in ES6 style ({@code 42}, not {@code 42.0}; {@code 1e-7}; {@code 1e+21}), {@code strconv.FormatFloat(f,
 * 'g', -1, 64)} (a histogram's {@code le}, a summary's {@code qt}) switches to an exponent from 1e+06 on, and
 * {@code 'f'} (a quantile's measurement name) never does.
 *
 * <p>It works on the decimal digits as written, without a round trip through {@code double}: consumer.OTLP writes
 * doubles in their shortest form, and those digits are the ones Go's shortest formatting picks too. Reused; not
 * thread-safe.
 */
final class GoNumbers {
    /** ES6 style, as Go's JSON encoders and pdata's AsString print a float64. */
    static final int JSON = 0;
    /** {@code strconv.FormatFloat(f, 'g', -1, 64)}. */
    static final int G = 1;
    /** {@code strconv.FormatFloat(f, 'f', -1, 64)}. */
    static final int F = 2;

    // The parsed number: 0.d[0..nd) × 10^dp, negative when neg; nd == 0 is zero.
    private final byte[] d = new byte[64];
    private int nd;
    private int dp;
    private boolean neg;

    /** Whether {@code b[off, off+len)} is a JSON number written as a float (with a fraction or an exponent). */
    static boolean isFloat(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            byte c = b[i];
            if (c == '.' || c == 'e' || c == 'E') {
                return true;
            }
        }
        return false;
    }

    /**
     * Parses the JSON number {@code b[off, off+len)}; false when it is not one (the caller then copies it as it
     * is). Digits past the 64th are dropped: a double never needs more than 17.
     */
    boolean parse(byte[] b, int off, int len) {
        int p = off;
        int end = off + len;
        neg = p < end && b[p] == '-';
        if (neg) {
            p++;
        }
        nd = 0;
        dp = 0;
        boolean any = false;
        boolean point = false;
        for (; p < end; p++) {
            byte c = b[p];
            if (c >= '0' && c <= '9') {
                any = true;
                if (c == '0' && nd == 0) {
                    if (point) {
                        dp--; // a leading zero after the point moves the digits right
                    }
                    continue;
                }
                if (nd < d.length) {
                    d[nd++] = c;
                }
                if (!point) {
                    dp++;
                }
            } else if (c == '.' && !point) {
                point = true;
            } else {
                break;
            }
        }
        if (!any) {
            return false;
        }
        if (p < end) {
            if (b[p] != 'e' && b[p] != 'E') {
                return false;
            }
            p++;
            boolean eneg = false;
            if (p < end && (b[p] == '+' || b[p] == '-')) {
                eneg = b[p] == '-';
                p++;
            }
            int e = 0;
            if (p >= end) {
                return false;
            }
            for (; p < end; p++) {
                byte c = b[p];
                if (c < '0' || c > '9') {
                    return false;
                }
                e = Math.min(e * 10 + (c - '0'), 100_000);
            }
            dp += eneg ? -e : e;
        }
        while (nd > 0 && d[nd - 1] == '0') {
            nd--;
        }
        return true;
    }

    /** Writes the number parsed last in {@code style} ({@link #JSON}, {@link #G} or {@link #F}). */
    void write(ByteOut o, int style) {
        o.ensure(nd + Math.abs(dp) + 32);
        if (neg) {
            o.write('-');
        }
        if (nd == 0) {
            o.write('0');
            return;
        }
        int exp = dp - 1;
        boolean e = switch (style) {
            case JSON -> exp < -6 || exp >= 21; // abs < 1e-6 or abs >= 1e21
            case G -> exp < -4 || exp >= 6;
            default -> false;
        };
        if (e) {
            o.write(d[0]);
            if (nd > 1) {
                o.write('.');
                o.write(d, 1, nd - 1);
            }
            o.write('e');
            o.write(exp < 0 ? '-' : '+');
            int a = Math.abs(exp);
            // strconv pads the exponent to two digits; encoding/json trims "e-07" back to "e-7".
            if (a < 10 && !(style == JSON && exp < 0)) {
                o.write('0');
            }
            o.writeLong(a);
            return;
        }
        if (dp <= 0) {
            o.write('0');
            o.write('.');
            for (int i = dp; i < 0; i++) {
                o.write('0');
            }
            o.write(d, 0, nd);
        } else if (dp >= nd) {
            o.write(d, 0, nd);
            for (int i = nd; i < dp; i++) {
                o.write('0');
            }
        } else {
            o.write(d, 0, dp);
            o.write('.');
            o.write(d, dp, nd - dp);
        }
    }
}

package io.sluice.core.json;

/**
 * UTF-8 validation for writers that must emit valid UTF-8 whatever they were given (Forward strings into JSON,
 * payloads into line-oriented files): the length of one sequence, and whether a range is valid. An invalid
 * sequence is replaced by one U+FFFD per maximal subpart, the Unicode standard's recommended practice (and
 * WHATWG's); RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
 */
public final class Utf8 {
    /** U+FFFD in UTF-8. */
    public static final byte[] REPLACEMENT = {(byte) 0xEF, (byte) 0xBF, (byte) 0xBD};

    private Utf8() {
    }

    /**
     * The length of the valid UTF-8 sequence at {@code b[i]} (a byte at or above 0x80), or minus the length of its
     * maximal invalid subpart (1 to 3 bytes), to replace with one U+FFFD.
     */
    public static int sequence(byte[] b, int i, int end) {
        int lead = b[i] & 0xff;
        int more;
        int lo = 0x80;
        int hi = 0xbf;
        if (lead >= 0xc2 && lead <= 0xdf) {
            more = 1;
        } else if (lead >= 0xe0 && lead <= 0xef) {
            more = 2;
            if (lead == 0xe0) {
                lo = 0xa0;
            } else if (lead == 0xed) {
                hi = 0x9f; // ED A0..BF would encode a surrogate
            }
        } else if (lead >= 0xf0 && lead <= 0xf4) {
            more = 3;
            if (lead == 0xf0) {
                lo = 0x90;
            } else if (lead == 0xf4) {
                hi = 0x8f;
            }
        } else {
            return -1;
        }
        for (int k = 1; k <= more; k++) {
            if (i + k >= end) {
                return -k;
            }
            int c = b[i + k] & 0xff;
            if (c < lo || c > hi) {
                return -k;
            }
            lo = 0x80;
            hi = 0xbf;
        }
        return more + 1;
    }

    /**
     * Whether {@code b[off, off+len)} is valid UTF-8. ASCII goes eight bytes per step, again after each multi-byte
     * sequence, and the last 1-7 bytes are one word read past the range (bytes past it masked off) when the array
     * allows: the keys and short values of log records are mostly shorter than a word.
     */
    public static boolean isValid(byte[] b, int off, int len) {
        int end = off + len;
        int i = off;
        while (i < end) {
            int left = end - i;
            if (left >= 8) {
                if ((JsonStrings.word(b, i) & HIGHS) == 0) {
                    i += 8;
                    continue;
                }
            } else if (i + 8 <= b.length
                    && (JsonStrings.word(b, i) & HIGHS & ((1L << (left << 3)) - 1)) == 0) {
                return true;
            }
            if (b[i] >= 0) {
                i++;
            } else {
                int n = sequence(b, i, end);
                if (n < 0) {
                    return false;
                }
                i += n;
            }
        }
        return true;
    }

    private static final long HIGHS = 0x8080808080808080L;
}

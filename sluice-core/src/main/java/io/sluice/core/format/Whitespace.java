package io.sluice.core.format;

/**
 * Trimming white space in UTF-8 bytes as Go's {@code strings.TrimSpace} does for the characters that occur in
 * practice: ASCII space, tab, LF, VT, FF, CR, and U+0085 and U+00A0 (other Unicode spaces are kept).
 */
final class Whitespace {
    private Whitespace() {
    }

    /** The first index in {@code [from, to)} that does not start white space. */
    static int skipLeading(byte[] b, int from, int to) {
        while (from < to) {
            int w = width(b, from, to);
            if (w == 0) {
                break;
            }
            from += w;
        }
        return from;
    }

    /** The end of {@code [from, to)} without trailing white space. */
    static int skipTrailing(byte[] b, int from, int to) {
        while (to > from) {
            byte c = b[to - 1];
            if (ascii(c)) {
                to--;
            } else if (to - 2 >= from && b[to - 2] == (byte) 0xC2 && (c == (byte) 0x85 || c == (byte) 0xA0)) {
                to -= 2;
            } else {
                break;
            }
        }
        return to;
    }

    private static int width(byte[] b, int at, int to) {
        if (ascii(b[at])) {
            return 1;
        }
        if (b[at] == (byte) 0xC2 && at + 1 < to && (b[at + 1] == (byte) 0x85 || b[at + 1] == (byte) 0xA0)) {
            return 2;
        }
        return 0;
    }

    private static boolean ascii(byte c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }
}

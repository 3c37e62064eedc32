package io.sluice.io;

/**
 * Byte searching and parsing for the line splitters. Lines are found eight bytes at a time (SWAR, in
 * {@link io.sluice.core.Bytes}): the per-byte loop was the largest cost of reading a file at 900 MB/s.
 */
public final class Bytes {
    private Bytes() {
    }

    /** Index of the first {@code b} in {@code a[from, to)}, or -1 (see {@link io.sluice.core.Bytes#indexOf}). */
    public static int indexOf(byte[] a, int from, int to, byte b) {
        return io.sluice.core.Bytes.indexOf(a, from, to, b);
    }

    /** Index of the first occurrence of {@code needle} in {@code a[from, to)}, or -1. */
    public static int indexOf(byte[] a, int from, int to, byte[] needle) {
        if (needle.length == 1) {
            return indexOf(a, from, to, needle[0]);
        }
        int last = to - needle.length;
        int i = from;
        while (i <= last) {
            int at = indexOf(a, i, last + 1, needle[0]);
            if (at < 0) {
                return -1;
            }
            int k = 1;
            while (k < needle.length && a[at + k] == needle[k]) {
                k++;
            }
            if (k == needle.length) {
                return at;
            }
            i = at + 1;
        }
        return -1;
    }

    /** Parses a non-negative decimal in {@code a[from, to)}; -1 when empty, not all digits, or over {@code max}. */
    public static long parseDecimal(byte[] a, int from, int to, long max) {
        if (from >= to) {
            return -1;
        }
        long n = 0;
        for (int i = from; i < to; i++) {
            int d = a[i] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            n = n * 10 + d;
            if (n > max) {
                return -1;
            }
        }
        return n;
    }

    /** Gollum's escapes in delimiter settings ("\n", "\r\n", "\t", "\\") as bytes. */
    public static byte[] unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                switch (n) {
                    case 'n': b.append('\n'); break;
                    case 'r': b.append('\r'); break;
                    case 't': b.append('\t'); break;
                    case '0': b.append('\0'); break;
                    case '\\': b.append('\\'); break;
                    default: b.append('\\').append(n);
                }
            } else {
                b.append(c);
            }
        }
        return b.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}

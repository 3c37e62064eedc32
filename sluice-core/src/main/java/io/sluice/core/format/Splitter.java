package io.sluice.core.format;

import io.sluice.core.Bytes;
import java.util.Arrays;

/**
 * Splits bytes like Go's {@code strings.Split}: at every occurrence of a separator, or after every UTF-8
 * character when the separator is empty. Records part ranges without copying; one instance per thread.
 */
final class Splitter {
    private int[] starts = new int[8];
    private int[] lengths = new int[8];

    /** Splits {@code b[off, off+len)}, recording at most {@code max} parts; returns how many were recorded. */
    int split(byte[] b, int off, int len, byte[] sep, int max) {
        int end = off + len;
        int n = 0;
        int from = off;
        while (n < max) {
            if (sep.length == 0) {
                if (from >= end) {
                    break;
                }
                int next = nextRune(b, from, end);
                record(n++, from, next - from);
                from = next;
                continue;
            }
            int at = indexOf(b, from, end, sep);
            if (at < 0) {
                record(n++, from, end - from);
                break;
            }
            record(n++, from, at - from);
            from = at + sep.length;
        }
        return n;
    }

    private void record(int i, int start, int length) {
        if (i == starts.length) {
            starts = Arrays.copyOf(starts, i * 2);
            lengths = Arrays.copyOf(lengths, i * 2);
        }
        starts[i] = start;
        lengths[i] = length;
    }

    int start(int i) {
        return starts[i];
    }

    int length(int i) {
        return lengths[i];
    }

    /** The end of the UTF-8 character at {@code from} (one byte for invalid bytes), or -1 at the end. */
    private static int nextRune(byte[] b, int from, int end) {
        if (from >= end) {
            return -1;
        }
        int i = from + 1;
        while (i < end && (b[i] & 0xC0) == 0x80 && i - from < 4) {
            i++;
        }
        return i;
    }

    /** First index of {@code sep} in {@code b[from, end)}, or -1. */
    static int indexOf(byte[] b, int from, int end, byte[] sep) {
        int n = sep.length;
        byte first = sep[0];
        if (n == 1) {
            return Bytes.indexOf(b, from, end, first);
        }
        for (int i = from, last = end - n; i <= last; i++) {
            if (b[i] == first && (n == 1 || Arrays.equals(b, i + 1, i + n, sep, 1, n))) {
                return i;
            }
        }
        return -1;
    }


    /** Last index of {@code sep} in {@code b[from, end)}, or -1. */
    static int lastIndexOf(byte[] b, int from, int end, byte[] sep) {
        int n = sep.length;
        for (int i = end - n; i >= from; i--) {
            if (Arrays.equals(b, i, i + n, sep, 0, n)) {
                return i;
            }
        }
        return -1;
    }
}

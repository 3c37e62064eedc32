package io.sluice.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Byte searching shared by the formatters and the line splitters: eight bytes at a time (SWAR), since a long
 * compare finds "no such byte in these 8" in one step where a per-byte loop takes eight.
 */
public final class Bytes {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    private Bytes() {
    }

    /** Index of the first {@code b} in {@code a[from, to)}, or -1. */
    public static int indexOf(byte[] a, int from, int to, byte b) {
        int i = from;
        long pattern = (b & 0xFFL) * ONES;
        for (; i + 8 <= to; i += 8) {
            long word = (long) LONGS.get(a, i) ^ pattern;
            long found = (word - ONES) & ~word & HIGHS;
            if (found != 0) {
                // The lowest flagged byte is exact: borrows only disturb bytes above a real match.
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        return -1;
    }
}

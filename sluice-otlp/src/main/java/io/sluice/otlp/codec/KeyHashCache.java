package io.sluice.otlp.codec;

import io.sluice.core.message.Metadata;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The attribute keys of the last records, by position: records of one batch mostly carry the same keys in the same
 * order, so the key at position {@code i} of a record is compared (a few word compares) with the key at position
 * {@code i} of the record before, and when they are equal its {@link Metadata#hash} and its UTF-8 check are known
 * already. Any other key is checked, hashed and remembered at its position. Only keys up to {@link #MAX_KEY} bytes at
 * the first {@link #SLOTS} positions are cached; the rest are checked and hashed each time.
 */
final class KeyHashCache {
    static final int SLOTS = 32;
    static final int MAX_KEY = 64;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final byte[] keys = new byte[SLOTS * MAX_KEY];
    private final int[] lengths = new int[SLOTS];
    private final int[] hashes = new int[SLOTS];

    KeyHashCache() {
        java.util.Arrays.fill(lengths, -1);
    }

    /**
     * The {@link Metadata#hash} of the key {@code b[off, off+len)} found at position {@code slot} of a record; throws
     * (as {@link ProtoValues#readString} does, at the reader's position) when the key is not valid UTF-8.
     */
    int hash(byte[] b, int off, int len, int slot, ProtoReader in) throws OtlpFormatException {
        if (slot < SLOTS && lengths[slot] == len && same(b, off, keys, slot * MAX_KEY, len)) {
            return hashes[slot];
        }
        return miss(b, off, len, slot, in);
    }

    /** A key not cached at its position: checked, hashed and remembered there (kept out of the hot path). */
    private int miss(byte[] b, int off, int len, int slot, ProtoReader in) throws OtlpFormatException {
        in.checkUtf8(off, len);
        int h = Metadata.hash(b, off, len);
        if (slot < SLOTS && len <= MAX_KEY) {
            System.arraycopy(b, off, keys, slot * MAX_KEY, len);
            lengths[slot] = len;
            hashes[slot] = h;
        }
        return h;
    }

    /** Whether {@code a[ao, ao+len)} equals {@code c[co, co+len)}, {@code c} holding at least 8 bytes from co. */
    private static boolean same(byte[] a, int ao, byte[] c, int co, int len) {
        if (len >= 8) {
            int i = 0;
            for (; i < len - 8; i += 8) {
                if ((long) LONGS.get(a, ao + i) != (long) LONGS.get(c, co + i)) {
                    return false;
                }
            }
            return (long) LONGS.get(a, ao + len - 8) == (long) LONGS.get(c, co + len - 8);
        }
        for (int i = 0; i < len; i++) {
            if (a[ao + i] != c[co + i]) {
                return false;
            }
        }
        return true;
    }
}

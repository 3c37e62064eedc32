package io.sluice.core.message;

import io.sluice.core.json.JsonStrings;
import java.util.Arrays;

/**
 * How {@link Metadata} stores its fields: keys and values as byte ranges in one arena, and a table of
 * {@value #S} ints per field. The layout, the key search and the arena's growth and compaction are here; what a
 * field means (kinds, escaped strings, the setters parsers use) is {@link Metadata}'s. A base class rather than a
 * member object: the hot accessors then read the table with one field load, as before the split.
 */
abstract class FieldStore {
    static final int RETAIN_ARENA = 16 * 1024;
    static final int RETAIN_FIELDS = 256;
    byte[] arena = new byte[256];
    int used;
    int count;
    /**
     * The fields, {@value #S} ints each, side by side: key offset, key length, key hash (compared before the
     * bytes, so most probes cost one int compare), value offset, value length, kind, form (0 decoded bytes;
     * {@link #RAW} raw JSON contents without escapes; {@link #ESCAPED} with escapes), and whether the key bytes
     * are valid JSON string contents as they are. One array rather than one per column: a message's metadata is
     * touched per message in a pipeline, and a field then lies in one cache line instead of eight arrays.
     */
    int[] f = new int[8 * S];
    /**
     * Bit {@code hash & 63} is set for every key hash stored (and may stay set after a removal): a lookup whose
     * bit is clear is a miss without a scan. Most lookups of a parse are misses (no duplicate keys, new fields).
     */
    long hashBits;
    static final int S = 8;
    static final int KEY_OFF = 0;
    static final int KEY_LEN = 1;
    static final int KEY_HASH = 2;
    static final int VAL_OFF = 3;
    static final int VAL_LEN = 4;
    static final int KIND = 5;
    static final int FORM = 6;
    static final int KEY_RAW = 7;
    static final byte DECODED = 0;
    static final byte RAW = 1;
    static final byte ESCAPED = 2;

    /** The last of fields {@code 0} to {@code upto-1} whose key is {@code key[off, off+len)} with this hash, or -1. */
    final int find(byte[] key, int off, int len, int hash, int upto) {
        int[] t = f;
        for (int i = upto - 1; i >= 0; i--) {
            if (t[i * S + KEY_HASH] == hash && t[i * S + KEY_LEN] == len && equalBytes(arena, t[i * S + KEY_OFF], key, off, len)) {
                return i;
            }
        }
        return -1;
    }

    static boolean equalBytes(byte[] a, int aOff, byte[] b, int bOff, int len) {
        for (int i = 0; i < len; i++) {
            if (a[aOff + i] != b[bOff + i]) {
                return false;
            }
        }
        return true;
    }

    /** Unescapes field {@code i} in place; the unescaped form is never longer, so it fits where it is. */
    final void materialize(int i) {
        if (f[i * S + FORM] == ESCAPED) {
            f[i * S + VAL_LEN] = JsonStrings.unescape(arena, f[i * S + VAL_OFF], f[i * S + VAL_LEN], arena, f[i * S + VAL_OFF]);
            f[i * S + FORM] = DECODED;
        }
    }

    final int append(byte[] src, int off, int len) {
        if (used + len > arena.length) {
            compactOrGrow(len);
        }
        int at = used;
        System.arraycopy(src, off, arena, at, len);
        used += len;
        return at;
    }

    /** Replaced values leave dead bytes behind; copy the live ones to a fresh arena before growing. */
    final void compactOrGrow(int need) {
        int live = 0;
        for (int i = 0; i < count; i++) {
            live += f[i * S + KEY_LEN] + f[i * S + VAL_LEN];
        }
        byte[] next = new byte[Math.max(arena.length, Integer.highestOneBit(Math.max(64, live + need)) << 1)];
        int at = 0;
        for (int i = 0; i < count; i++) {
            System.arraycopy(arena, f[i * S + KEY_OFF], next, at, f[i * S + KEY_LEN]);
            f[i * S + KEY_OFF] = at;
            at += f[i * S + KEY_LEN];
            System.arraycopy(arena, f[i * S + VAL_OFF], next, at, f[i * S + VAL_LEN]);
            f[i * S + VAL_OFF] = at;
            at += f[i * S + VAL_LEN];
        }
        arena = next;
        used = at;
    }

    /** Adds a field at the end, its slot not yet written; returns its index. */
    final int addField() {
        grow(count + 1);
        return count++;
    }

    /** Writes field {@code i}'s key: its range, hash and whether it is JSON string contents as it is. */
    final void keySlot(int i, int offset, int length, int hash, boolean raw) {
        int[] t = f;
        t[i * S + KEY_OFF] = offset;
        t[i * S + KEY_LEN] = length;
        t[i * S + KEY_HASH] = hash;
        t[i * S + KEY_RAW] = raw ? 1 : 0;
        hashBits |= 1L << hash;
    }

    /** Writes field {@code i}'s value: its range, kind and form. */
    final void valueSlot(int i, int offset, int length, byte kind, byte form) {
        int[] t = f;
        t[i * S + VAL_OFF] = offset;
        t[i * S + VAL_LEN] = length;
        t[i * S + KIND] = kind;
        t[i * S + FORM] = form;
    }

    final void grow(int n) {
        if (n * S > f.length) {
            f = Arrays.copyOf(f, Math.max(n * S, f.length * 2));
        }
    }
}

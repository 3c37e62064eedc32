package io.sluice.core.message;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Structured fields of a message, stored flat: keys and values are byte ranges in one reusable arena,
 * so setting a field allocates nothing once the arena has grown to the working size. Values keep their
 * JSON kind so that a field written as a number is written back as a number.
 */
public final class Metadata {
    /** A string value; bytes are the unescaped UTF-8 text. */
    public static final byte STRING = 0;
    /** A number, as its JSON text. */
    public static final byte NUMBER = 1;
    /** true or false, as text. */
    public static final byte BOOLEAN = 2;
    /** null. */
    public static final byte NULL = 3;
    /** A nested object or array, as its raw JSON text. */
    public static final byte JSON = 4;

    private byte[] arena = new byte[256];
    private int used;
    private int count;
    private int[] keyOff = new int[8];
    private int[] keyLen = new int[8];
    private int[] valOff = new int[8];
    private int[] valLen = new int[8];
    private byte[] kinds = new byte[8];

    /** Number of fields. */
    public int size() {
        return count;
    }

    /** Removes every field, keeping the storage. */
    public void clear() {
        used = 0;
        count = 0;
    }

    /** Index of the field with this UTF-8 key, or -1. Keys are compared as bytes: no String is made. */
    public int indexOf(byte[] key) {
        return indexOf(key, 0, key.length);
    }

    /** Index of the field whose key equals {@code key[off, off+len)}, or -1. */
    public int indexOf(byte[] key, int off, int len) {
        for (int i = count - 1; i >= 0; i--) {
            if (keyLen[i] == len && Arrays.equals(arena, keyOff[i], keyOff[i] + len, key, off, off + len)) {
                return i;
            }
        }
        return -1;
    }

    /** Index of a key given as a String (allocates; for tools and tests, not hot paths). */
    public int indexOf(String key) {
        return indexOf(key.getBytes(StandardCharsets.UTF_8));
    }

    /** Sets a field; an existing field with the same key is replaced (last wins). */
    public void set(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength, byte kind) {
        int i = indexOf(key, keyOffset, keyLength);
        if (i < 0) {
            i = count;
            grow(count + 1);
            keyOff[i] = append(key, keyOffset, keyLength);
            keyLen[i] = keyLength;
            count++;
        }
        valOff[i] = append(value, valueOffset, valueLength);
        valLen[i] = valueLength;
        kinds[i] = kind;
    }

    /** Sets a field from whole arrays. */
    public void set(byte[] key, byte[] value, byte kind) {
        set(key, 0, key.length, value, 0, value.length, kind);
    }

    /** Sets a string field (allocates; convenience for tools and tests). */
    public void setString(String key, String value) {
        set(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8), STRING);
    }

    /** Removes the field at index {@code i}, keeping the order of the others. */
    public void remove(int i) {
        int tail = count - i - 1;
        System.arraycopy(keyOff, i + 1, keyOff, i, tail);
        System.arraycopy(keyLen, i + 1, keyLen, i, tail);
        System.arraycopy(valOff, i + 1, valOff, i, tail);
        System.arraycopy(valLen, i + 1, valLen, i, tail);
        System.arraycopy(kinds, i + 1, kinds, i, tail);
        count--;
    }

    /** Renames field {@code i}; a field already holding the new key is removed first. */
    public void rename(int i, byte[] newKey) {
        int existing = indexOf(newKey);
        if (existing == i) {
            return;
        }
        if (existing >= 0) {
            remove(existing);
            if (existing < i) {
                i--;
            }
        }
        keyOff[i] = append(newKey, 0, newKey.length);
        keyLen[i] = newKey.length;
    }

    /** The arena holding keys and values; read it with the offsets below. */
    public byte[] arena() {
        return arena;
    }

    public int keyOffset(int i) {
        return keyOff[i];
    }

    public int keyLength(int i) {
        return keyLen[i];
    }

    public int valueOffset(int i) {
        return valOff[i];
    }

    public int valueLength(int i) {
        return valLen[i];
    }

    public byte kind(int i) {
        return kinds[i];
    }

    /** Key of field {@code i} as a String (allocates). */
    public String key(int i) {
        return new String(arena, keyOff[i], keyLen[i], StandardCharsets.UTF_8);
    }

    /** Value of field {@code i} as a String (allocates). */
    public String value(int i) {
        return new String(arena, valOff[i], valLen[i], StandardCharsets.UTF_8);
    }

    /** Value of a field as a String, or null when absent (allocates). */
    public String getString(String key) {
        int i = indexOf(key);
        return i < 0 ? null : value(i);
    }

    /** Makes this a copy of {@code other}, reusing storage. */
    public void copyFrom(Metadata other) {
        if (arena.length < other.used) {
            arena = new byte[other.arena.length];
        }
        System.arraycopy(other.arena, 0, arena, 0, other.used);
        used = other.used;
        grow(other.count);
        System.arraycopy(other.keyOff, 0, keyOff, 0, other.count);
        System.arraycopy(other.keyLen, 0, keyLen, 0, other.count);
        System.arraycopy(other.valOff, 0, valOff, 0, other.count);
        System.arraycopy(other.valLen, 0, valLen, 0, other.count);
        System.arraycopy(other.kinds, 0, kinds, 0, other.count);
        count = other.count;
    }

    private int append(byte[] src, int off, int len) {
        if (used + len > arena.length) {
            compactOrGrow(len);
        }
        int at = used;
        System.arraycopy(src, off, arena, at, len);
        used += len;
        return at;
    }

    /** Replaced values leave dead bytes behind; copy the live ones to a fresh arena before growing. */
    private void compactOrGrow(int need) {
        int live = 0;
        for (int i = 0; i < count; i++) {
            live += keyLen[i] + valLen[i];
        }
        byte[] next = new byte[Math.max(arena.length, Integer.highestOneBit(Math.max(64, live + need)) << 1)];
        int at = 0;
        for (int i = 0; i < count; i++) {
            System.arraycopy(arena, keyOff[i], next, at, keyLen[i]);
            keyOff[i] = at;
            at += keyLen[i];
            System.arraycopy(arena, valOff[i], next, at, valLen[i]);
            valOff[i] = at;
            at += valLen[i];
        }
        arena = next;
        used = at;
    }

    private void grow(int n) {
        if (n > keyOff.length) {
            int cap = Math.max(n, keyOff.length * 2);
            keyOff = Arrays.copyOf(keyOff, cap);
            keyLen = Arrays.copyOf(keyLen, cap);
            valOff = Arrays.copyOf(valOff, cap);
            valLen = Arrays.copyOf(valLen, cap);
            kinds = Arrays.copyOf(kinds, cap);
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append(key(i)).append('=').append(value(i));
        }
        return b.append('}').toString();
    }
}

package io.sluice.core.message;

import io.sluice.core.json.JsonStrings;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Structured fields of a message, stored flat: keys and values are byte ranges in one reusable arena,
 * so setting a field allocates nothing once the arena has grown to the working size. Values keep their
 * JSON kind so that a field written as a number is written back as a number.
 *
 * <p>Parsers copy a whole document into the arena once ({@link #appendToArena}) and then point fields at
 * ranges inside it ({@link #setRange}): no copy and no object per field. A string value may be left
 * <em>escaped</em> (its raw JSON contents); it is unescaped in place the first time someone reads its bytes
 * through {@link #valueOffset}/{@link #valueLength}/{@link #value}, so a field nobody reads is never
 * decoded, and a JSON writer can copy the raw form ({@link #isEscaped}, {@link #rawValueOffset}).
 *
 * <p>Over 400 lines on purpose: this is the one API every decoder and formatter writes fields through, each in the
 * way that is cheapest for it (copied, ranges of a parsed document, decoded bytes, prepared keys, bulk), and each
 * entry point is a few lines over the storage in {@link FieldStore}.
 */
public final class Metadata extends FieldStore {
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

    /**
     * A key named in configuration, prepared once: its bytes, its {@link #hash} and whether it can be written
     * into JSON without escaping. Lookups and writes by Key skip the per-message hashing and escaping checks.
     */
    public static final class Key {
        final byte[] bytes;
        final int hash;
        final boolean plain;

        public Key(String name) {
            this.bytes = name.getBytes(StandardCharsets.UTF_8);
            this.hash = hash(bytes, 0, bytes.length);
            this.plain = JsonStrings.isPlain(bytes, 0, bytes.length);
        }

        /** The key's UTF-8 bytes (do not modify). */
        public byte[] bytes() {
            return bytes;
        }

        @Override
        public String toString() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /** Number of fields. */
    public int size() {
        return count;
    }

    /**
     * Bytes the fields take now: the arena bytes written and the field table's entries. Cheap (two reads): a decoder
     * charges what each message really holds against the memory budget with it, as it goes.
     */
    public long usedBytes() {
        return used + 4L * S * count;
    }

    /** Bytes this field set holds: its arena and field table. */
    long retainedBytes() {
        return 32 + arena.length + 4L * f.length;
    }

    /** Removes every field, keeping the storage. */
    public void clear() {
        // A field set that grew for one large event shrinks back, as message payloads do.
        if (arena.length > RETAIN_ARENA) {
            arena = new byte[256];
        }
        if (f.length > RETAIN_FIELDS * S) {
            f = new int[8 * S];
        }
        used = 0;
        count = 0;
        hashBits = 0;
    }

    /** Index of the field with this key, or -1. */
    public int indexOf(Key key) {
        return indexOf(key.bytes, 0, key.bytes.length, key.hash);
    }

    /** Index of the field with this UTF-8 key, or -1. Keys are compared as bytes: no String is made. */
    public int indexOf(byte[] key) {
        return indexOf(key, 0, key.length);
    }

    /** Index of the field whose key equals {@code key[off, off+len)}, or -1. */
    public int indexOf(byte[] key, int off, int len) {
        return indexOf(key, off, len, hash(key, off, len));
    }

    /** Like {@link #indexOf(byte[], int, int)} with the key's {@link #hash} already known (keys from config). */
    public int indexOf(byte[] key, int off, int len, int hash) {
        return (hashBits & (1L << hash)) == 0 ? -1 : find(key, off, len, hash, count);
    }

    /**
     * The hash {@link #indexOf(byte[], int, int, int)} expects. Eight bytes per step (the last word overlaps the
     * one before it) rather than one: keys like {@code thisisquitealongstring} are hashed on every parse, and a
     * byte-serial {@code 31 * h + b} chain made hashing a visible share of format.JSON.
     */
    public static int hash(byte[] key, int off, int len) {
        long h = len * MIX;
        int end = off + len;
        if (len >= 8) {
            for (int i = off; i < end - 8; i += 8) {
                h = Long.rotateLeft((h ^ (long) LONGS.get(key, i)) * MIX, 29);
            }
            h ^= (long) LONGS.get(key, end - 8);
        } else if (len >= 4) {
            h ^= ((int) INTS.get(key, off) & 0xFFFFFFFFL) | ((long) (int) INTS.get(key, end - 4) << 32);
        } else {
            for (int i = off; i < end; i++) {
                h = (h << 8) | (key[i] & 0xFF);
            }
        }
        h *= MIX;
        return (int) (h ^ (h >>> 32));
    }

    private static final long MIX = 0x9E3779B97F4A7C15L;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    /** Index of a key given as a String (allocates; for tools and tests, not hot paths). */
    public int indexOf(String key) {
        return indexOf(key.getBytes(StandardCharsets.UTF_8));
    }

    /** Sets a field; an existing field with the same key is replaced (last wins). */
    public void set(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength, byte kind) {
        int h = hash(key, keyOffset, keyLength);
        int i = indexOf(key, keyOffset, keyLength, h);
        if (i < 0) {
            i = addField();
            f[i * S + VAL_LEN] = 0; // a stale length must not be counted if the arena compacts below
            f[i * S + KEY_LEN] = 0;
            keySlot(i, append(key, keyOffset, keyLength), keyLength, h, false);
        }
        f[i * S + VAL_LEN] = 0;
        valueSlot(i, append(value, valueOffset, valueLength), valueLength, kind, DECODED);
    }

    /** Sets a field from whole arrays. */
    public void set(byte[] key, byte[] value, byte kind) {
        set(key, 0, key.length, value, 0, value.length, kind);
    }

    /** Sets a string field (allocates; convenience for tools and tests). */
    public void setString(String key, String value) {
        set(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8), STRING);
    }

    /**
     * Points field {@code i}'s value at a range already in the arena (a sub-range of its own value, say, when
     * trimming or splitting); nothing is copied. {@code rawJson} as in {@link #setKeyRange}.
     */
    public void setValueRange(int i, int valueOffset, int valueLength, byte kind, boolean rawJson) {
        valueSlot(i, valueOffset, valueLength, kind, rawJson && kind == STRING ? RAW : DECODED);
    }

    /** Removes the field at index {@code i}, keeping the order of the others. */
    public void remove(int i) {
        System.arraycopy(f, (i + 1) * S, f, i * S, (count - i - 1) * S);
        count--;
    }

    /** Renames field {@code i}; a field already holding the new key is removed first. */
    public void rename(int i, byte[] newKey) {
        rename(i, newKey, hash(newKey, 0, newKey.length), false);
    }

    /** Renames field {@code i} to a prepared key; a field already holding it is removed first. */
    public void rename(int i, Key newKey) {
        rename(i, newKey.bytes, newKey.hash, newKey.plain);
    }

    private void rename(int i, byte[] newKey, int h, boolean plain) {
        int existing = indexOf(newKey, 0, newKey.length, h);
        if (existing == i) {
            return;
        }
        if (existing >= 0) {
            remove(existing);
            if (existing < i) {
                i--;
            }
        }
        keySlot(i, append(newKey, 0, newKey.length), newKey.length, h, plain);
    }

    /** The arena holding keys and values; read it with the offsets below. */
    public byte[] arena() {
        return arena;
    }

    /** Offset of field {@code i}'s key in the arena. */
    public int keyOffset(int i) {
        return f[i * S + KEY_OFF];
    }

    /** Length of field {@code i}'s key. */
    public int keyLength(int i) {
        return f[i * S + KEY_LEN];
    }

    /** Offset of field {@code i}'s value in the arena, unescaping it first if it was left escaped. */
    public int valueOffset(int i) {
        materialize(i);
        return f[i * S + VAL_OFF];
    }

    /** Length of field {@code i}'s value, unescaping it first if it was left escaped. */
    public int valueLength(int i) {
        materialize(i);
        return f[i * S + VAL_LEN];
    }

    /** Whether field {@code i} is a string still held as raw JSON string contents with escapes (not yet decoded). */
    public boolean isEscaped(int i) {
        return f[i * S + FORM] == ESCAPED;
    }

    /**
     * Whether field {@code i}'s stored bytes ({@link #rawValueOffset}) are valid JSON string contents as they
     * are, so a JSON writer may copy them without escaping: true for strings parsed from JSON and not changed.
     */
    public boolean isRawJson(int i) {
        return f[i * S + FORM] != DECODED;
    }

    /**
     * Whether field {@code i}'s key bytes are valid JSON string contents as they are (a key parsed from JSON
     * without escapes, or a prepared {@link Key} that needs none), so a JSON writer may copy them unchecked.
     */
    public boolean isKeyRaw(int i) {
        return f[i * S + KEY_RAW] != 0;
    }

    /** Offset of field {@code i}'s value as stored: raw JSON contents if {@link #isEscaped}. Does not decode. */
    public int rawValueOffset(int i) {
        return f[i * S + VAL_OFF];
    }

    /** Length of field {@code i}'s value as stored. Does not decode. */
    public int rawValueLength(int i) {
        return f[i * S + VAL_LEN];
    }

    /**
     * Copies bytes into the arena and returns their offset, for parsers that then point fields at ranges
     * inside them with {@link #setRange}. Offsets stay valid until the next {@link #set}, {@link #rename} or
     * {@link #copyFrom}; range setters keep them valid (they grow the arena without compacting it).
     */
    public int appendToArena(byte[] src, int off, int len) {
        if (used + len > arena.length) {
            arena = Arrays.copyOf(arena, Math.max(used + len, arena.length * 2));
        }
        int at = used;
        System.arraycopy(src, off, arena, at, len);
        used += len;
        return at;
    }

    /**
     * Sets a field whose key and value are both ranges already in the arena (see {@link #appendToArena});
     * nothing is copied. An existing field with the same key is replaced (last wins).
     *
     * A string value given this way is taken as raw JSON string contents (it is what a parser found between
     * the quotes): written back to JSON as it is, and decoded on first read if {@code escaped}.
     *
     * @param keyRawJson true if the key range holds JSON string contents without escapes (as a parser found it),
     *                   so writers may copy it as it is
     * @param escaped true if the value is a string still holding JSON escapes (decoded on first read)
     */
    public void setRange(int keyOffset, int keyLength, boolean keyRawJson, int valueOffset, int valueLength, byte kind,
                         boolean escaped) {
        putRange(keyOffset, keyLength, keyRawJson, valueOffset, valueLength, kind,
                kind != STRING ? DECODED : escaped ? ESCAPED : RAW);
    }

    private void putRange(int keyOffset, int keyLength, boolean keyRawJson, int valueOffset, int valueLength, byte kind,
                          byte form) {
        int h = hash(arena, keyOffset, keyLength);
        int i = indexOf(arena, keyOffset, keyLength, h);
        if (i < 0) {
            i = addField();
        }
        keySlot(i, keyOffset, keyLength, h, keyRawJson);
        valueSlot(i, valueOffset, valueLength, kind, form);
    }

    /**
     * Sets a field whose key and value are both ranges already in the arena (see {@link #appendToArena}) holding
     * decoded bytes, not JSON text: what a binary decoder (msgpack) finds. Nothing is copied; an existing field
     * with the same key is replaced (last wins).
     */
    public void setDecodedRange(int keyOffset, int keyLength, int valueOffset, int valueLength, byte kind) {
        putRange(keyOffset, keyLength, false, valueOffset, valueLength, kind, DECODED);
    }

    /**
     * Like {@link #setDecodedRange} for a caller that knows more, so that a field costs no hashing and (mostly) no
     * search: {@code keyHash} is the key's {@link #hash}, and the caller guarantees that the key differs from the
     * keys of fields {@code checkFrom} to {@code size()-1} (say, it adds a batch of fields whose keys it knows to be
     * distinct, and {@code checkFrom} is where the batch started). Only fields {@code 0} to {@code checkFrom-1} are
     * searched for the key; one holding it is replaced in place (last value, first place), as {@link #set} does.
     * With {@code checkFrom == size()} this is exactly {@link #setDecodedRange}. A caller breaking the guarantee
     * gets two fields with one key (lookups then find the later one): a bug in the caller.
     */
    public void setDecodedRange(int keyOffset, int keyLength, int keyHash, int valueOffset, int valueLength, byte kind,
                                int checkFrom) {
        int i = (hashBits & (1L << keyHash)) == 0 ? -1 : find(arena, keyOffset, keyLength, keyHash, checkFrom);
        if (i < 0) {
            i = addField();
        }
        keySlot(i, keyOffset, keyLength, keyHash, false);
        valueSlot(i, valueOffset, valueLength, kind, DECODED);
    }

    /**
     * Adds prepared fields in bulk: copies {@code src[srcOff, srcOff+len)} into the arena and adds the {@code n}
     * fields {@code table} describes, six ints each: key offset, key length, value offset, value length, kind,
     * key {@link #hash}; offsets count from {@code srcOff}, values are decoded bytes (as
     * {@link #setDecodedRange}). The caller guarantees the keys differ from each other; each is looked up only among
     * the fields this metadata had before the call, and one found there is replaced in place (first place, last
     * value), as {@link #set} would. With distinct keys this gives exactly what {@link #setDecodedRange} field by
     * field gives, without hashing a key or searching the fields being added.
     */
    public void addDecodedFields(byte[] src, int srcOff, int len, int[] table, int n) {
        int base = appendToArena(src, srcOff, len);
        int before = count;
        long oldBits = hashBits;
        grow(before + n);
        for (int k = 0, o = 0; k < n; k++, o += 6) {
            int h = table[o + 5];
            int ko = base + table[o];
            int kl = table[o + 1];
            int i = (oldBits & (1L << h)) == 0 ? -1 : find(arena, ko, kl, h, before);
            if (i < 0) {
                i = count++;
            }
            keySlot(i, ko, kl, h, false);
            valueSlot(i, base + table[o + 2], table[o + 3], (byte) table[o + 4], DECODED);
        }
    }

    /**
     * Sets a field named {@code key} whose value is a range already in the arena; only the key is copied.
     * {@code rawJson} says the range holds JSON string contents without escapes (a piece of a {@link #isRawJson}
     * value), so writers may copy it as is. Returns the field's index.
     */
    public int setKeyRange(Key key, int valueOffset, int valueLength, byte kind, boolean rawJson) {
        int i = indexOf(key);
        if (i < 0) {
            int at = appendToArena(key.bytes, 0, key.bytes.length);
            i = addField();
            keySlot(i, at, key.bytes.length, key.hash, key.plain);
        }
        valueSlot(i, valueOffset, valueLength, kind, rawJson && kind == STRING ? RAW : DECODED);
        return i;
    }

    /** The JSON kind of field {@code i}'s value: {@link #STRING}, {@link #NUMBER}, ... */
    public byte kind(int i) {
        return (byte) f[i * S + KIND];
    }

    /** Key of field {@code i} as a String (allocates). */
    public String key(int i) {
        return new String(arena, f[i * S + KEY_OFF], f[i * S + KEY_LEN], StandardCharsets.UTF_8);
    }

    /** Value of field {@code i} as a String (allocates). */
    public String value(int i) {
        materialize(i);
        return new String(arena, f[i * S + VAL_OFF], f[i * S + VAL_LEN], StandardCharsets.UTF_8);
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
        System.arraycopy(other.f, 0, f, 0, other.count * S);
        count = other.count;
        hashBits = other.hashBits;
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

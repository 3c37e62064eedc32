package io.sluice.otlp.codec;

import io.sluice.core.json.Decimal;
import io.sluice.core.message.Metadata;
import java.util.Arrays;

/**
 * Metadata fields prepared outside a message: keys and values side by side in one byte array, with their
 * spans. A decoder fills a block once (a resource's and scope's fields, per ResourceLogs and ScopeLogs; a
 * record's own fields as it reads them) and {@link #copyTo copies} it into a message's metadata with one
 * array copy into the arena, pointing the fields at ranges inside it: no field is encoded twice, nothing is
 * allocated once the block has grown to the working size.
 *
 * <p>A field is written in two steps: {@link #key} and then one value method ({@link #string},
 * {@link #signed}, {@link #dbl}, ...). Bytes are decoded text (not JSON string contents), as
 * {@link Metadata#setDecodedRange} takes them.
 *
 * <p>Every key's {@link Metadata#hash} is kept with it (constants' precomputed in {@link Keys}, attribute keys'
 * from {@link KeyHashCache}), and the block knows whether its keys are distinct (no two share a hash). A distinct
 * block goes into a message with {@link Metadata#addDecodedFields}: no key hashed again, each looked up only
 * among the fields the message had (the resource's and scope's); otherwise field by field with full lookups. Both
 * keep OtlpFields' rule for a key set twice: first place, last value.
 */
final class FieldBlock {
    private static final int STRIDE = 6;
    /**
     * Room every {@link #key} makes for the value after it, so that numbers, booleans and null (at most
     * {@link ValueText#MAX_DOUBLE} bytes) are written without a check of their own.
     */
    private static final int SCALAR = ValueText.MAX_DOUBLE;
    private byte[] bytes = new byte[512];
    private int used;
    /** Per field: key offset, key length, value offset, value length, kind, key hash ({@link Metadata#hash}). */
    private int[] spans = new int[32 * STRIDE];
    private int count;
    private int keyStart;
    private int keyHash;
    /** Bit {@code hash & 63} set for every key hash in the block: most new keys are told apart without a scan. */
    private long hashBits;
    /**
     * Whether the keys are known to differ from each other (no two fields share a hash), so {@link #copyTo} may
     * add them without looking each up among the others. False once two keys share a hash: then it looks up all.
     */
    private boolean distinct = true;

    /** Empties the block, keeping its storage. */
    void clear() {
        used = 0;
        count = 0;
        hashBits = 0;
        distinct = true;
    }

    /** Number of fields. */
    int size() {
        return count;
    }

    /** Makes this block a copy of {@code other}, to add more fields after it. */
    void copyFrom(FieldBlock other) {
        clear();
        ensure(other.used);
        System.arraycopy(other.bytes, 0, bytes, 0, other.used);
        used = other.used;
        if (spans.length < other.count * STRIDE) {
            spans = new int[other.spans.length];
        }
        System.arraycopy(other.spans, 0, spans, 0, other.count * STRIDE);
        count = other.count;
        hashBits = other.hashBits;
        distinct = other.distinct;
    }

    /** Starts a field whose key is {@code prefix} followed by {@code k[ko, ko+kl)}. */
    FieldBlock key(byte[] prefix, byte[] k, int ko, int kl) {
        ensure(prefix.length + kl + SCALAR);
        keyStart = used;
        System.arraycopy(prefix, 0, bytes, used, prefix.length);
        System.arraycopy(k, ko, bytes, used + prefix.length, kl);
        used += prefix.length + kl;
        note(Metadata.hash(bytes, keyStart, prefix.length + kl));
        return this;
    }

    /** Starts a field named {@code k[ko, ko+kl)}, whose {@link Metadata#hash} the caller knows. */
    FieldBlock key(byte[] k, int ko, int kl, int hash) {
        ensure(kl + SCALAR);
        keyStart = used;
        System.arraycopy(k, ko, bytes, used, kl);
        used += kl;
        note(hash);
        return this;
    }

    /** Starts a field named {@code key}. */
    FieldBlock key(byte[] key) {
        return key(key, 0, key.length, Metadata.hash(key, 0, key.length));
    }

    /** Starts a field named {@code key}, a constant whose {@link Metadata#hash} is {@code hash}. */
    FieldBlock key(byte[] key, int hash) {
        return key(key, 0, key.length, hash);
    }

    /** Takes the hash of the key just started, noting whether another key of the block may equal it. */
    private void note(int hash) {
        keyHash = hash;
        long bit = 1L << hash;
        if ((hashBits & bit) != 0 && hasHash(hash)) {
            distinct = false;
        }
        hashBits |= bit;
    }

    private boolean hasHash(int hash) {
        int[] s = spans;
        for (int o = 5, n = count * STRIDE; o < n; o += STRIDE) {
            if (s[o] == hash) {
                return true;
            }
        }
        return false;
    }

    /** Ends the field started by {@link #key} with a value of {@code kind} copied from {@code v[vo, vo+vl)}. */
    void value(byte[] v, int vo, int vl, byte kind) {
        ensure(vl);
        System.arraycopy(v, vo, bytes, used, vl);
        end(used, vl, kind);
    }

    /** A string value. */
    void string(byte[] v, int vo, int vl) {
        value(v, vo, vl, Metadata.STRING);
    }

    /** A signed integer, NUMBER. */
    void signed(long v) {
        int start = used;
        end(start, Decimal.putLong(bytes, start, v) - start, Metadata.NUMBER);
    }

    /** An unsigned 64-bit integer, NUMBER. */
    void unsigned(long v) {
        int start = used;
        end(start, ValueText.putUnsigned(bytes, start, v) - start, Metadata.NUMBER);
    }

    /** A double: NUMBER with a fraction or exponent; NaN and the infinities as the STRINGs OTLP JSON uses. */
    void dbl(double d) {
        if (!Double.isFinite(d)) {
            byte[] s = ValueText.nonFinite(d);
            value(s, 0, s.length, Metadata.STRING);
            return;
        }
        int start = used;
        end(start, ValueText.putDouble(bytes, start, d) - start, Metadata.NUMBER);
    }

    /** A boolean. */
    void bool(boolean v) {
        byte[] s = v ? ValueText.TRUE : ValueText.FALSE;
        value(s, 0, s.length, Metadata.BOOLEAN);
    }

    /** An empty value: NULL. */
    void nul() {
        value(ValueText.NULL, 0, ValueText.NULL.length, Metadata.NULL);
    }

    /** Lower-case hex of an id. */
    void hex(byte[] src, int off, int len) {
        ensure(2 * len);
        int start = used;
        end(start, ValueText.putHex(bytes, start, src, off, len) - start, Metadata.STRING);
    }

    /** JSON text (an object or array). */
    void json(byte[] v, int vo, int vl) {
        value(v, vo, vl, Metadata.JSON);
    }

    private void end(int valueOffset, int valueLength, byte kind) {
        if ((count + 1) * STRIDE > spans.length) {
            spans = Arrays.copyOf(spans, spans.length * 2);
        }
        int o = count * STRIDE;
        spans[o] = keyStart;
        spans[o + 1] = valueOffset - keyStart;
        spans[o + 2] = valueOffset;
        spans[o + 3] = valueLength;
        spans[o + 4] = kind;
        spans[o + 5] = keyHash;
        used = valueOffset + valueLength;
        count++;
    }

    /**
     * Makes {@code md} hold exactly this block's fields: for fields every message of a group starts with, which
     * messages then take with {@link Metadata#copyFrom} (two array copies, keys already hashed) rather than field by
     * field.
     */
    void copyToOnly(Metadata md) {
        md.clear();
        copyTo(md);
    }

    /**
     * Copies every field into {@code md}, after the fields it has (a field with the same key is replaced: first
     * place, last value). Keys known to be {@link #distinct} are looked up only among the fields {@code md} had
     * before, and no key is hashed again.
     */
    void copyTo(Metadata md) {
        if (count == 0) {
            return;
        }
        if (distinct) {
            md.addDecodedFields(bytes, 0, used, spans, count);
            return;
        }
        int base = md.appendToArena(bytes, 0, used);
        int[] s = spans;
        for (int o = 0, n = count * STRIDE; o < n; o += STRIDE) {
            md.setDecodedRange(base + s[o], s[o + 1], s[o + 5], base + s[o + 2], s[o + 3], (byte) s[o + 4],
                    md.size());
        }
    }

    private void ensure(int more) {
        if (used + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(used + more, bytes.length * 2));
        }
    }
}

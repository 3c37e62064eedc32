package io.sluice.otlp.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The fast path of {@link ProtoValues#attribute} for the attribute most records and points are made of: a short
 * KeyValue with a string, bool, int or double value, read straight from the bytes without entering messages.
 */
final class SmallKeyValue {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private SmallKeyValue() {
    }

    /**
     * Reads the common attribute (its tag already read) into {@code block}: a KeyValue of under 128 bytes holding a
     * key (under 128 bytes, cached at its position in {@code keys}) and then a value holding one string (under 128
     * bytes), bool, int or double and nothing else. Returns false, having read nothing, for anything
     * else, which the general path then reads (and rejects, if it is malformed). Throws what the general path
     * would for an invalid UTF-8 key or string value.
     */
    static boolean read(ProtoReader in, KeyHashCache keys, FieldBlock block) throws OtlpFormatException {
        byte[] b = in.buffer();
        int p = in.position();
        if (in.limit() - p < 5) {
            return false;
        }
        int n = b[p];
        int end = p + 1 + n;
        if (n < 4 || end > in.limit() || b[p + 1] != ProtoValues.KEY_TAG) {
            return false;
        }
        int kl = b[p + 2];
        int ko = p + 3;
        int q = ko + kl;
        if (kl < 0 || q + 3 > end || b[q] != ProtoValues.VALUE_TAG || b[q + 1] != end - q - 2) {
            return false;
        }
        int a = q + 2; // the AnyValue, at least one byte, up to end
        int t = b[a];
        switch (t) {
            case 1 << 3 | ProtoReader.LEN -> {
                if (a + 2 > end) {
                    return false;
                }
                int sl = b[a + 1];
                int so = a + 2;
                if (so + sl != end) { // also a negative (longer) length
                    return false;
                }
                int h = keys.hash(b, ko, kl, block.size(), in);
                in.checkUtf8(so, sl);
                block.key(b, ko, kl, h).string(b, so, sl);
            }
            case 4 << 3 | ProtoReader.I64 -> {
                if (a + 9 != end) {
                    return false;
                }
                int h = keys.hash(b, ko, kl, block.size(), in);
                block.key(b, ko, kl, h).dbl(Double.longBitsToDouble((long) LONGS.get(b, a + 1)));
            }
            case 2 << 3 | ProtoReader.VARINT, 3 << 3 | ProtoReader.VARINT -> {
                long v = 0;
                int i = a + 1;
                for (int shift = 0; ; shift += 7) {
                    if (i >= end || shift > 63) {
                        return false;
                    }
                    byte c = b[i++];
                    v |= (long) (c & 0x7f) << shift;
                    if (c >= 0) {
                        break;
                    }
                }
                if (i != end) {
                    return false;
                }
                int h = keys.hash(b, ko, kl, block.size(), in);
                if (t == (2 << 3 | ProtoReader.VARINT)) {
                    block.key(b, ko, kl, h).bool(v != 0);
                } else {
                    block.key(b, ko, kl, h).signed(v);
                }
            }
            default -> {
                return false;
            }
        }
        in.position(end);
        return true;
    }
}

package io.sluice.forward.codec;

import java.util.Arrays;

/**
 * A msgpack extension value other than EventTime, kept as its type and raw data so that it can be
 * passed on unchanged.
 *
 * @param type the ext type number
 * @param data the payload; not copied
 */
public record ExtValue(byte type, byte[] data) {

    @Override
    public boolean equals(Object o) {
        return o instanceof ExtValue e && e.type == type && Arrays.equals(e.data, data);
    }

    @Override
    public int hashCode() {
        return 31 * type + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "ExtValue[type=" + type + ", length=" + data.length + "]";
    }
}

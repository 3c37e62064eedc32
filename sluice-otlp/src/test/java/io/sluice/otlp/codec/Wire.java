package io.sluice.otlp.codec;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Hand-made protobuf bytes, for input the generated classes refuse to write. */
final class Wire {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    static Wire of() {
        return new Wire();
    }

    Wire varint(long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write((int) v);
        return this;
    }

    Wire tag(int field, int wireType) {
        return varint((long) field << 3 | wireType);
    }

    Wire varintField(int field, long v) {
        return tag(field, 0).varint(v);
    }

    Wire fixed64Field(int field, long v) {
        tag(field, 1);
        for (int i = 0; i < 8; i++) {
            out.write((int) (v >>> (8 * i)));
        }
        return this;
    }

    Wire fixed32Field(int field, int v) {
        tag(field, 5);
        for (int i = 0; i < 4; i++) {
            out.write(v >>> (8 * i));
        }
        return this;
    }

    Wire bytesField(int field, byte[] b) {
        tag(field, 2).varint(b.length);
        out.writeBytes(b);
        return this;
    }

    Wire stringField(int field, String s) {
        return bytesField(field, s.getBytes(StandardCharsets.UTF_8));
    }

    Wire raw(byte... b) {
        out.writeBytes(b);
        return this;
    }

    byte[] bytes() {
        return out.toByteArray();
    }

    /** A logs (or metrics) request holding {@code item} as the one record (metric) of one scope of one resource. */
    static byte[] request(byte[] item) {
        byte[] scope = of().bytesField(2, item).bytes();
        byte[] resource = of().bytesField(2, scope).bytes();
        return of().bytesField(1, resource).bytes();
    }
}

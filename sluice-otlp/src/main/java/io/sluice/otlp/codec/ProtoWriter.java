package io.sluice.otlp.codec;

import io.sluice.core.json.Utf8;
import java.util.Arrays;

/**
 * Writes protobuf wire format into one reusable, growing byte array: nothing is allocated once the buffer has
 * grown to the working size.
 *
 * <p>A nested message's length prefix comes before its contents but is known only after them. {@link #begin}
 * reserves one byte for it and {@link #end} writes the length there, shifting the contents right in the rare case
 * the length needs more than one byte (a message of 128 bytes or more): one {@code arraycopy} per such message,
 * simpler than computing every size twice, and most nested messages of OTLP (key-values, values) are small.
 */
public final class ProtoWriter {
    /** Wire type of varints (int64, uint32, bool, enums). */
    public static final int VARINT = 0;
    /** Wire type of fixed64 and double. */
    public static final int I64 = 1;
    /** Wire type of strings, bytes, nested messages and packed repeated fields. */
    public static final int LEN = 2;
    /** Wire type of fixed32. */
    public static final int I32 = 5;

    private byte[] buf;
    private int pos;
    private int[] open = new int[16];
    private int depth;

    /** A writer with {@code capacity} bytes to start with. */
    public ProtoWriter(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    /** Empties the writer, keeping its buffer; the next bytes are written at {@code start} (room for a prefix). */
    public void reset(int start) {
        ensure(start);
        pos = start;
        depth = 0;
    }

    /** The buffer; the bytes written are {@code [start, size())}. Valid until the next write. */
    public byte[] buffer() {
        return buf;
    }

    /** The end of what was written. */
    public int size() {
        return pos;
    }

    /** Writes a field's tag. */
    public void tag(int field, int wireType) {
        varint32((field << 3) | wireType);
    }

    /** Writes an unsigned varint of up to 32 bits. */
    public void varint32(int v) {
        ensure(5);
        while ((v & ~0x7F) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
    }

    /** Writes a varint of 64 bits (negative int64 take ten bytes, as protobuf writes them). */
    public void varint64(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
    }

    /** An int64, uint64, uint32 or enum field. */
    public void varintField(int field, long v) {
        tag(field, VARINT);
        varint64(v);
    }

    /** A bool field. */
    public void boolField(int field, boolean v) {
        tag(field, VARINT);
        varint32(v ? 1 : 0);
    }

    /** A sint32 field (zigzag). */
    public void sint32Field(int field, int v) {
        tag(field, VARINT);
        varint32((v << 1) ^ (v >> 31));
    }

    /** A fixed64, sfixed64 field. */
    public void fixed64Field(int field, long v) {
        tag(field, I64);
        fixed64(v);
    }

    /** A double field. */
    public void doubleField(int field, double v) {
        fixed64Field(field, Double.doubleToRawLongBits(v));
    }

    /** A fixed32 field. */
    public void fixed32Field(int field, int v) {
        tag(field, I32);
        ensure(4);
        buf[pos++] = (byte) v;
        buf[pos++] = (byte) (v >>> 8);
        buf[pos++] = (byte) (v >>> 16);
        buf[pos++] = (byte) (v >>> 24);
    }

    /** Eight little-endian bytes (a fixed64 or double without its tag, as in packed fields). */
    public void fixed64(long v) {
        ensure(8);
        for (int i = 0; i < 8; i++) {
            buf[pos++] = (byte) (v >>> (8 * i));
        }
    }

    /** A string or bytes field from {@code src[off, off+len)}. */
    public void bytesField(int field, byte[] src, int off, int len) {
        tag(field, LEN);
        varint32(len);
        raw(src, off, len);
    }

    /**
     * A string field from {@code src[off, off+len)}. Protobuf strings must be valid UTF-8 (parsers, the Collector's
     * included, refuse the whole request otherwise), so each invalid sequence is replaced by U+FFFD, as core's
     * writers do; valid text, the usual case, is checked eight bytes per step and copied as it is.
     */
    public void stringField(int field, byte[] src, int off, int len) {
        if (isValidUtf8(src, off, len)) {
            bytesField(field, src, off, len);
            return;
        }
        tag(field, LEN);
        varint32(sanitize(src, off, len, false));
        sanitize(src, off, len, true);
    }

    /**
     * Whether the bytes are valid UTF-8: keys and short values are mostly ASCII, which one OR over the bytes settles
     * (a loop the JIT vectorises) before core's full check runs.
     */
    static boolean isValidUtf8(byte[] b, int off, int len) {
        int any = 0;
        for (int i = off, end = off + len; i < end; i++) {
            any |= b[i];
        }
        return any >= 0 || Utf8.isValid(b, off, len);
    }

    /** Counts (or, with {@code write}, writes) {@code src[off, off+len)} with U+FFFD for each invalid sequence. */
    private int sanitize(byte[] src, int off, int len, boolean write) {
        int n = 0;
        int end = off + len;
        for (int i = off; i < end; ) {
            int k = src[i] >= 0 ? 1 : Utf8.sequence(src, i, end);
            if (k > 0) {
                if (write) {
                    raw(src, i, k);
                }
                n += k;
                i += k;
            } else {
                if (write) {
                    raw(Utf8.REPLACEMENT, 0, 3);
                }
                n += 3;
                i += -k;
            }
        }
        return n;
    }

    /** Copies bytes as they are. */
    public void raw(byte[] src, int off, int len) {
        ensure(len);
        System.arraycopy(src, off, buf, pos, len);
        pos += len;
    }

    /** Starts a nested message (or packed field) as field {@code field}; close it with {@link #end()}. */
    public void begin(int field) {
        tag(field, LEN);
        ensure(1);
        if (depth == open.length) {
            open = Arrays.copyOf(open, depth * 2);
        }
        open[depth++] = pos;
        pos++; // one byte reserved for the length
    }

    /** Ends the innermost message started with {@link #begin}, writing its length. */
    public void end() {
        int at = open[--depth];
        int len = pos - at - 1;
        int size = varintSize(len);
        if (size > 1) {
            ensure(size - 1);
            System.arraycopy(buf, at + 1, buf, at + size, len);
            pos += size - 1;
        }
        int p = at;
        int v = len;
        while ((v & ~0x7F) != 0) {
            buf[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[p] = (byte) v;
    }

    /** Bytes of a varint of {@code v >= 0}. */
    static int varintSize(int v) {
        return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
    }

    private void ensure(int more) {
        if (pos + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(pos + more, buf.length * 2));
        }
    }
}

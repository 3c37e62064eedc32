package io.sluice.otlp.codec;

import io.sluice.core.json.Utf8;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Reads the protobuf wire format from a {@code byte[]} without allocating: tags, varints, fixed 32/64-bit
 * values and length-delimited ranges, which the caller reads in place ({@link #buffer()}, {@link #position()}).
 *
 * <p>A nested message is read by {@link #enter(int) entering} its range (the reader's limit becomes its end) and
 * {@link #leave(int) leaving} it afterwards, so every length, tag and value inside is checked against the
 * enclosing message, not only against the buffer. Groups (wire types 3 and 4, deprecated and absent from OTLP)
 * are malformed input, as are varints longer than ten bytes and lengths past the end of the enclosing message.
 * One instance per thread.
 */
public final class ProtoReader {
    /** Wire type of varints (int32, int64, uint32, uint64, sint32, sint64, bool, enum). */
    public static final int VARINT = 0;
    /** Wire type of fixed64, sfixed64 and double. */
    public static final int I64 = 1;
    /** Wire type of strings, bytes, messages and packed repeated fields. */
    public static final int LEN = 2;
    /** Wire type of fixed32, sfixed32 and float. */
    public static final int I32 = 5;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] buf;
    private int pos;
    private int limit;
    /** Where the input starts: error positions are counted from here, as the peer counts its bytes. */
    private int base;

    /** Starts reading {@code buf[off, off+len)}. */
    public ProtoReader reset(byte[] buf, int off, int len) {
        Objects.checkFromIndexSize(off, len, buf.length);
        this.buf = buf;
        this.pos = off;
        this.limit = off + len;
        this.base = off;
        return this;
    }

    /** The buffer being read. */
    public byte[] buffer() {
        return buf;
    }

    /** The index of the next byte to read in {@link #buffer()}. */
    public int position() {
        return pos;
    }

    /** Moves to {@code p}, which must lie within the current message (to read a range a second time). */
    public void position(int p) {
        if (p < base || p > limit) {
            throw new IndexOutOfBoundsException(p);
        }
        pos = p;
    }

    /** The end (exclusive) of the message being read. */
    public int limit() {
        return limit;
    }

    /** Whether the current message has bytes left. */
    public boolean hasMore() {
        return pos < limit;
    }

    /** The field number of a tag. */
    public static int field(int tag) {
        return tag >>> 3;
    }

    /** The wire type of a tag. */
    public static int wireType(int tag) {
        return tag & 7;
    }

    /** Wire types that may follow a field number: bit n set for wire type n (0, 1, 2 and 5; not the groups'). */
    private static final int VALID_WIRE_TYPES = 1 << VARINT | 1 << I64 | 1 << LEN | 1 << I32;

    /** Reads a tag: a field number of at least 1 and a wire type other than the groups'. */
    public int readTag() throws OtlpFormatException {
        int p = pos;
        if (p < limit) {
            int b = buf[p];
            if (b >= 8 && (VALID_WIRE_TYPES & 1 << (b & 7)) != 0) { // one byte, field 1 to 15: most tags
                pos = p + 1;
                return b;
            }
        }
        long t = readVarint();
        if (t >>> 32 != 0 || t >>> 3 == 0 || (VALID_WIRE_TYPES & 1 << (t & 7)) == 0) {
            throw badTag(p, t);
        }
        return (int) t;
    }

    // Errors are built apart from the methods that detect them, which stay small enough to be inlined.
    private OtlpFormatException badTag(int at, long t) {
        int wt = (int) t & 7;
        if (t >>> 32 != 0 || t >>> 3 == 0) {
            return new OtlpFormatException("invalid field number " + (t >>> 3) + " at byte " + (at - base));
        }
        if (wt == 3 || wt == 4) {
            return new OtlpFormatException("group (wire type " + wt + ") at byte " + (at - base));
        }
        return new OtlpFormatException("invalid wire type " + wt + " at byte " + (at - base));
    }

    /** Throws unless {@code tag} has wire type {@code wt}: a known field sent with another type is malformed. */
    public void expect(int tag, int wt) throws OtlpFormatException {
        if ((tag & 7) != wt) {
            throw wrongType(tag, wt);
        }
    }

    private OtlpFormatException wrongType(int tag, int wt) {
        return new OtlpFormatException("field " + (tag >>> 3) + " has wire type " + (tag & 7) + ", expected " + wt
                + " (before byte " + (pos - base) + ")");
    }

    /** Reads a varint of at most ten bytes. */
    public long readVarint() throws OtlpFormatException {
        int p = pos;
        if (p < limit && buf[p] >= 0) { // one byte: tags, small counts and lengths, booleans
            pos = p + 1;
            return buf[p];
        }
        return readLongVarint();
    }

    private long readLongVarint() throws OtlpFormatException {
        int p = pos;
        long r = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p >= limit) {
                throw truncated(p);
            }
            byte b = buf[p++];
            r |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                pos = p;
                return r;
            }
        }
        throw tooLong();
    }

    private OtlpFormatException tooLong() {
        return new OtlpFormatException("varint longer than 10 bytes at byte " + (pos - base));
    }

    /** Reads the value of a fixed64 field whose tag was just read, checking its wire type. */
    public long fixed64(int tag) throws OtlpFormatException {
        expect(tag, I64);
        return readFixed64();
    }

    /** Reads the value of a double field whose tag was just read, checking its wire type. */
    public double double64(int tag) throws OtlpFormatException {
        return Double.longBitsToDouble(fixed64(tag));
    }

    /** Reads the value of a uint32 field whose tag was just read, as protobuf does: the low 32 bits, unsigned. */
    public long uint32(int tag) throws OtlpFormatException {
        expect(tag, VARINT);
        return readVarint() & 0xFFFFFFFFL;
    }

    /** Reads the value of a sint32 field whose tag was just read: zigzag-encoded, the low 32 bits. */
    public int sint32(int tag) throws OtlpFormatException {
        expect(tag, VARINT);
        int v = (int) readVarint();
        return (v >>> 1) ^ -(v & 1);
    }

    /** Checks an id's length: empty (not set) or {@code size} bytes, as the Collector requires; returns it. */
    public int idLength(int len, int size, String name) throws OtlpFormatException {
        if (len != 0 && len != size) {
            throw error(name + " of " + len + " bytes (expected " + size + ")");
        }
        return len;
    }

    /** Reads a little-endian 64-bit value (fixed64, sfixed64, double bits). */
    public long readFixed64() throws OtlpFormatException {
        return (long) LONGS.get(buf, skipFixed(8));
    }

    /** Reads a little-endian 32-bit value (fixed32, sfixed32, float bits). */
    public int readFixed32() throws OtlpFormatException {
        return (int) INTS.get(buf, skipFixed(4));
    }

    /**
     * Reads the length of a length-delimited field and checks that that many bytes follow inside the enclosing
     * message; the bytes start at {@link #position()}.
     */
    public int readLength() throws OtlpFormatException {
        int at = pos;
        long n = readVarint();
        if (n < 0 || n > limit - pos) {
            throw pastEnd(at, n);
        }
        return (int) n;
    }

    private OtlpFormatException pastEnd(int at, long n) {
        return new OtlpFormatException("length " + Long.toUnsignedString(n) + " at byte " + (at - base)
                + " runs past the end of its message (" + (limit - pos) + " bytes left)");
    }

    /** Moves past {@code n} bytes that {@link #readLength()} checked. */
    public void skipBytes(int n) {
        pos += n;
    }

    /**
     * Makes the next {@code len} bytes (checked by {@link #readLength()}) the message being read; returns the
     * enclosing limit, to hand to {@link #leave(int)}.
     */
    public int enter(int len) {
        int old = limit;
        limit = pos + len;
        return old;
    }

    /** Leaves the message entered last, continuing after it in the enclosing one. */
    public void leave(int oldLimit) {
        pos = limit;
        limit = oldLimit;
    }

    /** Reads a length and enters the message it delimits; returns the enclosing limit for {@link #leave(int)}. */
    public int enterMessage(int tag) throws OtlpFormatException {
        expect(tag, LEN);
        return enter(readLength());
    }

    /** Skips the value of a field of any (non-group) wire type, checking it lies inside the message. */
    public void skip(int tag) throws OtlpFormatException {
        switch (tag & 7) {
            case VARINT -> readVarint();
            case I64 -> skipFixed(8);
            case LEN -> {
                int n = readLength(); // not "pos += readLength()": that adds to pos as it was before the length
                pos += n;
            }
            case I32 -> skipFixed(4);
            default -> throw badTag(pos, tag);
        }
    }

    /** Moves past {@code n} bytes, checking they lie inside the message; returns where they start. */
    private int skipFixed(int n) throws OtlpFormatException {
        if (limit - pos < n) {
            throw truncated(limit);
        }
        pos += n;
        return pos - n;
    }

    /** Throws, at {@code off}, unless {@code buffer()[off, off+len)} is valid UTF-8, as protobuf strings must be. */
    void checkUtf8(int off, int len) throws OtlpFormatException {
        if (!Utf8.isValid(buf, off, len)) {
            pos = off;
            throw error("invalid UTF-8 in a string");
        }
    }

    /** An error at the current position, for the decoders' own checks. */
    public OtlpFormatException error(String what) {
        return new OtlpFormatException(what + " at byte " + (pos - base));
    }

    private OtlpFormatException truncated(int at) {
        return new OtlpFormatException("truncated at byte " + (at - base));
    }
}

package io.sluice.forward.codec;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * A msgpack reader over a region of a byte array: a flyweight, repointed with {@link #reset}.
 *
 * <p>Every read checks bounds and throws {@link ForwardProtocolException} with the offset of the
 * offending byte, counted from {@code baseOffset} (normally the start of the frame).
 *
 * <p>Decoded values: nil is null, booleans Boolean, integers Long (BigInteger above
 * {@code Long.MAX_VALUE}), float 32 Float, float 64 Double, str String, bin byte[], array
 * {@code List<Object>}, map {@code Map<String,Object>} (insertion ordered; non-str keys become
 * their string form, bin keys are read as UTF-8), ext type 0 with 8 bytes {@link EventTime}, other
 * ext {@link ExtValue}. Not thread-safe.
 */
// Over 400 lines: one bounds-checked, documented public read per msgpack format family, and the iterative
// skips; the object mapping is in ValueReader.
public final class MsgPackReader {
    /** Deeper values are refused when decoding to objects, so hostile input cannot blow the stack. */
    public static final int MAX_DEPTH = 256;

    private byte[] buf;
    private int start;
    private int pos;
    private int limit;
    private long base;
    /** {@link #skipValueLimited}'s pending children of each open container; made at its first use. */
    private long[] pendingStack;

    /** Creates a reader over nothing; call {@link #reset} before use. */
    public MsgPackReader() {
        reset(new byte[0], 0, 0, 0);
    }

    /**
     * Points the reader at a region.
     *
     * @param buf        the array
     * @param off        first byte of the region
     * @param len        region length
     * @param baseOffset offset reported in errors for the byte at {@code off}
     * @return this reader
     */
    public MsgPackReader reset(byte[] buf, int off, int len, long baseOffset) {
        this.buf = buf;
        this.start = off;
        this.pos = off;
        this.limit = off + len;
        this.base = baseOffset;
        return this;
    }

    /** @return current position in the array */
    public int position() {
        return pos;
    }

    /** @param p new position in the array, inside the region */
    public void position(int p) {
        pos = p;
    }

    /** @return end of the region in the array */
    public int limit() {
        return limit;
    }

    /** @return the array read from */
    public byte[] array() {
        return buf;
    }

    /** @return whether bytes remain in the region */
    public boolean hasRemaining() {
        return pos < limit;
    }

    /** @return offset of the current position as reported in errors */
    public long offset() {
        return base + (pos - start);
    }

    /**
     * @param reason what is wrong
     * @return an exception at the current position
     */
    public ForwardProtocolException error(String reason) {
        return new ForwardProtocolException(offset(), reason);
    }

    /**
     * @return the format byte of the next value, without consuming it
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public int peek() throws ForwardProtocolException {
        need(1);
        return buf[pos] & 0xff;
    }

    /**
     * @return the kind of the next value
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public ValueType nextType() throws ForwardProtocolException {
        return ValueType.of(peek());
    }

    /**
     * @return element count of an array header
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public int readArrayHeader() throws ForwardProtocolException {
        int b = peek();
        if ((b & 0xf0) == 0x90) {
            pos++;
            return b & 0x0f;
        }
        if (b == 0xdc || b == 0xdd) {
            pos++;
            return length(b == 0xdc ? 2 : 4);
        }
        throw error("expected array, found " + ValueType.describe(b));
    }

    /**
     * @return entry count of a map header
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public int readMapHeader() throws ForwardProtocolException {
        int b = peek();
        if ((b & 0xf0) == 0x80) {
            pos++;
            return b & 0x0f;
        }
        if (b == 0xde || b == 0xdf) {
            pos++;
            return length(b == 0xde ? 2 : 4);
        }
        throw error("expected map, found " + ValueType.describe(b));
    }

    /**
     * Reads a str or bin header (the two forms a PackedForward payload may take).
     *
     * @return payload length; the payload starts at {@link #position()} and is bounds-checked
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public int readStrOrBinHeader() throws ForwardProtocolException {
        int b = peek();
        int len;
        if ((b & 0xe0) == 0xa0) {
            pos++;
            len = b & 0x1f;
        } else if (b >= 0xd9 && b <= 0xdb) {
            pos++;
            len = length(1 << (b - 0xd9));
        } else if (b >= 0xc4 && b <= 0xc6) {
            pos++;
            len = length(1 << (b - 0xc4));
        } else {
            throw error("expected str or bin, found " + ValueType.describe(b));
        }
        need(len);
        return len;
    }

    /**
     * @return a str value (bin is accepted too and read as UTF-8, as some peers send keys so)
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public String readString() throws ForwardProtocolException {
        int len = readStrOrBinHeader();
        String s = new String(buf, pos, len, StandardCharsets.UTF_8);
        pos += len;
        return s;
    }

    /**
     * @return a str or bin value's raw bytes (allocates; for handshake nonces and salts, not events)
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public byte[] readBytes() throws ForwardProtocolException {
        int len = readStrOrBinHeader();
        byte[] v = Arrays.copyOfRange(buf, pos, pos + len);
        pos += len;
        return v;
    }

    /**
     * Reads a str and checks it against an expected ASCII string without allocating.
     *
     * @param ascii expected content
     * @return true if the next value is a str equal to {@code ascii}; consumed either way
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public boolean readStringEquals(String ascii) throws ForwardProtocolException {
        int len = readStrOrBinHeader();
        boolean eq = len == ascii.length();
        for (int i = 0; eq && i < len; i++) {
            eq = buf[pos + i] == (byte) ascii.charAt(i);
        }
        pos += len;
        return eq;
    }

    /**
     * @return an integer value
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public long readLong() throws ForwardProtocolException {
        int b = peek();
        if (b <= 0x7f) {
            pos++;
            return b;
        }
        if (b >= 0xe0) {
            pos++;
            return (byte) b;
        }
        return switch (b) {
            case 0xcc -> u8();
            case 0xcd -> u16();
            case 0xce -> u32();
            case 0xcf -> uint64AsLong();
            case 0xd0 -> { pos++; need(1); yield buf[pos++]; }
            case 0xd1 -> { pos++; need(2); yield (short) raw16(); }
            case 0xd2 -> { pos++; need(4); yield (int) raw32(); }
            case 0xd3 -> { pos++; need(8); yield raw64(); }
            default -> throw error("expected integer, found " + ValueType.describe(b));
        };
    }

    private long uint64AsLong() throws ForwardProtocolException {
        long at = offset();
        pos++;
        need(8);
        long v = raw64();
        if (v < 0) {
            throw new ForwardProtocolException(at, "uint64 value too large: " + Long.toUnsignedString(v));
        }
        return v;
    }

    /**
     * @return a float 32 or float 64 value
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public double readDouble() throws ForwardProtocolException {
        int b = peek();
        if (b == 0xca) {
            pos++;
            need(4);
            return Float.intBitsToFloat((int) raw32());
        }
        if (b == 0xcb) {
            pos++;
            need(8);
            return Double.longBitsToDouble(raw64());
        }
        throw error("expected float, found " + ValueType.describe(b));
    }

    /**
     * @return a boolean value
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public boolean readBoolean() throws ForwardProtocolException {
        int b = peek();
        if (b == 0xc2 || b == 0xc3) {
            pos++;
            return b == 0xc3;
        }
        throw error("expected boolean, found " + ValueType.describe(b));
    }

    /**
     * Reads an ext header.
     *
     * @return {@code (type << 32) | length}; the payload starts at {@link #position()}
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public long readExtHeader() throws ForwardProtocolException {
        int b = peek();
        int len;
        if (b >= 0xd4 && b <= 0xd8) {
            pos++;
            len = 1 << (b - 0xd4);
        } else if (b >= 0xc7 && b <= 0xc9) {
            pos++;
            len = length(1 << (b - 0xc7));
        } else {
            throw error("expected ext, found " + ValueType.describe(b));
        }
        need(1);
        int type = buf[pos++];
        need(len);
        return ((long) type << 32) | len;
    }

    /**
     * @return the 4-byte big-endian unsigned integer at the position, consumed
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public long readUint32Raw() throws ForwardProtocolException {
        need(4);
        return raw32();
    }

    /**
     * Skips one whole value of any kind. Iterative, so deep nesting costs no stack.
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public void skipValue() throws ForwardProtocolException {
        long pending = 1;
        while (pending > 0) {
            pending += skipHeader() - 1;
        }
    }

    /**
     * Skips one whole value, as {@link #skipValue()}, refusing one whose containers nest deeper than
     * {@link #MAX_DEPTH}: what is handed on (a record, its metadata) is then safe for a recursive reader or writer.
     * Iterative; one count of pending children per open container.
     * @throws ForwardProtocolException when the input is malformed, truncated or nested too deep
     */
    public void skipValueLimited() throws ForwardProtocolException {
        long[] parents = pendingStack;
        if (parents == null) {
            parents = pendingStack = new long[MAX_DEPTH];
        }
        int depth = 0;
        long pending = 1;
        while (true) {
            if (pending == 0) {
                if (depth == 0) {
                    return;
                }
                pending = parents[--depth];
                continue;
            }
            pending--;
            long children = skipHeader();
            if (children > 0) {
                if (depth == MAX_DEPTH) {
                    throw error("values nested deeper than " + MAX_DEPTH);
                }
                parents[depth++] = pending;
                pending = children;
            }
        }
    }

    /**
     * Skips the next value's header and any payload bytes it carries.
     *
     * @return how many child values follow (array elements, or 2 per map entry)
     */
    private long skipHeader() throws ForwardProtocolException {
        if (pos < limit) {
            // The one-byte headers records are made of (small integers, nil, booleans, short strings, small maps
            // and arrays) without the general path's three table lookups; anything else, or a string running
            // past the end, takes that path.
            int b = buf[pos] & 0xff;
            if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3) {
                pos++;
                return 0;
            }
            if (b >= 0xa0 && b <= 0xbf) {
                if ((b & 0x1f) < limit - pos) {
                    pos += 1 + (b & 0x1f);
                    return 0;
                }
            } else if (b <= 0x8f) {
                pos++;
                return 2L * (b & 0x0f);
            } else if (b <= 0x9f) {
                pos++;
                return b & 0x0f;
            }
        }
        int b = peek();
        long at = offset();
        int size = ValueType.headerSize(b);
        if (size < 0) {
            throw error("invalid msgpack format byte 0x" + Integer.toHexString(b));
        }
        need(size);
        long payload = ValueType.payloadLength(buf, pos, b);
        long children = ValueType.childCount(buf, pos, b);
        pos += size;
        if (payload > limit - pos) {
            throw new ForwardProtocolException(at, "value needs " + payload + " bytes, only "
                    + (limit - pos) + " remain");
        }
        pos += (int) payload;
        return children;
    }

    /**
     * Decodes the next value to Java objects (see the class comment for the mapping).
     *
     * @return the value
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public Object readValue() throws ForwardProtocolException {
        return ValueReader.readValue(this, 0);
    }

    /**
     * @return the next value, which must be a map, decoded
     * @throws ForwardProtocolException when the input is malformed or truncated
     */
    public Map<String, Object> readMap() throws ForwardProtocolException {
        int n = readMapHeader();
        return ValueReader.readMapBody(this, n, 1);
    }

    /** Reads a uint 64 (the format byte is at the position): a Long, or a BigInteger above Long.MAX_VALUE. */
    Object readUint64() throws ForwardProtocolException {
        pos++;
        need(8);
        long v = raw64();
        return v >= 0 ? (Object) v : new BigInteger(Long.toUnsignedString(v));
    }

    private int length(int bytes) throws ForwardProtocolException {
        need(bytes);
        long v = switch (bytes) {
            case 1 -> buf[pos++] & 0xff;
            case 2 -> raw16();
            default -> raw32();
        };
        if (v > Integer.MAX_VALUE) {
            throw error("length " + v + " too large");
        }
        return (int) v;
    }

    private long u8() throws ForwardProtocolException {
        pos++;
        need(1);
        return buf[pos++] & 0xff;
    }

    private long u16() throws ForwardProtocolException {
        pos++;
        need(2);
        return raw16();
    }

    private long u32() throws ForwardProtocolException {
        pos++;
        need(4);
        return raw32();
    }

    private int raw16() {
        int v = ((buf[pos] & 0xff) << 8) | (buf[pos + 1] & 0xff);
        pos += 2;
        return v;
    }

    private long raw32() {
        long v = ((long) (buf[pos] & 0xff) << 24) | ((buf[pos + 1] & 0xff) << 16)
                | ((buf[pos + 2] & 0xff) << 8) | (buf[pos + 3] & 0xff);
        pos += 4;
        return v;
    }

    private long raw64() {
        return (raw32() << 32) | raw32();
    }

    private void need(long n) throws ForwardProtocolException {
        if (n > limit - pos) {
            throw error("truncated: need " + n + " bytes, " + (limit - pos) + " remain");
        }
    }
}

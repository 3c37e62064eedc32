package io.sluice.forward.codec;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;

/**
 * A growable byte buffer that msgpack values are written into directly.
 *
 * <p>Meant to be reused: {@link #clear()} keeps the array, so a writer that has grown to its
 * working size no longer allocates. Strings are UTF-8 encoded straight into the array (no
 * intermediate {@code byte[]}), and map keys can come pre-encoded from a {@link KeyCache}.
 *
 * <p>Not thread-safe.
 */
// Over 400 lines: one documented public write per msgpack format family over the one buffer; Java values are
// in ValueWriter, string encoding in Utf8Encoding.
public final class MsgPackWriter {
    private byte[] buf;
    private int pos;
    /** Writes Java values (records, maps, numbers...) through this writer's primitives. */
    private final ValueWriter values = new ValueWriter(this);

    /** Creates a writer with a 256-byte initial array. */
    public MsgPackWriter() {
        this(256);
    }

    /** @param initialCapacity initial array size in bytes */
    public MsgPackWriter(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    /** @return the number of bytes written */
    public int size() {
        return pos;
    }

    /** @return the backing array; valid bytes are {@code [0, size())}. Changes as the writer grows. */
    public byte[] array() {
        return buf;
    }

    /** @return the capacity of the backing array */
    public int capacity() {
        return buf.length;
    }

    /** Forgets the content but keeps the array for reuse. */
    public void clear() {
        pos = 0;
    }

    /**
     * Cuts the content back to {@code size} bytes, e.g. to undo a partly written value.
     *
     * @param size new size, not more than the current size
     */
    public void truncate(int size) {
        if (size < 0 || size > pos) {
            throw new IllegalArgumentException("size " + size + " outside [0, " + pos + "]");
        }
        pos = size;
    }

    /** @return a copy of the written bytes */
    public byte[] toByteArray() {
        return Arrays.copyOf(buf, pos);
    }

    /** @return a read-only view of the written bytes, sharing the array */
    public ByteBuffer asByteBuffer() {
        return ByteBuffer.wrap(buf, 0, pos).asReadOnlyBuffer();
    }

    /**
     * Makes room for {@code n} more bytes, doubling the array when it must grow.
     *
     * @param n bytes about to be written
     */
    public void ensure(int n) {
        int cap = capacityFor(n);
        if (cap > buf.length) {
            buf = Arrays.copyOf(buf, cap);
        }
    }

    /**
     * The capacity {@link #ensure ensure(n)} would leave: the current one when {@code n} more bytes fit, else the
     * doubled one. Lets a caller count the growth before it happens.
     *
     * @param n bytes about to be written
     * @return the capacity after {@code ensure(n)}
     */
    public int capacityFor(int n) {
        int need = pos + n;
        if (need < 0) {
            throw new IllegalStateException("msgpack buffer would exceed 2 GiB");
        }
        int cap = buf.length;
        while (cap < need) {
            cap = cap > (Integer.MAX_VALUE >> 1) ? Integer.MAX_VALUE - 8 : cap << 1;
        }
        return cap;
    }

    /**
     * Reserves {@code n} bytes to fill in later with {@link #putByte}, e.g. a length known only
     * after its content is written.
     *
     * @param n bytes to reserve
     * @return the offset of the reserved bytes
     */
    public int skip(int n) {
        ensure(n);
        int at = pos;
        pos += n;
        return at;
    }

    /**
     * Overwrites a byte already written.
     *
     * @param at offset
     * @param b  the byte
     */
    public void putByte(int at, int b) {
        buf[at] = (byte) b;
    }

    /**
     * Copies bytes in as they are (already msgpack-encoded data).
     *
     * @param src source array
     * @param off start in source
     * @param len byte count
     */
    public void writeRaw(byte[] src, int off, int len) {
        ensure(len);
        System.arraycopy(src, off, buf, pos, len);
        pos += len;
    }

    /** @param src already msgpack-encoded bytes to copy in whole */
    public void writeRaw(byte[] src) {
        writeRaw(src, 0, src.length);
    }

    /** Writes nil. */
    public void writeNil() {
        put1(0xc0);
    }

    /** @param v the boolean to write */
    public void writeBoolean(boolean v) {
        put1(v ? 0xc3 : 0xc2);
    }

    /**
     * Writes an integer in the shortest msgpack form.
     *
     * @param v the value
     */
    public void writeLong(long v) {
        if (v >= 0) {
            writeUnsigned(v);
        } else if (v >= -32) {
            put1((int) v & 0xff);
        } else if (v >= Byte.MIN_VALUE) {
            put2(0xd0, (int) v);
        } else if (v >= Short.MIN_VALUE) {
            put3(0xd1, (int) v);
        } else if (v >= Integer.MIN_VALUE) {
            put5(0xd2, (int) v);
        } else {
            put9(0xd3, v);
        }
    }

    private void writeUnsigned(long v) {
        if (v < 128) {
            put1((int) v);
        } else if (v < 256) {
            put2(0xcc, (int) v);
        } else if (v < 65536) {
            put3(0xcd, (int) v);
        } else if (v < (1L << 32)) {
            put5(0xce, (int) v);
        } else {
            put9(0xcf, v);
        }
    }

    /** @param v written as float 32 */
    public void writeFloat(float v) {
        put5(0xca, Float.floatToRawIntBits(v));
    }

    /** @param v written as float 64 */
    public void writeDouble(double v) {
        put9(0xcb, Double.doubleToRawLongBits(v));
    }

    /** @param n element count of the array that follows */
    public void writeArrayHeader(int n) {
        if (n < 16) {
            put1(0x90 | n);
        } else if (n < 65536) {
            put3(0xdc, n);
        } else {
            put5(0xdd, n);
        }
    }

    /** @param n entry (key/value pair) count of the map that follows */
    public void writeMapHeader(int n) {
        if (n < 16) {
            put1(0x80 | n);
        } else if (n < 65536) {
            put3(0xde, n);
        } else {
            put5(0xdf, n);
        }
    }

    /** @param len UTF-8 byte length of the str that follows */
    public void writeStringHeader(int len) {
        if (len < 32) {
            put1(0xa0 | len);
        } else if (len < 256) {
            put2(0xd9, len);
        } else if (len < 65536) {
            put3(0xda, len);
        } else {
            put5(0xdb, len);
        }
    }

    /** @param len byte length of the bin that follows */
    public void writeBinHeader(int len) {
        if (len < 256) {
            put2(0xc4, len);
        } else if (len < 65536) {
            put3(0xc5, len);
        } else {
            put5(0xc6, len);
        }
    }

    /**
     * Writes a bin value.
     *
     * @param src bytes
     * @param off start
     * @param len count
     */
    public void writeBin(byte[] src, int off, int len) {
        writeBinHeader(len);
        writeRaw(src, off, len);
    }

    /**
     * Writes an ext header in the shortest form (fixext when the length allows).
     *
     * @param type ext type
     * @param len  payload length
     */
    public void writeExtHeader(int type, int len) {
        int fix = switch (len) {
            case 1 -> 0xd4;
            case 2 -> 0xd5;
            case 4 -> 0xd6;
            case 8 -> 0xd7;
            case 16 -> 0xd8;
            default -> 0;
        };
        if (fix != 0) {
            put2(fix, type);
        } else if (len < 256) {
            ensure(3);
            buf[pos++] = (byte) 0xc7;
            buf[pos++] = (byte) len;
            buf[pos++] = (byte) type;
        } else if (len < 65536) {
            ensure(4);
            buf[pos++] = (byte) 0xc8;
            putShort(len);
            buf[pos++] = (byte) type;
        } else {
            ensure(6);
            buf[pos++] = (byte) 0xc9;
            putInt(len);
            buf[pos++] = (byte) type;
        }
    }

    /**
     * Writes an EventTime: fixext8, type 0, 32-bit seconds then 32-bit nanoseconds, big-endian.
     *
     * @param epochSeconds seconds since the epoch
     * @param nanos        nanoseconds within the second
     */
    public void writeEventTime(long epochSeconds, int nanos) {
        ensure(10);
        buf[pos++] = (byte) 0xd7;
        buf[pos++] = EventTime.EXT_TYPE;
        putInt((int) epochSeconds);
        putInt(nanos);
    }

    /**
     * Writes a string as msgpack str. Unpaired surrogates become '?', as in
     * {@link String#getBytes(java.nio.charset.Charset)}, so cached and direct encodings agree.
     *
     * @param s the string
     */
    public void writeString(String s) {
        int n = s.length();
        int start = pos;
        // Most strings are ASCII: write them as such in one pass, and start over as UTF-8 only if a char was not.
        writeStringHeader(n);
        ensure(n);
        if (writeAscii(s, n)) {
            return;
        }
        pos = start;
        int len = Utf8Encoding.length(s, n);
        writeStringHeader(len);
        ensure(len);
        pos = Utf8Encoding.encode(s, n, buf, pos);
    }

    /**
     * Writes a string through a cache of encodings; meant for map keys and tags.
     *
     * @param s     the string
     * @param cache encodings of strings that repeat
     */
    public void writeString(String s, KeyCache cache) {
        byte[] enc = cache.lookup(s);
        if (enc != null) {
            writeRaw(enc, 0, enc.length);
        } else {
            writeString(s);
        }
    }

    /** Writes the chars' low bytes; true (and the position moved) when every char was ASCII. */
    private boolean writeAscii(String s, int n) {
        byte[] b = buf;
        int p = pos;
        int seen = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            seen |= c;
            b[p + i] = (byte) c;
        }
        if (seen >= 0x80) {
            return false;
        }
        pos = p + n;
        return true;
    }

    /**
     * Writes a record: a map with string keys encoded through the cache.
     *
     * @param record the record
     * @param keys   cache for key encodings
     */
    public void writeRecord(Map<String, ?> record, KeyCache keys) {
        values.writeRecord(record, keys);
    }

    /**
     * Writes any supported Java value: null, String, Boolean, integral Number (Byte, Short, Integer,
     * Long, BigInteger within 64 bits), Float, Double and other Numbers (as float 64), byte[] (bin),
     * Map (keys written as values; String keys through the cache), Collection and Object[] (array),
     * {@link EventTime} and {@link Instant} (EventTime ext), {@link ExtValue}, Character (str).
     * Anything else is written as its {@code toString()}.
     *
     * @param v    the value
     * @param keys cache for map key encodings
     */
    public void writeValue(Object v, KeyCache keys) {
        values.writeValue(v, keys);
    }

    /** Writes a uint 64 (for values of 2^63 and more, whose bits are negative as a long). */
    void writeUint64(long bits) {
        put9(0xcf, bits);
    }

    private void put1(int b) {
        ensure(1);
        buf[pos++] = (byte) b;
    }

    private void put2(int b0, int b1) {
        ensure(2);
        buf[pos++] = (byte) b0;
        buf[pos++] = (byte) b1;
    }

    private void put3(int b, int v16) {
        ensure(3);
        buf[pos++] = (byte) b;
        putShort(v16);
    }

    private void put5(int b, int v32) {
        ensure(5);
        buf[pos++] = (byte) b;
        putInt(v32);
    }

    private void put9(int b, long v64) {
        ensure(9);
        buf[pos++] = (byte) b;
        putLong(v64);
    }

    private void putShort(int v) {
        buf[pos++] = (byte) (v >>> 8);
        buf[pos++] = (byte) v;
    }

    private void putInt(int v) {
        buf[pos++] = (byte) (v >>> 24);
        buf[pos++] = (byte) (v >>> 16);
        buf[pos++] = (byte) (v >>> 8);
        buf[pos++] = (byte) v;
    }

    private void putLong(long v) {
        putInt((int) (v >>> 32));
        putInt((int) v);
    }
}

package io.sluice.forward.codec;

import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Gzip (RFC 1952) over a reused {@link Deflater}/{@link Inflater}, writing into reused buffers.
 * {@code java.util.zip.GZIP*Stream} would allocate streams and buffers per chunk, and
 * GZIPInputStream's handling of concatenated members depends on {@code available()}.
 *
 * <p>Decompression accepts several concatenated members (Fluent Bit and fluentd may send them) and
 * checks each member's CRC-32 and length. Not thread-safe. Call {@link #close()} to free zlib's
 * native memory early; otherwise it is freed when this object is collected.
 */
public final class Gzip implements AutoCloseable {
    private static final int FHCRC = 2;
    private static final int FEXTRA = 4;
    private static final int FNAME = 8;
    private static final int FCOMMENT = 16;
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};

    private final CRC32 crc = new CRC32();
    private final int level;
    private BufferAllowance allowance = BufferAllowance.UNLIMITED;
    private Deflater deflater;
    private Inflater inflater;

    /** Uses level 1: about 2.5 times as fast as level 6 for a modest loss of ratio on logs. */
    public Gzip() {
        this(Deflater.BEST_SPEED);
    }

    /** @param level deflate level, 0 to 9, or -1 for zlib's default */
    public Gzip(int level) {
        this.level = level;
    }

    /**
     * Compresses {@code src[off, off+len)} as one gzip member appended to {@code out}.
     *
     * @param src bytes to compress
     * @param off start
     * @param len count
     * @param out where the member is appended
     */
    public void compress(byte[] src, int off, int len, MsgPackWriter out) {
        Deflater d = deflater();
        d.reset();
        d.setInput(src, off, len);
        d.finish();
        out.writeRaw(HEADER);
        while (!d.finished()) {
            out.ensure(Math.max(512, len / 4));
            int n = d.deflate(out.array(), out.size(), out.capacity() - out.size());
            out.skip(n);
        }
        crc.reset();
        crc.update(src, off, len);
        writeIntLE(out, (int) crc.getValue());
        writeIntLE(out, len);
    }

    /**
     * Decompresses every gzip member in {@code src[off, off+len)}, replacing the content of {@code out}, asking
     * {@code allowance} before {@code out} grows, so the inflated bytes are counted as they are produced. An
     * exception the allowance throws ends the decompression (a later call starts over).
     *
     * @param src        compressed bytes
     * @param off        start
     * @param len        count
     * @param out        receives the decompressed bytes
     * @param maxBytes   most decompressed bytes allowed (defends against decompression bombs)
     * @param baseOffset offset of {@code src[off]} in the frame, for error messages
     * @param allowance  asked before each growth of {@code out}
     * @throws ForwardProtocolException on a bad header, bad data, bad checksum or too much output
     *     ({@link PayloadTooLargeException})
     */
    public void decompress(byte[] src, int off, int len, MsgPackWriter out, long maxBytes,
                           long baseOffset, BufferAllowance allowance) throws ForwardProtocolException {
        this.allowance = allowance;
        out.clear();
        int p = off;
        int end = off + len;
        while (p < end) {
            int dataStart = skipHeader(src, p, end, baseOffset - off);
            int memberOut = out.size();
            int consumed = inflateMember(src, dataStart, end, out, maxBytes, baseOffset - off);
            p = checkTrailer(src, dataStart + consumed, end, out, memberOut, baseOffset - off);
        }
    }

    private static int skipHeader(byte[] s, int p, int end, long base) throws ForwardProtocolException {
        need(p, 10, end, base, "gzip header");
        if ((s[p] & 0xff) != 0x1f || (s[p + 1] & 0xff) != 0x8b) {
            throw new ForwardProtocolException(base + p, "not gzip data (bad magic)");
        }
        if (s[p + 2] != 8) {
            throw new ForwardProtocolException(base + p, "unsupported gzip method " + s[p + 2]);
        }
        int flags = s[p + 3] & 0xff;
        int q = p + 10;
        if ((flags & FEXTRA) != 0) {
            need(q, 2, end, base, "gzip extra length");
            q += 2 + ((s[q] & 0xff) | (s[q + 1] & 0xff) << 8);
        }
        if ((flags & FNAME) != 0) {
            q = skipZeroTerminated(s, q, end, base);
        }
        if ((flags & FCOMMENT) != 0) {
            q = skipZeroTerminated(s, q, end, base);
        }
        if ((flags & FHCRC) != 0) {
            q += 2;
        }
        need(q, 0, end, base, "gzip header");
        return q;
    }

    private static int skipZeroTerminated(byte[] s, int q, int end, long base)
            throws ForwardProtocolException {
        while (q < end && s[q] != 0) {
            q++;
        }
        need(q, 1, end, base, "gzip header string");
        return q + 1;
    }

    /** Inflates one member's deflate stream; returns the compressed bytes it used. */
    private int inflateMember(byte[] src, int p, int end, MsgPackWriter out, long maxBytes, long base)
            throws ForwardProtocolException {
        Inflater inf = inflater();
        inf.reset();
        inf.setInput(src, p, end - p);
        try {
            while (!inf.finished()) {
                if (out.size() == out.capacity()) {
                    growWithin(out, maxBytes, base + p);
                }
                int n = inf.inflate(out.array(), out.size(), out.capacity() - out.size());
                out.skip(n);
                if (out.size() > maxBytes) {
                    growWithin(out, maxBytes, base + p);
                }
                if (n == 0 && (inf.needsInput() || inf.needsDictionary())) {
                    throw new ForwardProtocolException(base + end, "truncated gzip data");
                }
            }
        } catch (DataFormatException e) {
            throw new ForwardProtocolException(base + p, "bad gzip data: " + e.getMessage(), e);
        }
        return (end - p) - inf.getRemaining();
    }

    private void growWithin(MsgPackWriter out, long maxBytes, long at)
            throws ForwardProtocolException {
        if (out.size() >= maxBytes) {
            throw new PayloadTooLargeException(at, maxBytes);
        }
        int n = (int) Math.min(Math.max(out.capacity(), 4096), maxBytes - out.size());
        int before = out.capacity();
        int after = out.capacityFor(n);
        if (after > before) {
            allowance.grow(after - before);
        }
        out.ensure(n);
    }

    private int checkTrailer(byte[] s, int p, int end, MsgPackWriter out, int memberOut, long base)
            throws ForwardProtocolException {
        need(p, 8, end, base, "gzip trailer");
        crc.reset();
        crc.update(out.array(), memberOut, out.size() - memberOut);
        if (readIntLE(s, p) != (int) crc.getValue()) {
            throw new ForwardProtocolException(base + p, "gzip CRC-32 mismatch");
        }
        if (readIntLE(s, p + 4) != out.size() - memberOut) {
            throw new ForwardProtocolException(base + p + 4, "gzip length mismatch");
        }
        return p + 8;
    }

    private static void need(int p, int n, int end, long base, String what)
            throws ForwardProtocolException {
        if (p + n > end) {
            throw new ForwardProtocolException(base + Math.min(p, end), "truncated " + what);
        }
    }

    private static int readIntLE(byte[] s, int p) {
        return (s[p] & 0xff) | (s[p + 1] & 0xff) << 8 | (s[p + 2] & 0xff) << 16 | (s[p + 3] & 0xff) << 24;
    }

    private static void writeIntLE(MsgPackWriter out, int v) {
        int at = out.skip(4);
        for (int i = 0; i < 4; i++) {
            out.putByte(at + i, v >>> (8 * i));
        }
    }

    private Deflater deflater() {
        if (deflater == null) {
            deflater = new Deflater(level, true);
        }
        return deflater;
    }

    private Inflater inflater() {
        if (inflater == null) {
            inflater = new Inflater(true);
        }
        return inflater;
    }

    /** Frees zlib's native memory now. */
    @Override
    public void close() {
        if (deflater != null) {
            deflater.end();
        }
        if (inflater != null) {
            inflater.end();
        }
    }
}

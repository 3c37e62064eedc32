package io.sluice.hec.codec;

import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * gzip (RFC 1952) written straight into a {@link ByteOut} with one reused {@link Deflater}: no stream objects,
 * no intermediate buffers, nothing allocated per request. Sync flushes let the caller learn the exact
 * compressed size so far, which is how a request is kept under {@code MaxContentLength} after compression.
 */
public final class GzipWriter {
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};

    private final Deflater deflater;
    private final CRC32 crc = new CRC32();
    private long inBytes;

    /** A writer at a {@link Deflater} level (1 fastest … 9 smallest; 6 is gzip's default). */
    public GzipWriter(int level) {
        deflater = new Deflater(level, true);
    }

    /** Starts a member: resets the deflater and writes the 10-byte header. */
    public void begin(ByteOut out) {
        deflater.reset();
        crc.reset();
        inBytes = 0;
        out.write(HEADER);
    }

    /** Compresses {@code src[off, off+len)}; output may stay inside the deflater until a flush. */
    public void feed(ByteOut out, byte[] src, int off, int len) {
        if (len == 0) {
            return;
        }
        crc.update(src, off, len);
        inBytes += len;
        deflater.setInput(src, off, len);
        while (!deflater.needsInput()) {
            drain(out, Deflater.NO_FLUSH);
        }
    }

    /** Pushes everything fed so far into {@code out}, so that {@code out}'s length is exact. */
    public void syncFlush(ByteOut out) {
        drainAll(out, Deflater.SYNC_FLUSH);
    }

    /** Ends the member: final block and the CRC-32 / size trailer. */
    public void finish(ByteOut out) {
        deflater.finish();
        while (!deflater.finished()) {
            drain(out, Deflater.NO_FLUSH);
        }
        int c = (int) crc.getValue();
        int n = (int) inBytes;
        out.ensure(8);
        out.write(c);
        out.write(c >>> 8);
        out.write(c >>> 16);
        out.write(c >>> 24);
        out.write(n);
        out.write(n >>> 8);
        out.write(n >>> 16);
        out.write(n >>> 24);
    }

    private void drainAll(ByteOut out, int flush) {
        while (true) {
            int room = drain(out, flush);
            if (room > 0) {
                return;
            }
        }
    }

    /** One deflate call into the free space of {@code out}; returns the space left unused. */
    private int drain(ByteOut out, int flush) {
        byte[] b = out.ensure(8192);
        int at = out.length();
        int room = b.length - at;
        int n = deflater.deflate(b, at, room, flush);
        out.setLength(at + n);
        return room - n;
    }

    /** Worst-case compressed size of {@code n} more input bytes (zlib's deflateBound, plus block headers). */
    public static int bound(int n) {
        return n + (n >> 12) + (n >> 14) + (n >> 25) + 13 + 5;
    }

    /** Frees the native deflater. */
    public void close() {
        deflater.end();
    }
}

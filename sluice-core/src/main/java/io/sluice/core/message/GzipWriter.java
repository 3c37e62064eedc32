package io.sluice.core.message;

import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * gzip (RFC 1952) written straight into a growable buffer ({@link Out}) with one reused {@link Deflater}: no stream
 * objects, no intermediate buffers, nothing allocated per request. Sync flushes let the caller learn the exact
 * compressed size so far, which is how producer.SplunkHEC keeps a request under {@code MaxContentLength} after
 * compression. {@link GzipBody#deflate} writes a whole body with it, producer.File a stream flushed per chunk.
 */
public final class GzipWriter {
    /** A member's header: deflate, no flags, no time, unknown OS. */
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};

    /** Where a member is written: a growable byte buffer. */
    public interface Out {
        /** Makes room for {@code n} more bytes; returns the (possibly new) backing array. */
        byte[] ensure(int n);

        /** Bytes written so far: where the next write goes. */
        int length();

        /** Moves the write position on, over bytes written into the array {@link #ensure} returned. */
        void setLength(int newLength);
    }

    private final Deflater deflater;
    private final CRC32 crc = new CRC32();
    private long inBytes;

    /** A writer at a {@link Deflater} level (1 fastest … 9 smallest; 6 is gzip's default). */
    public GzipWriter(int level) {
        deflater = new Deflater(level, true);
    }

    /** Sets the {@link Deflater} level of the next member: call it before {@link #begin}. */
    public void setLevel(int level) {
        deflater.setLevel(level);
    }

    /** Starts a member: resets the deflater and writes the 10-byte header. */
    public void begin(Out out) {
        deflater.reset();
        crc.reset();
        inBytes = 0;
        byte[] b = out.ensure(HEADER.length);
        System.arraycopy(HEADER, 0, b, out.length(), HEADER.length);
        out.setLength(out.length() + HEADER.length);
    }

    /** Compresses {@code src[off, off+len)}; output may stay inside the deflater until a flush. */
    public void feed(Out out, byte[] src, int off, int len) {
        crc.update(src, off, len);
        inBytes += len;
        deflate(out, src, off, len);
    }

    /**
     * Compresses {@code src[off, off+len)} without counting it into this writer's trailer: for a caller that keeps
     * its own CRC and ends with {@link #finish(Out, int, long)} (producer.File counts only what reached the disk),
     * so that no byte is checksummed twice.
     */
    public void deflate(Out out, byte[] src, int off, int len) {
        if (len == 0) {
            return;
        }
        deflater.setInput(src, off, len);
        while (!deflater.needsInput()) {
            drain(out, Deflater.NO_FLUSH);
        }
    }

    /** Pushes everything fed so far into {@code out}, so that {@code out}'s length is exact. */
    public void syncFlush(Out out) {
        drainAll(out, Deflater.SYNC_FLUSH);
    }

    /** Ends the member: final block and the CRC-32 / size trailer of what {@link #feed} took. */
    public void finish(Out out) {
        finish(out, (int) crc.getValue(), inBytes);
    }

    /** Ends the member with the caller's CRC-32 and size of the input (see {@link #deflate}). */
    public void finish(Out out, int crc32, long size) {
        deflater.finish();
        while (!deflater.finished()) {
            drain(out, Deflater.NO_FLUSH);
        }
        byte[] b = out.ensure(8);
        int at = out.length();
        trailer(b, at, crc32, size);
        out.setLength(at + 8);
    }

    /** Writes gzip's 8-byte trailer (CRC-32, then the input size modulo 2^32, little-endian) at {@code b[at]}. */
    public static void trailer(byte[] b, int at, int crc32, long size) {
        putIntLE(b, at, crc32);
        putIntLE(b, at + 4, (int) size);
    }

    private static void putIntLE(byte[] b, int at, int v) {
        for (int i = 0; i < 4; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }

    private void drainAll(Out out, int flush) {
        while (true) {
            int room = drain(out, flush);
            if (room > 0) {
                return;
            }
        }
    }

    /** One deflate call into the free space of {@code out}; returns the space left unused. */
    private int drain(Out out, int flush) {
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

package io.sluice.otlp.producer;

import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * gzip (RFC 1952) into one reusable buffer with one reusable Deflater: a request body is compressed whole, so the
 * stream framing is written by hand around a raw deflate and nothing is allocated per request.
 */
final class Gzip implements AutoCloseable {
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};
    private final Deflater deflater;
    private final CRC32 crc = new CRC32();
    private byte[] out = new byte[64 * 1024];
    private int length;

    /** A compressor at {@code level} (1 fastest to 9 smallest). */
    Gzip(int level) {
        deflater = new Deflater(level, true);
    }

    /** Compresses {@code src[off, off+len)} into {@link #buffer()}; returns the compressed length. */
    int compress(byte[] src, int off, int len) {
        deflater.reset();
        crc.reset();
        crc.update(src, off, len);
        deflater.setInput(src, off, len);
        deflater.finish();
        ensure(HEADER.length + len / 2 + 64);
        System.arraycopy(HEADER, 0, out, 0, HEADER.length);
        int w = HEADER.length;
        while (!deflater.finished()) {
            if (w == out.length) {
                out = Arrays.copyOf(out, out.length * 2);
            }
            w += deflater.deflate(out, w, out.length - w);
        }
        ensure(w + 8);
        putInt(w, (int) crc.getValue());
        putInt(w + 4, len);
        length = w + 8;
        return length;
    }

    /** The compressed bytes, {@code [0, length)} after {@link #compress}. */
    byte[] buffer() {
        return out;
    }

    private void putInt(int at, int v) {
        out[at] = (byte) v;
        out[at + 1] = (byte) (v >>> 8);
        out[at + 2] = (byte) (v >>> 16);
        out[at + 3] = (byte) (v >>> 24);
    }

    private void ensure(int n) {
        if (out.length < n) {
            out = Arrays.copyOf(out, Math.max(n, out.length * 2));
        }
    }

    @Override
    public void close() {
        deflater.end();
    }
}

package io.sluice.io.file;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Turns chunks of lines into the bytes that go to disk: as they are, gzip, or zstd. Compressed output
 * collects in {@link #pending()} before it is written, so a failed write is retried from the same bytes and
 * the compressor's state never sees the failure: no line is lost or doubled by a retry.
 */
abstract class Encoder {
    /** Output waiting to be written; empty for plain files, which write the chunk itself. */
    final Pending pending = new Pending();

    /** Encodes a chunk into {@link #pending}, ending at a point a reader can decompress up to. */
    abstract void encode(byte[] chunk, int len) throws IOException;

    /** Ends the stream (gzip trailer, zstd epilogue) into {@link #pending}. */
    abstract void finish() throws IOException;

    /** Whether chunks must go through {@link #encode}; plain files write chunks directly. */
    abstract boolean compresses();

    /** Frees native memory. */
    void close() {
    }

    Pending pending() {
        return pending;
    }

    /** Picks the encoder by file name: .gz → gzip, .zst → zstd, else plain. */
    static Encoder forPath(String path, int level) {
        if (path.endsWith(".gz")) {
            return new Gzip(level);
        }
        if (path.endsWith(".zst")) {
            return ZstdEncoder.create(level);
        }
        return new Plain();
    }

    /** A reusable growing byte array. */
    static final class Pending extends OutputStream {
        byte[] buf = new byte[64 * 1024];
        int len;
        /** Bytes of {@code buf} already on disk (a partial write resumes here). */
        int written;

        void ensure(int more) {
            if (len + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
            }
        }

        @Override
        public void write(int b) {
            ensure(1);
            buf[len++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int n) {
            ensure(n);
            System.arraycopy(b, off, buf, len, n);
            len += n;
        }

        void clear() {
            len = 0;
            written = 0;
        }
    }

    /** No encoding. */
    static final class Plain extends Encoder {
        @Override
        void encode(byte[] chunk, int len) {
            throw new UnsupportedOperationException("plain files write chunks directly");
        }

        @Override
        void finish() {
        }

        @Override
        boolean compresses() {
            return false;
        }
    }

    /**
     * gzip (RFC 1952) by hand over a raw {@link Deflater}: one member per file, a sync flush after every
     * chunk (so {@code zcat} reads a live file up to the last flush), and the CRC and size trailer at
     * {@link #finish()}, which makes {@code gzip -t} pass after a clean shutdown.
     */
    static final class Gzip extends Encoder {
        private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};
        private final Deflater deflater;
        private final CRC32 crc = new CRC32();
        private long inputSize;
        private boolean started;

        Gzip(int level) {
            this.deflater = new Deflater(level, true);
        }

        @Override
        void encode(byte[] chunk, int len) {
            header();
            crc.update(chunk, 0, len);
            inputSize += len;
            deflater.setInput(chunk, 0, len);
            while (!deflater.needsInput()) {
                deflate(Deflater.NO_FLUSH);
            }
            // SYNC_FLUSH until the deflater has room to spare: then everything is out.
            int n;
            do {
                n = deflate(Deflater.SYNC_FLUSH);
            } while (n > 0 && pending.len == pending.buf.length);
        }

        private int deflate(int flush) {
            pending.ensure(64 * 1024);
            int n = deflater.deflate(pending.buf, pending.len, pending.buf.length - pending.len, flush);
            pending.len += n;
            return n;
        }

        private void header() {
            if (!started) {
                started = true;
                pending.write(HEADER, 0, HEADER.length);
            }
        }

        @Override
        void finish() {
            header();
            deflater.finish();
            while (!deflater.finished()) {
                deflate(Deflater.NO_FLUSH);
            }
            int c = (int) crc.getValue();
            int size = (int) inputSize;
            byte[] trailer = {(byte) c, (byte) (c >> 8), (byte) (c >> 16), (byte) (c >> 24),
                (byte) size, (byte) (size >> 8), (byte) (size >> 16), (byte) (size >> 24)};
            pending.write(trailer, 0, 8);
        }

        @Override
        boolean compresses() {
            return true;
        }

        @Override
        void close() {
            deflater.end();
        }
    }
}

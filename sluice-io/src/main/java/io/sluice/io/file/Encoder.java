package io.sluice.io.file;

import io.sluice.core.message.GzipWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * Turns chunks of lines into the bytes that go to disk: as they are, gzip, or zstd. Compressed output
 * collects in {@link #pending} before it is written. Each chunk ends at a flush point; once its bytes are on
 * disk it is {@linkplain #commit committed}. When writing a chunk fails, the file is cut back to where the chunk
 * began and {@link #abortBytes()} appended: they end the stream as of the last committed chunk, so the file stays
 * a valid gzip member or zstd frame without the failed lines, and the next write starts a new one.
 */
abstract class Encoder {
    /** Output waiting to be written; empty for plain files, which write the chunk itself. */
    final Pending pending = new Pending();

    /** Encodes a chunk into {@link #pending}, ending at a point a reader can decompress up to. */
    abstract void encode(byte[] chunk, int len) throws IOException;

    /** Ends the stream (gzip trailer, zstd epilogue) into {@link #pending}; everything encoded is committed. */
    abstract void finish() throws IOException;

    /** The chunk last encoded is on disk: the stream's trailer will count it. */
    void commit(byte[] chunk, int len) {
    }

    /**
     * Bytes that end the stream right after the last committed chunk (written after the file was cut back to
     * there); empty when nothing was committed (the file is cut back to before the stream's header) or for
     * plain files.
     */
    byte[] abortBytes() {
        return new byte[0];
    }

    /** Whether chunks must go through {@link #encode}; plain files write chunks directly. */
    abstract boolean compresses();

    /** Frees native memory. */
    void close() {
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
    static final class Pending extends OutputStream implements GzipWriter.Out {
        byte[] buf = new byte[64 * 1024];
        int len;
        /** Bytes of {@code buf} already on disk (a partial write resumes here). */
        int written;

        @Override
        public byte[] ensure(int more) {
            if (len + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
            }
            return buf;
        }

        @Override
        public int length() {
            return len;
        }

        @Override
        public void setLength(int newLength) {
            len = newLength;
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
     * gzip (RFC 1952) with a {@link GzipWriter}: one member per file, a sync flush after every chunk (so {@code zcat}
     * reads a live file up to the last flush), and the CRC and size trailer at {@link #finish()}, which makes
     * {@code gzip -t} pass after a clean shutdown.
     */
    static final class Gzip extends Encoder {
        /** After a sync flush the deflate stream is at a byte boundary: a final empty stored block ends it. */
        private static final byte[] FINAL_EMPTY_BLOCK = {0x01, 0x00, 0x00, (byte) 0xff, (byte) 0xff};
        private final GzipWriter writer;
        /** CRC and size of the committed input only: a chunk that failed to reach the disk is not in the trailer. */
        private final CRC32 crc = new CRC32();
        private long inputSize;
        private boolean started;
        private boolean committed;

        Gzip(int level) {
            this.writer = new GzipWriter(level);
        }

        @Override
        void encode(byte[] chunk, int len) {
            header();
            writer.deflate(pending, chunk, 0, len); // the CRC is taken at commit, of what reached the disk
            writer.syncFlush(pending);
        }

        private void header() {
            if (!started) {
                started = true;
                writer.begin(pending);
            }
        }

        @Override
        void commit(byte[] chunk, int len) {
            crc.update(chunk, 0, len);
            inputSize += len;
            committed = true;
        }

        @Override
        byte[] abortBytes() {
            if (!committed) {
                return new byte[0];
            }
            byte[] b = Arrays.copyOf(FINAL_EMPTY_BLOCK, FINAL_EMPTY_BLOCK.length + 8);
            GzipWriter.trailer(b, FINAL_EMPTY_BLOCK.length, (int) crc.getValue(), inputSize);
            return b;
        }

        /** Everything encoded is committed here, so the committed CRC and size are the whole input's. */
        @Override
        void finish() {
            header();
            writer.finish(pending, (int) crc.getValue(), inputSize);
        }

        @Override
        boolean compresses() {
            return true;
        }

        @Override
        void close() {
            writer.close();
        }
    }
}

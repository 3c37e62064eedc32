package io.sluice.io.file;

import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.IOException;

/**
 * zstd through zstd-jni, in its own class so that the native library is loaded only when a path ends in
 * {@code .zst}. Each chunk ends with a flush, so a reader decompresses a live file up to the last chunk.
 */
final class ZstdEncoder extends Encoder {
    /**
     * A flush leaves the frame at a block boundary: an empty raw block marked last ends it (the frame carries no
     * checksum and no content size, so nothing else is owed).
     */
    private static final byte[] LAST_EMPTY_BLOCK = {0x01, 0x00, 0x00};
    private final ZstdOutputStreamNoFinalizer out;
    private boolean committed;

    private ZstdEncoder(int level) throws IOException {
        this.out = new ZstdOutputStreamNoFinalizer(pending, level);
        out.setChecksum(false);
    }

    static Encoder create(int level) {
        try {
            return new ZstdEncoder(level);
        } catch (IOException e) {
            throw new IllegalStateException("zstd is not available: " + e, e);
        }
    }

    @Override
    void encode(byte[] chunk, int len) throws IOException {
        out.write(chunk, 0, len);
        out.flush();
    }

    @Override
    void commit(byte[] chunk, int len) {
        committed = true;
    }

    @Override
    byte[] abortBytes() {
        return committed ? LAST_EMPTY_BLOCK.clone() : new byte[0];
    }

    @Override
    void finish() throws IOException {
        out.close();
    }

    @Override
    boolean compresses() {
        return true;
    }

    @Override
    void close() {
        try {
            out.close();
        } catch (IOException ignored) {
            // Already finished, or the stream is being abandoned.
        }
    }
}

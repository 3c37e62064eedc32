package io.sluice.io.file;

import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.IOException;

/**
 * zstd through zstd-jni, in its own class so that the native library is loaded only when a path ends in
 * {@code .zst}. Each chunk ends with a flush, so a reader decompresses a live file up to the last chunk.
 */
final class ZstdEncoder extends Encoder {
    private final ZstdOutputStreamNoFinalizer out;

    private ZstdEncoder(int level) throws IOException {
        this.out = new ZstdOutputStreamNoFinalizer(pending, level);
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

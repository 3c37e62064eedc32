package io.sluice.forward.codec;

import java.util.Arrays;

/**
 * Decodes a byte stream (one connection's reads, split anywhere) into Forward frames: it buffers
 * partial input, finds frame ends with a {@link FrameScanner} and decodes each whole frame with a
 * {@link ForwardDecoder}. This is what a blocking server loop, or a test, needs; a Netty server
 * does the same with its own cumulation buffer.
 *
 * <p>After a {@link ForwardProtocolException} the stream is out of sync and the connection should
 * be closed. Not thread-safe.
 */
public final class ForwardStreamDecoder implements AutoCloseable {
    private final FrameScanner scanner;
    private final ForwardDecoder decoder;
    private byte[] buf = new byte[8192];
    private int readPos;
    private int writePos;

    /** @param maxFrameBytes largest frame accepted */
    public ForwardStreamDecoder(long maxFrameBytes) {
        this(new FrameScanner(maxFrameBytes), new ForwardDecoder());
    }

    /**
     * @param scanner finds frame ends
     * @param decoder decodes whole frames
     */
    public ForwardStreamDecoder(FrameScanner scanner, ForwardDecoder decoder) {
        this.scanner = scanner;
        this.decoder = decoder;
    }

    /** @return the decoder, e.g. to ask for the last frame's mode */
    public ForwardDecoder decoder() {
        return decoder;
    }

    /** @return bytes received but not yet part of a decoded frame */
    public int buffered() {
        return writePos - readPos;
    }

    /**
     * Adds bytes and decodes every frame they complete.
     *
     * @param src  received bytes
     * @param off  start
     * @param len  count
     * @param sink receives options and events of each complete frame
     * @return the number of frames decoded
     * @throws ForwardProtocolException on a malformed or oversized frame
     */
    public int feed(byte[] src, int off, int len, EventSink sink) throws ForwardProtocolException {
        append(src, off, len);
        int frames = 0;
        int n;
        while (readPos < writePos && (n = scanner.scan(buf, readPos, writePos - readPos)) > 0) {
            decoder.decode(buf, readPos, n, sink);
            readPos += n;
            frames++;
        }
        return frames;
    }

    private void append(byte[] src, int off, int len) {
        if (readPos == writePos) {
            readPos = 0;
            writePos = 0;
        }
        if (writePos + len > buf.length) {
            compactOrGrow(len);
        }
        System.arraycopy(src, off, buf, writePos, len);
        writePos += len;
    }

    /** Moves the partial frame to the front (the scanner tolerates that) and grows if still short. */
    private void compactOrGrow(int len) {
        int live = writePos - readPos;
        System.arraycopy(buf, readPos, buf, 0, live);
        readPos = 0;
        writePos = live;
        if (live + len > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(live + len, buf.length * 2));
        }
    }

    /** Frees the decoder's native memory. */
    @Override
    public void close() {
        decoder.close();
    }
}

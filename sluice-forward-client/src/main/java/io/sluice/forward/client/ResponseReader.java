package io.sluice.forward.client;

import io.sluice.forward.codec.FrameScanner;
import io.sluice.forward.codec.MsgPackReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads whole msgpack messages (acks, HELO, PONG) from a server's byte stream, however the reads
 * split them. Not thread-safe.
 */
final class ResponseReader {
    private final InputStream in;
    private final FrameScanner scanner;
    private final MsgPackReader reader = new MsgPackReader();
    private byte[] buf = new byte[512];
    private int readPos;
    private int writePos;

    ResponseReader(InputStream in, int maxResponseBytes) {
        this.in = in;
        this.scanner = new FrameScanner(maxResponseBytes);
    }

    /**
     * Blocks until a whole message has arrived (subject to the socket's read timeout).
     *
     * @return a reader positioned on the message; valid until the next call
     */
    MsgPackReader next() throws IOException {
        int n;
        while ((n = scanner.scan(buf, readPos, writePos - readPos)) < 0) {
            fill();
        }
        reader.reset(buf, readPos, n, 0);
        readPos += n;
        return reader;
    }

    private void fill() throws IOException {
        if (readPos > 0) {
            System.arraycopy(buf, readPos, buf, 0, writePos - readPos);
            writePos -= readPos;
            readPos = 0;
        }
        if (writePos == buf.length) {
            buf = Arrays.copyOf(buf, buf.length * 2);
        }
        int r = in.read(buf, writePos, buf.length - writePos);
        if (r < 0) {
            throw new EOFException("server closed the connection");
        }
        writePos += r;
    }
}

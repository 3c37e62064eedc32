package io.sluice.forward.codec;

/**
 * Finds where a frame (one top-level msgpack array or map) ends, without decoding it into objects:
 * it only walks headers and skips payloads.
 *
 * <p>Resumable: when the bytes seen so far hold no whole frame, {@link #scan} returns -1 and
 * remembers how far it got, so the next call with more bytes continues from there instead of
 * starting over (a large frame arriving in small reads costs linear, not quadratic, time). Between
 * calls the bytes from the frame start may move in memory (a compacted buffer) but must not change.
 *
 * <p>Refuses a frame larger than {@code maxFrameBytes} as soon as a header implies it: a str/bin/ext
 * length, or an array/map count (each element needs at least one byte). A server can therefore drop
 * the connection before buffering an oversized frame. Not thread-safe: one scanner per connection.
 */
public final class FrameScanner {
    private final long maxFrameBytes;
    private boolean started;
    private long scanned;
    private long pending;
    private long declared;

    /** @param maxFrameBytes largest frame accepted, in bytes (at most about 2 GiB: a Java array) */
    public FrameScanner(long maxFrameBytes) {
        if (maxFrameBytes < 1) {
            throw new IllegalArgumentException("maxFrameBytes must be positive: " + maxFrameBytes);
        }
        // Frames live in byte arrays, so no frame can be longer than an array anyway.
        this.maxFrameBytes = Math.min(maxFrameBytes, Integer.MAX_VALUE - 8);
    }

    /** Forgets a partly scanned frame, e.g. after the connection it came from was reset. */
    public void reset() {
        started = false;
        scanned = 0;
        pending = 0;
        declared = 0;
    }

    /**
     * What the headers seen so far say the frame being scanned needs at least, in bytes (0 before its first
     * byte): a reader can make room for the whole frame at once, or refuse it, before its bytes arrive.
     */
    public long minFrameBytes() {
        return Math.max(declared, scanned);
    }

    /**
     * Continues scanning the frame that starts at {@code frameStart}.
     *
     * @param buf        the bytes
     * @param frameStart where the frame starts
     * @param available  bytes available from {@code frameStart}
     * @return the frame length once complete (the scanner is then ready for the next frame), or -1
     * @throws ForwardProtocolException when the frame is malformed or too large
     */
    public int scan(byte[] buf, int frameStart, int available) throws ForwardProtocolException {
        if (!started) {
            if (available < 1) {
                return -1;
            }
            checkFirstByte(buf[frameStart] & 0xff);
            started = true;
            pending = 1;
        }
        while (pending > 0) {
            if (scanned >= available || !step(buf, frameStart, available)) {
                return -1;
            }
        }
        if (scanned > available) {
            return -1; // the last payload is still arriving
        }
        int length = (int) scanned;
        reset();
        return length;
    }

    private static void checkFirstByte(int b) throws ForwardProtocolException {
        ValueType t = ValueType.of(b);
        if (t != ValueType.ARRAY && t != ValueType.MAP) {
            throw new ForwardProtocolException(0, "a frame must be a msgpack array or map, found "
                    + ValueType.describe(b));
        }
    }

    /** Consumes one header; returns false (consuming nothing) when the header is incomplete. */
    private boolean step(byte[] buf, int frameStart, int available) throws ForwardProtocolException {
        int at = frameStart + (int) scanned;
        int b = buf[at] & 0xff;
        int headerSize = ValueType.headerSize(b);
        if (headerSize < 0) {
            throw new ForwardProtocolException(scanned, "invalid msgpack format byte 0xc1");
        }
        if (scanned + headerSize > available) {
            return false;
        }
        long end = scanned + headerSize + ValueType.payloadLength(buf, at, b);
        long children = ValueType.childCount(buf, at, b);
        // Every child and every value still pending needs at least one more byte.
        long minFrameEnd = end + children + (pending - 1);
        if (minFrameEnd > maxFrameBytes) {
            throw new FrameTooLargeException(scanned, minFrameEnd, maxFrameBytes);
        }
        if (minFrameEnd > declared) {
            declared = minFrameEnd;
        }
        scanned = end;
        pending += children - 1;
        return true;
    }
}

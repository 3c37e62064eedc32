package io.sluice.io.socket;

import io.sluice.core.Bytes;
import java.nio.ByteBuffer;

/**
 * Cuts a byte stream into frames, copes with frames split at any byte, and never holds more than
 * {@code maxFrameSize} plus a header in memory: a longer frame is cut at that size (its head is passed on,
 * flagged, the rest skipped and counted). One framer per connection, allocating nothing per frame. Its buffer
 * is its own, or lent by the caller ({@link #useBuffer}): an event loop reads into one buffer shared by all its
 * connections and keeps only a connection's unfinished frame in a buffer of the connection's.
 *
 * <p>A {@link Sink} can refuse a frame ({@link Sink#admit}, when memory is spent): the framer then stops where it
 * is and passes the frame on at a later {@link #drain}, so nothing read is lost.
 *
 * <p>Partitioners, as Gollum's {@code consumer.Socket} names them, plus {@code octet} (RFC 6587):
 * <ul>
 *   <li>{@code delimiter}: frames end with the delimiter, which is removed.</li>
 *   <li>{@code octet}: RFC 6587 octet counting, {@code "LEN SP MSG"}; a frame that does not start with a
 *       digit is read as newline-terminated (non-transparent framing), as rsyslog does.</li>
 *   <li>{@code ascii}: an ASCII length at {@code Offset}, ended by the delimiter, then that many bytes.</li>
 *   <li>{@code binary}/{@code binary_le}/{@code binary_be}: a {@code Size}-byte length at {@code Offset}.</li>
 *   <li>{@code fixed}: frames of exactly {@code Size} bytes.</li>
 * </ul>
 *
 * <p>One class of about 430 lines: the partitioners share the buffer, the skipping of a cut frame's rest and the
 * refusal protocol, and split apart they would each need all three.
 */
public final class Framer {
    /** Receives frames; the bytes are valid only during the call. */
    @FunctionalInterface
    public interface Sink {
        /** One frame in {@code buf[off, off+len)}; {@code truncated} when it was cut at the maximum size. */
        void frame(byte[] buf, int off, int len, boolean truncated) throws InterruptedException;

        /**
         * Called before each frame of {@code len} bytes: false keeps it, and every frame after it, in the buffer
         * until a later {@link #drain}. The default takes every frame.
         */
        default boolean admit(int len) {
            return true;
        }
    }

    /** How frames are found. */
    public enum Mode { DELIMITER, OCTET, ASCII, BINARY_LE, BINARY_BE, FIXED }

    private static final int MAX_HEADER = 24;
    private static final byte[] EMPTY = new byte[0];
    private static final byte[] NEWLINE = {'\n'};

    private final Mode mode;
    private final byte[] delimiter;
    private final int offset;
    private final int size;
    private final int maxFrame;
    private final boolean stripCr;
    private byte[] buf;
    private ByteBuffer view;
    private int start;
    private int scanFrom;
    private long skipRemaining;
    private boolean skipToDelimiter;
    /** What a cut frame's rest is skipped to: the delimiter, or a newline after a bad length header. */
    private byte[] skipTo;
    private boolean stalled;

    private long truncated;
    private long badHeaders;
    private long unterminated;

    /**
     * @param mode        the partitioner
     * @param delimiter   frame delimiter (delimiter mode) or length terminator (ascii); octet always uses a space
     * @param offset      where the length starts (ascii, binary)
     * @param size        length bytes (binary) or frame size (fixed)
     * @param maxFrame    longest frame passed on whole
     * @param initialSize first buffer size; grows up to what {@code maxFrame} needs; 0: none until
     *                    {@link #useBuffer} lends one
     */
    public Framer(Mode mode, byte[] delimiter, int offset, int size, int maxFrame, int initialSize) {
        this.mode = mode;
        this.delimiter = delimiter;
        this.offset = offset;
        this.size = size;
        this.maxFrame = mode == Mode.FIXED ? Math.max(maxFrame, size) : maxFrame;
        this.stripCr = delimiter.length == 1 && delimiter[0] == '\n';
        this.buf = initialSize <= 0 ? EMPTY : new byte[Math.max(64, Math.min(initialSize, capacityLimit()))];
        this.view = ByteBuffer.wrap(buf);
    }

    /** The mode of a partitioner as Gollum names it (consumer.Socket's {@code Partitioner} choices); null when unknown. */
    public static Mode mode(String partitioner) {
        switch (partitioner) {
            case "delimiter": return Mode.DELIMITER;
            case "octet": case "rfc6587": return Mode.OCTET;
            case "ascii": return Mode.ASCII;
            case "binary": case "binary_le": return Mode.BINARY_LE;
            case "binary_be": return Mode.BINARY_BE;
            case "fixed": return Mode.FIXED;
            default: return null;
        }
    }

    /** The largest buffer a frame needs (the longest frame and its header): the buffer never grows beyond it. */
    public int capacityLimit() {
        return maxFrame + Math.max(MAX_HEADER, offset + delimiter.length + 21);
    }

    /** Bytes read that are not passed on yet: an unfinished frame, or frames a sink refused. */
    public int pending() {
        return view.position() - start;
    }

    /** Size of the buffer in use. */
    public int capacity() {
        return buf.length;
    }

    /**
     * Moves the pending bytes to the front of {@code target} (which must hold them) and reads into it from now
     * on; {@code targetView} wraps {@code target}.
     */
    public void useBuffer(byte[] target, ByteBuffer targetView) {
        int end = view.position();
        int n = end - start;
        if (n > target.length) {
            throw new IllegalArgumentException(n + " pending bytes do not fit a buffer of " + target.length);
        }
        System.arraycopy(buf, start, target, 0, n);
        scanFrom = Math.max(0, scanFrom - start);
        start = 0;
        buf = target;
        view = targetView;
        view.clear().position(n);
    }

    /**
     * The buffer to read into, positioned at the free space: unread bytes are moved to the front, or the
     * buffer grows, when there is no room left.
     */
    public ByteBuffer readTarget() {
        int end = view.position();
        if (end == buf.length) {
            if (start > 0) {
                System.arraycopy(buf, start, buf, 0, end - start);
                end -= start;
                scanFrom -= start;
                start = 0;
            } else {
                byte[] bigger = new byte[Math.min(capacityLimit(), Math.max(64, buf.length * 2))];
                System.arraycopy(buf, 0, bigger, 0, end);
                buf = bigger;
                view = ByteBuffer.wrap(buf);
            }
            view.clear().position(end);
        }
        return view;
    }

    /** Copies bytes in (for callers that do not read from a channel, such as datagrams and tests). */
    public void feed(byte[] src, int off, int len, Sink sink) throws InterruptedException {
        while (len > 0) {
            ByteBuffer t = readTarget();
            int n = Math.min(len, t.remaining());
            t.put(src, off, n);
            off += n;
            len -= n;
            drain(sink);
        }
    }

    /**
     * Passes on every complete frame in the buffer.
     *
     * @return false when the sink refused a frame ({@link Sink#admit}): it is still pending
     */
    public boolean drain(Sink sink) throws InterruptedException {
        stalled = false;
        int end = view.position();
        while (start < end) {
            if (skipRemaining > 0) {
                int k = (int) Math.min(skipRemaining, end - start);
                start += k;
                skipRemaining -= k;
                scanFrom = start;
                continue;
            }
            int consumed;
            if (skipToDelimiter) {
                consumed = delimited(sink, end);
                if (consumed < 0) {
                    break;
                }
                continue;
            }
            switch (mode) {
                case DELIMITER:
                    consumed = delimited(sink, end);
                    break;
                case OCTET:
                    consumed = buf[start] >= '0' && buf[start] <= '9' ? counted(sink, end, start, (byte) ' ')
                            : delimited(sink, end);
                    break;
                case ASCII:
                    consumed = end - start < offset + 1 ? -1 : counted(sink, end, start + offset, delimiter[0]);
                    break;
                case FIXED:
                    consumed = end - start >= size ? emit(sink, start, size, end) : -1;
                    break;
                default:
                    consumed = binary(sink, end);
            }
            if (consumed < 0) {
                break;
            }
        }
        if (start == end) {
            start = 0;
            scanFrom = 0;
            view.clear();
        }
        return !stalled;
    }

    private boolean admit(Sink sink, int len) {
        if (sink.admit(len)) {
            return true;
        }
        stalled = true;
        return false;
    }

    /**
     * The peer is gone: a last frame without its delimiter is passed on too (counted), never dropped.
     *
     * @return false when the sink refused a frame: call again later, nothing was lost
     */
    public boolean finish(Sink sink) throws InterruptedException {
        if (!drain(sink)) {
            return false;
        }
        int end = view.position();
        if (end > start && skipRemaining == 0 && !skipToDelimiter) {
            int len = end - start;
            if (stripCr && buf[end - 1] == '\r') {
                len--;
            }
            // A length header and the start of its frame can together be longer than MaxLineSize: cut there.
            boolean cut = len > maxFrame;
            len = Math.min(len, maxFrame);
            if (!admit(sink, len)) {
                return false;
            }
            unterminated++;
            if (cut) {
                truncated++;
            }
            sink.frame(buf, start, len, cut);
        }
        start = 0;
        scanFrom = 0;
        skipRemaining = 0;
        skipToDelimiter = false;
        view.clear();
        return true;
    }

    private int delimited(Sink sink, int end) throws InterruptedException {
        if (skipToDelimiter) {
            int at = Bytes.indexOf(buf, Math.max(start, scanFrom), end, skipTo);
            if (at < 0) {
                start = Math.max(start, end - skipTo.length + 1);
                scanFrom = start;
                return -1;
            }
            skipToDelimiter = false;
            start = at + skipTo.length;
            scanFrom = start;
            return 0;
        }
        int at = Bytes.indexOf(buf, Math.max(start, scanFrom), end, delimiter);
        if (at < 0) {
            scanFrom = Math.max(start, end - delimiter.length + 1);
            // Longer than MaxLineSize for certain only once a delimiter (and a CR before it) could no longer end a
            // frame of MaxLineSize bytes; cutting earlier made the frames depend on how reads split the stream.
            if (end - start >= maxFrame + delimiter.length + (stripCr ? 1 : 0)) {
                if (!admit(sink, maxFrame)) {
                    return -1;
                }
                truncated++;
                sink.frame(buf, start, maxFrame, true);
                start += maxFrame;
                scanFrom = start;
                skipToDelimiter = true;
                skipTo = delimiter;
                return 0;
            }
            return -1;
        }
        int len = at - start;
        if (stripCr && len > 0 && buf[at - 1] == '\r') {
            len--;
        }
        if (len > maxFrame) {
            if (!admit(sink, maxFrame)) {
                scanFrom = at;
                return -1;
            }
            truncated++;
            sink.frame(buf, start, maxFrame, true);
        } else if (len > 0 || mode == Mode.DELIMITER) {
            if (!admit(sink, len)) {
                scanFrom = at;
                return -1;
            }
            sink.frame(buf, start, len, false);
        }
        start = at + delimiter.length;
        scanFrom = start;
        return 0;
    }

    /** "LEN&lt;sep&gt;MSG": the length's digits start at {@code digits}; the header ends with {@code sep}. */
    private int counted(Sink sink, int end, int digits, byte sep) throws InterruptedException {
        int limit = Math.min(end, digits + 12);
        int sp = Bytes.indexOf(buf, digits, limit, sep);
        if (sp < 0) {
            if (limit - digits < 12) {
                return -1;
            }
            return badHeader(sink, end);
        }
        long n = Bytes.parseDecimal(buf, digits, sp, Integer.MAX_VALUE);
        if (n < 0) {
            return badHeader(sink, end);
        }
        return emit(sink, sp + 1, n, end);
    }

    private int binary(Sink sink, int end) throws InterruptedException {
        int header = offset + size;
        if (end - start < header) {
            return -1;
        }
        long n = 0;
        int at = start + offset;
        for (int i = 0; i < size; i++) {
            int b = buf[at + (mode == Mode.BINARY_BE ? i : size - 1 - i)] & 0xFF;
            n = (n << 8) | b;
        }
        if (n < 0) {
            return badHeader(sink, end);
        }
        return emit(sink, start + header, n, end);
    }

    /** A frame of {@code n} bytes starting at {@code body}; cut at the maximum, waiting for more if needed. */
    private int emit(Sink sink, int body, long n, int end) throws InterruptedException {
        if (n > maxFrame) {
            if (end - body < maxFrame || !admit(sink, maxFrame)) {
                return -1;
            }
            truncated++;
            sink.frame(buf, body, maxFrame, true);
            start = body + maxFrame;
            skipRemaining = n - maxFrame;
            scanFrom = start;
            return 0;
        }
        if (end - body < n || !admit(sink, (int) n)) {
            return -1;
        }
        sink.frame(buf, body, (int) n, false);
        start = body + (int) n;
        scanFrom = start;
        return 0;
    }

    /** A length that does not parse: counted, and the bytes up to the next newline become a frame as they are. */
    private int badHeader(Sink sink, int end) throws InterruptedException {
        int at = Bytes.indexOf(buf, start, end, (byte) '\n');
        if (at < 0) {
            if (end - start >= maxFrame) {
                if (!admit(sink, maxFrame)) {
                    return -1;
                }
                badHeaders++;
                truncated++;
                sink.frame(buf, start, maxFrame, true);
                start += maxFrame;
                scanFrom = start;
                skipToDelimiter = true;
                skipTo = NEWLINE; // a bad header's line ends at a newline, whatever the delimiter
                return 0;
            }
            return -1;
        }
        // A line can be longer than MaxLineSize by the length header the buffer makes room for: cut it there too.
        int len = Math.min(at - start, maxFrame);
        if (!admit(sink, len)) {
            return -1;
        }
        badHeaders++;
        boolean cut = len < at - start;
        if (cut) {
            truncated++;
        }
        sink.frame(buf, start, len, cut);
        start = at + 1;
        scanFrom = start;
        return 0;
    }

    /** Frames cut at the maximum size. */
    public long truncated() {
        return truncated;
    }

    /** Length headers that did not parse. */
    public long badHeaders() {
        return badHeaders;
    }

    /** Last frames that ended without a delimiter when the peer left. */
    public long unterminated() {
        return unterminated;
    }
}

package io.sluice.forward.codec;

import java.nio.ByteBuffer;

/**
 * Decodes one whole Forward frame of any mode (Message, Forward, PackedForward,
 * CompressedPackedForward) and hands its options and events to an {@link EventSink}.
 *
 * <p>Accepted event times: EventTime as fixext8 or ext8 (type 0, 8 bytes), integer seconds, float
 * seconds, and the v1.5 form {@code [time, {metadata}]} that Fluent Bit sends. PackedForward
 * payloads may be bin or str; gzip payloads may hold several concatenated members.
 *
 * <p>Records are not decoded unless asked: the sink gets a {@link RecordView} over the record's
 * msgpack bytes. The decoder reuses its readers and decompression buffer, so decoding allocates
 * only the tag string and option strings per frame. Use {@link FrameScanner} first to find where
 * a frame ends in a byte stream. Not thread-safe: one decoder per connection or thread.
 */
// Over 400 lines: the four frame modes, options and the suspend/resume state of one frame belong together;
// the entry time slot is in EntryTime.
public final class ForwardDecoder implements AutoCloseable {
    /** Default limit on a decompressed payload: 64 MiB. */
    public static final long DEFAULT_MAX_DECOMPRESSED_BYTES = 64L << 20;

    private final MsgPackReader reader = new MsgPackReader();
    private final MsgPackReader entries = new MsgPackReader();
    private final RecordView view = new RecordView();
    private static final int INFLATE_INITIAL = 4096;
    /** Inflate buffer capacity kept after a frame; a bigger one (grown for one large payload) is let go. */
    public static final int INFLATE_KEEP = 1 << 20;

    private MsgPackWriter inflated = new MsgPackWriter(INFLATE_INITIAL);
    private final Gzip gzip = new Gzip();
    private final long maxDecompressedBytes;
    private byte[] copy = new byte[0];
    private BufferAllowance allowance = BufferAllowance.UNLIMITED;

    // Where a suspended frame stopped (see resume).
    private static final int DONE = 0;
    private static final int RESTART = 1;
    private static final int IN_MESSAGE = 2;
    private static final int IN_FORWARD = 3;
    private static final int IN_STREAM = 4;
    private int suspended = DONE;
    private byte[] suspendedBuf;
    private int suspendedOff;
    private int suspendedLen;
    private String suspendedTag;
    private MsgPackReader suspendedReader;
    private int suspendedEntries;
    private long suspendedPayloadAt = -1;

    private ForwardMode lastMode;
    private String chunk;
    private long size;
    private String compressed;
    /** The current event's time and v1.5 metadata. */
    private final EntryTime time = new EntryTime();

    /** Creates a decoder with the default decompression limit. */
    public ForwardDecoder() {
        this(DEFAULT_MAX_DECOMPRESSED_BYTES);
    }

    /** @param maxDecompressedBytes largest gzip payload accepted once inflated */
    public ForwardDecoder(long maxDecompressedBytes) {
        this.maxDecompressedBytes = maxDecompressedBytes;
    }

    /**
     * Counts the inflate buffer's growth against {@code allowance} (and its shrinking back): it may refuse with
     * {@link DecodeSuspendedException}, which suspends the frame like a sink's refusal.
     */
    public void allowance(BufferAllowance allowance) {
        this.allowance = allowance;
    }

    /** @return whether the last frame stopped part-way ({@link DecodeSuspendedException}): call {@link #resume} */
    public boolean suspended() {
        return suspended != DONE;
    }

    /**
     * Continues the frame whose decoding stopped with {@link DecodeSuspendedException}, starting with the event
     * that was refused (or, when inflating was refused, with the frame). The frame's bytes must not have changed.
     *
     * @return the events emitted by this call
     * @throws DecodeSuspendedException when refused again (call again later)
     * @throws ForwardProtocolException when the rest of the frame is malformed
     */
    public int resume(EventSink sink) throws ForwardProtocolException {
        int state = suspended;
        suspended = DONE;
        switch (state) {
            case RESTART:
                return decode(suspendedBuf, suspendedOff, suspendedLen, sink);
            case IN_MESSAGE:
                return decodeMessage(suspendedReader, suspendedTag, sink);
            case IN_FORWARD:
                return decodeEntries(suspendedReader, suspendedEntries, suspendedTag, sink);
            case IN_STREAM:
                return decodeStreamAt(suspendedReader, suspendedTag, sink, suspendedPayloadAt);
            default:
                return 0;
        }
    }

    /** Forgets a suspended frame (its connection closed). */
    public void abandon() {
        suspended = DONE;
        suspendedBuf = null;
        suspendedReader = null;
    }

    /**
     * Lets go of an inflate buffer that grew past {@link #INFLATE_KEEP} for one large payload (returning its
     * growth to the allowance). Call between frames.
     */
    public void trim() {
        if (inflated.capacity() > INFLATE_KEEP && suspended == DONE) {
            int grown = inflated.capacity() - INFLATE_INITIAL;
            inflated = new MsgPackWriter(INFLATE_INITIAL);
            allowance.shrink(grown);
        }
    }

    /** @return the inflate buffer's capacity, for tests */
    public int inflateCapacity() {
        return inflated.capacity();
    }

    /** @return the mode of the last frame decoded, or null */
    public ForwardMode lastMode() {
        return lastMode;
    }

    /**
     * Decodes the frame in the buffer's remaining bytes, which must be exactly one frame. The
     * buffer's position is not changed. A direct buffer is copied into a reused array first.
     *
     * @param frame the frame
     * @param sink  receives options and events
     * @return the number of events
     * @throws ForwardProtocolException when the frame is malformed
     */
    public int decode(ByteBuffer frame, EventSink sink) throws ForwardProtocolException {
        int len = frame.remaining();
        if (frame.hasArray()) {
            return decode(frame.array(), frame.arrayOffset() + frame.position(), len, sink);
        }
        if (copy.length < len) {
            copy = new byte[Math.max(len, copy.length * 2)];
        }
        frame.duplicate().get(copy, 0, len);
        return decode(copy, 0, len, sink);
    }

    /**
     * Decodes the frame in {@code buf[off, off+len)}, which must be exactly one frame. Error
     * offsets count from {@code off}.
     *
     * @param buf  the bytes
     * @param off  frame start
     * @param len  frame length
     * @param sink receives options and events
     * @return the number of events
     * @throws ForwardProtocolException when the frame is malformed
     */
    public int decode(byte[] buf, int off, int len, EventSink sink) throws ForwardProtocolException {
        suspended = DONE;
        MsgPackReader r = reader.reset(buf, off, len, 0);
        int elements = r.readArrayHeader();
        if (elements < 2 || elements > 4) {
            throw new ForwardProtocolException(0, "a Forward frame is an array of 2 to 4 elements, found "
                    + elements);
        }
        String tag = readTag(r);
        int bodyStart = r.position();
        ForwardMode mode = skipBody(r, elements);
        readOptions(r, elements - (mode == ForwardMode.MESSAGE ? 3 : 2));
        if (r.hasRemaining()) {
            throw r.error("trailing bytes after the frame");
        }
        mode = checkCompression(mode, r, bodyStart);
        lastMode = mode;
        r.position(bodyStart);
        long payloadAt = r.offset();
        if (mode == ForwardMode.COMPRESSED_PACKED_FORWARD) {
            // Inflated before the sink hears of the frame: refused for want of memory, it starts over unseen.
            int plen = r.readStrOrBinHeader();
            try {
                presize(r.array(), r.position(), plen, r.offset());
                gzip.decompress(r.array(), r.position(), plen, inflated, maxDecompressedBytes, r.offset(), allowance);
            } catch (DecodeSuspendedException e) {
                suspend(RESTART, null, tag, 0);
                suspendedBuf = buf;
                suspendedOff = off;
                suspendedLen = len;
                throw e;
            }
        }
        sink.onOptions(chunk, size, compressed);
        return switch (mode) {
            case MESSAGE -> decodeMessage(r, tag, sink);
            case FORWARD -> decodeEntries(r, r.readArrayHeader(), tag, sink);
            case PACKED_FORWARD -> decodePacked(r, tag, sink);
            case COMPRESSED_PACKED_FORWARD ->
                    decodeStreamAt(entries.reset(inflated.array(), 0, inflated.size(), 0), tag, sink, payloadAt);
        };
    }

    /**
     * A gzip member ends with its inflated size (mod 2^32), so the last one says how much at least the payload
     * inflates to: the buffer is made that big at once (asking the allowance, which refuses what it could never
     * hold before anything is inflated), instead of doubling its way there. The size is believed only up to what
     * deflate can produce from that many bytes (about 1,032 to 1) and the limit; a false one costs no more than
     * the doubling would have, since the payload must still inflate and match it.
     */
    private void presize(byte[] src, int off, int len, long at) {
        if (len < 18) {
            return; // not even one member: the inflater reports it
        }
        int p = off + len - 4;
        long hint = (src[p] & 0xffL) | (src[p + 1] & 0xffL) << 8 | (src[p + 2] & 0xffL) << 16 | (src[p + 3] & 0xffL) << 24;
        if (hint > maxDecompressedBytes || hint > 1032L * len + 4096) {
            return;
        }
        if (hint > inflated.capacity()) {
            allowance.grow(hint - inflated.capacity());
            inflated = new MsgPackWriter((int) hint);
        }
    }

    private void suspend(int state, MsgPackReader at, String tag, int entriesLeft) {
        suspended = state;
        suspendedReader = at;
        suspendedTag = tag;
        suspendedEntries = entriesLeft;
    }

    private static String readTag(MsgPackReader r) throws ForwardProtocolException {
        if (r.nextType() != ValueType.STRING) {
            throw r.error("tag must be a str, found " + ValueType.describe(r.peek()));
        }
        return r.readString();
    }

    /** Skips the events part, so the options (which come last) can be read before decoding it. */
    private static ForwardMode skipBody(MsgPackReader r, int elements) throws ForwardProtocolException {
        ValueType t = r.nextType();
        ForwardMode mode = switch (t) {
            case ARRAY -> ForwardMode.FORWARD;
            case STRING, BINARY -> ForwardMode.PACKED_FORWARD;
            default -> ForwardMode.MESSAGE;
        };
        if (mode == ForwardMode.MESSAGE && elements < 3 || mode != ForwardMode.MESSAGE && elements > 3) {
            throw new ForwardProtocolException(0, "a " + mode + " frame cannot have " + elements
                    + " elements");
        }
        r.skipValue();
        if (mode == ForwardMode.MESSAGE) {
            r.skipValue(); // the record
        }
        return mode;
    }

    private void readOptions(MsgPackReader r, int present) throws ForwardProtocolException {
        chunk = null;
        size = -1;
        compressed = null;
        if (present == 0 || r.nextType() == ValueType.NIL && r.readValue() == null) {
            return;
        }
        if (r.nextType() != ValueType.MAP) {
            throw r.error("options must be a map, found " + ValueType.describe(r.peek()));
        }
        int n = r.readMapHeader();
        for (int i = 0; i < n; i++) {
            readOption(r);
        }
    }

    private void readOption(MsgPackReader r) throws ForwardProtocolException {
        if (r.nextType() != ValueType.STRING) {
            r.skipValue();
            r.skipValue();
            return;
        }
        String key = r.readString();
        switch (key) {
            case "chunk" -> chunk = readOptionString(r, key);
            case "compressed" -> compressed = readOptionString(r, key);
            case "size" -> size = readOptionSize(r);
            default -> r.skipValue();
        }
    }

    private static String readOptionString(MsgPackReader r, String key) throws ForwardProtocolException {
        if (r.nextType() != ValueType.STRING && r.nextType() != ValueType.BINARY) {
            throw r.error("option " + key + " must be a str, found " + ValueType.describe(r.peek()));
        }
        return r.readString();
    }

    private static long readOptionSize(MsgPackReader r) throws ForwardProtocolException {
        if (r.nextType() != ValueType.INTEGER) {
            throw r.error("option size must be an integer, found " + ValueType.describe(r.peek()));
        }
        return r.readLong();
    }

    private ForwardMode checkCompression(ForwardMode mode, MsgPackReader r, int bodyStart)
            throws ForwardProtocolException {
        if (compressed == null) {
            return mode;
        }
        long at = bodyStart - (r.position() - r.offset());
        if (!compressed.equals("gzip")) {
            throw new ForwardProtocolException(at, "unsupported compression \"" + compressed + "\"");
        }
        if (mode != ForwardMode.PACKED_FORWARD) {
            throw new ForwardProtocolException(at, "compressed option on a " + mode + " frame");
        }
        return ForwardMode.COMPRESSED_PACKED_FORWARD;
    }

    private int decodeMessage(MsgPackReader r, String tag, EventSink sink) throws ForwardProtocolException {
        int at = r.position();
        try {
            time.read(r, true);
            emit(r, tag, sink);
        } catch (DecodeSuspendedException e) {
            r.position(at);
            suspend(IN_MESSAGE, r, tag, 0);
            throw e;
        }
        return 1;
    }

    /** The {@code n} entries of a Forward mode array, from the reader's position. */
    private int decodeEntries(MsgPackReader r, int n, String tag, EventSink sink) throws ForwardProtocolException {
        for (int i = 0; i < n; i++) {
            int at = r.position();
            try {
                decodeEntry(r, tag, sink);
            } catch (DecodeSuspendedException e) {
                r.position(at);
                suspend(IN_FORWARD, r, tag, n - i);
                throw e;
            }
        }
        return n;
    }

    private int decodePacked(MsgPackReader r, String tag, EventSink sink) throws ForwardProtocolException {
        int len = r.readStrOrBinHeader();
        return decodeStreamAt(entries.reset(r.array(), r.position(), len, r.offset()), tag, sink, -1);
    }

    /**
     * Entries up to the end of {@code in}; {@code gzipAt} is the offset of the compressed payload they were
     * inflated from (errors then name both offsets), or -1.
     */
    private int decodeStreamAt(MsgPackReader in, String tag, EventSink sink, long gzipAt)
            throws ForwardProtocolException {
        int n = 0;
        try {
            while (in.hasRemaining()) {
                int at = in.position();
                try {
                    decodeEntry(in, tag, sink);
                } catch (DecodeSuspendedException e) {
                    in.position(at);
                    suspend(IN_STREAM, in, tag, 0);
                    suspendedPayloadAt = gzipAt;
                    throw e;
                }
                n++;
            }
        } catch (ForwardProtocolException e) {
            if (gzipAt < 0) {
                throw e;
            }
            throw new ForwardProtocolException(gzipAt, "in the gzip payload, at decompressed offset "
                    + e.offset() + ": " + e.reason(), e);
        }
        return n;
    }

    private void decodeEntry(MsgPackReader in, String tag, EventSink sink) throws ForwardProtocolException {
        long at = in.offset();
        int n = in.readArrayHeader();
        if (n != 2) {
            throw new ForwardProtocolException(at, "an entry is [time, record], found an array of " + n);
        }
        time.read(in, true);
        emit(in, tag, sink);
    }

    private void emit(MsgPackReader in, String tag, EventSink sink) throws ForwardProtocolException {
        if (in.nextType() != ValueType.MAP) {
            throw in.error("record must be a map, found " + ValueType.describe(in.peek()));
        }
        int start = in.position();
        // Depth-limited: the record goes on to recursive readers and writers (RecordView.toMap, the JSON mapping).
        in.skipValueLimited();
        view.set(in.array(), start, in.position() - start, time.metaOffset, time.metaLength);
        sink.onEvent(tag, time.seconds, time.nanos, view);
    }

    /** Frees zlib's native memory now rather than when collected. */
    @Override
    public void close() {
        abandon();
        gzip.close();
    }
}

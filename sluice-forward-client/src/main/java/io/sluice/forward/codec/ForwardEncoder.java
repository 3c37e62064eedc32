package io.sluice.forward.codec;

import java.util.Map;

/**
 * Writes Forward frames of every mode into a caller's reusable {@link MsgPackWriter}.
 *
 * <p>Tags and record keys are encoded once and then copied from {@link KeyCache}s; option keys are
 * constants. Frames are appended to the writer, so several can be written back to back.
 *
 * <p>Options: Forward and (Compressed)PackedForward frames always carry {@code size}; {@code chunk}
 * is written when given (ack requested); {@code compressed: "gzip"} for CompressedPackedForward.
 * Message frames carry an options map only when a chunk is given. Not thread-safe.
 */
public final class ForwardEncoder implements AutoCloseable {
    private static final byte[] SIZE = KeyCache.encode("size");
    private static final byte[] CHUNK = KeyCache.encode("chunk");
    private static final byte[] COMPRESSED = KeyCache.encode("compressed");
    private static final byte[] GZIP = KeyCache.encode("gzip");

    private final TimeFormat timeFormat;
    private final KeyCache tags = new KeyCache(1024);
    private final KeyCache keys = new KeyCache();
    private final Gzip gzip;

    /** Creates an encoder writing EventTime and gzip level 1. */
    public ForwardEncoder() {
        this(TimeFormat.EVENT_TIME, new Gzip());
    }

    /**
     * @param timeFormat how Message mode times are written (batches carry their own format)
     * @param gzip       compressor for CompressedPackedForward
     */
    public ForwardEncoder(TimeFormat timeFormat, Gzip gzip) {
        this.timeFormat = timeFormat;
        this.gzip = gzip;
    }

    /** @return the cache of record key encodings, to share with {@link EventBatch}es */
    public KeyCache keyCache() {
        return keys;
    }

    /**
     * Writes a Message mode frame {@code [tag, time, record, options?]}.
     *
     * @param out          destination
     * @param tag          the tag
     * @param epochSeconds seconds since the epoch
     * @param nanos        nanoseconds within the second
     * @param record       the record
     * @param chunk        chunk id when an ack is wanted, else null
     */
    public void message(MsgPackWriter out, String tag, long epochSeconds, int nanos,
                        Map<String, ?> record, String chunk) {
        messageHead(out, tag, epochSeconds, nanos, chunk);
        out.writeRecord(record, keys);
        messageTail(out, chunk);
    }

    /**
     * Writes a Message mode frame whose record is already msgpack (a map), copied as is.
     *
     * @param out          destination
     * @param tag          the tag
     * @param epochSeconds seconds since the epoch
     * @param nanos        nanoseconds within the second
     * @param record       record bytes
     * @param off          start of the record
     * @param len          its length
     * @param chunk        chunk id when an ack is wanted, else null
     */
    public void messageRaw(MsgPackWriter out, String tag, long epochSeconds, int nanos,
                           byte[] record, int off, int len, String chunk) {
        messageHead(out, tag, epochSeconds, nanos, chunk);
        out.writeRaw(record, off, len);
        messageTail(out, chunk);
    }

    private void messageHead(MsgPackWriter out, String tag, long epochSeconds, int nanos, String chunk) {
        out.writeArrayHeader(chunk == null ? 3 : 4);
        out.writeString(tag, tags);
        EventBatch.writeTime(out, timeFormat, epochSeconds, nanos);
    }

    private static void messageTail(MsgPackWriter out, String chunk) {
        if (chunk != null) {
            out.writeMapHeader(1);
            out.writeRaw(CHUNK);
            out.writeString(chunk);
        }
    }

    /**
     * Writes a Forward mode frame {@code [tag, [[time, record], ...], options]}.
     *
     * @param out   destination
     * @param tag   the tag
     * @param batch the events
     * @param chunk chunk id when an ack is wanted, else null
     */
    public void forward(MsgPackWriter out, String tag, EventBatch batch, String chunk) {
        head(out, tag);
        out.writeArrayHeader(batch.count());
        out.writeRaw(batch.array(), 0, batch.sizeBytes());
        options(out, batch.count(), chunk, false);
    }

    /**
     * Writes a PackedForward frame {@code [tag, bin, options]}.
     *
     * @param out   destination
     * @param tag   the tag
     * @param batch the events
     * @param chunk chunk id when an ack is wanted, else null
     */
    public void packed(MsgPackWriter out, String tag, EventBatch batch, String chunk) {
        head(out, tag);
        out.writeBin(batch.array(), 0, batch.sizeBytes());
        options(out, batch.count(), chunk, false);
    }

    /**
     * Writes a CompressedPackedForward frame {@code [tag, bin(gzip), options]}, compressing straight
     * into {@code out}.
     *
     * @param out   destination
     * @param tag   the tag
     * @param batch the events
     * @param chunk chunk id when an ack is wanted, else null
     */
    public void compressed(MsgPackWriter out, String tag, EventBatch batch, String chunk) {
        head(out, tag);
        // The compressed length is known only afterwards: reserve a bin32 header and fill it in.
        int header = out.skip(5);
        gzip.compress(batch.array(), 0, batch.sizeBytes(), out);
        int len = out.size() - header - 5;
        out.putByte(header, 0xc6);
        for (int i = 0; i < 4; i++) {
            out.putByte(header + 1 + i, len >>> (24 - 8 * i));
        }
        options(out, batch.count(), chunk, true);
    }

    /**
     * Writes a frame of the given mode; Message mode writes each event as its own frame.
     *
     * @param mode  the mode
     * @param out   destination
     * @param tag   the tag
     * @param batch the events
     * @param chunk chunk id when an ack is wanted (not allowed for Message mode batches), or null
     */
    public void frame(ForwardMode mode, MsgPackWriter out, String tag, EventBatch batch, String chunk) {
        switch (mode) {
            case FORWARD -> forward(out, tag, batch, chunk);
            case PACKED_FORWARD -> packed(out, tag, batch, chunk);
            case COMPRESSED_PACKED_FORWARD -> compressed(out, tag, batch, chunk);
            case MESSAGE -> throw new IllegalArgumentException("Message mode sends one event per frame");
        }
    }

    private void head(MsgPackWriter out, String tag) {
        out.writeArrayHeader(3);
        out.writeString(tag, tags);
    }

    private static void options(MsgPackWriter out, int size, String chunk, boolean gzip) {
        out.writeMapHeader(1 + (chunk != null ? 1 : 0) + (gzip ? 1 : 0));
        out.writeRaw(SIZE);
        out.writeLong(size);
        if (chunk != null) {
            out.writeRaw(CHUNK);
            out.writeString(chunk);
        }
        if (gzip) {
            out.writeRaw(COMPRESSED);
            out.writeRaw(GZIP);
        }
    }

    /** Frees the compressor's native memory now. */
    @Override
    public void close() {
        gzip.close();
    }
}

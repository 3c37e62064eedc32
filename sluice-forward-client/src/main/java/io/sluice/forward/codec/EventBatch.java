package io.sluice.forward.codec;

import java.time.Instant;
import java.util.Map;

/**
 * Events for one tag, already encoded as a MessagePackEventStream: concatenated
 * {@code [time, record]} arrays. That is the PackedForward payload as is, and the Forward mode
 * array's content, so any mode can be framed from it without re-encoding.
 *
 * <p>Reusable: {@link #clear()} keeps the buffer, so a batch filled and sent repeatedly stops
 * allocating once it has grown to its working size. Not thread-safe.
 */
public final class EventBatch {
    private final MsgPackWriter out;
    private final KeyCache keys;
    private final TimeFormat timeFormat;
    private int count;

    /** Creates a batch writing EventTime, with its own key cache. */
    public EventBatch() {
        this(TimeFormat.EVENT_TIME, new KeyCache(), 4096);
    }

    /**
     * @param timeFormat      how times are written
     * @param keys            cache of record key encodings (may be shared by batches used by one
     *                        thread at a time)
     * @param initialCapacity initial buffer size in bytes
     */
    public EventBatch(TimeFormat timeFormat, KeyCache keys, int initialCapacity) {
        this.out = new MsgPackWriter(initialCapacity);
        this.keys = keys;
        this.timeFormat = timeFormat;
    }

    /**
     * Appends an event.
     *
     * @param epochSeconds seconds since the epoch
     * @param nanos        nanoseconds within the second
     * @param record       the record
     */
    public void add(long epochSeconds, int nanos, Map<String, ?> record) {
        writeEntryHead(epochSeconds, nanos);
        out.writeRecord(record, keys);
        count++;
    }

    /**
     * Appends an event.
     *
     * @param time   event time
     * @param record the record
     */
    public void add(Instant time, Map<String, ?> record) {
        add(time.getEpochSecond(), time.getNano(), record);
    }

    /**
     * Appends an event whose record is already msgpack (one map), copied as is.
     *
     * @param epochSeconds seconds since the epoch
     * @param nanos        nanoseconds within the second
     * @param record       msgpack bytes of the record
     * @param off          start of the record
     * @param len          its length
     */
    public void addRaw(long epochSeconds, int nanos, byte[] record, int off, int len) {
        writeEntryHead(epochSeconds, nanos);
        out.writeRaw(record, off, len);
        count++;
    }

    private void writeEntryHead(long epochSeconds, int nanos) {
        out.writeArrayHeader(2);
        writeTime(out, timeFormat, epochSeconds, nanos);
    }

    static void writeTime(MsgPackWriter w, TimeFormat format, long epochSeconds, int nanos) {
        if (format == TimeFormat.EVENT_TIME) {
            w.writeEventTime(epochSeconds, nanos);
        } else {
            w.writeLong(epochSeconds);
        }
    }

    /**
     * Removes the events added since {@code sizeBytes} and {@code count} were read, e.g. to undo an
     * append that overflowed a budget.
     *
     * @param sizeBytes earlier {@link #sizeBytes()}
     * @param count     earlier {@link #count()}
     */
    public void truncate(int sizeBytes, int count) {
        out.truncate(sizeBytes);
        this.count = count;
    }

    /** Empties the batch, keeping its buffer. */
    public void clear() {
        out.clear();
        count = 0;
    }

    /** @return number of events */
    public int count() {
        return count;
    }

    /** @return encoded size in bytes */
    public int sizeBytes() {
        return out.size();
    }

    /** @return whether the batch holds no event */
    public boolean isEmpty() {
        return count == 0;
    }

    /** @return the buffer's array; the stream is {@code [0, sizeBytes())} */
    public byte[] array() {
        return out.array();
    }

    /** @return the time format used */
    public TimeFormat timeFormat() {
        return timeFormat;
    }

    /** @return the capacity of the buffer, to decide whether a pooled batch is worth keeping */
    public int capacity() {
        return out.capacity();
    }
}

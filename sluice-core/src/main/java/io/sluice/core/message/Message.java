package io.sluice.core.message;

import io.sluice.core.json.JsonFields;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One event: payload bytes, metadata fields, a timestamp with nanoseconds, the stream it travels on and the
 * tag it came with. Messages live in a {@link Batch} and are reused when the batch returns to its pool, so
 * each keeps its own payload buffer, grown once and then written in place: no allocation per event.
 */
public final class Message {
    private static final int INITIAL_CAPACITY = 64;
    /**
     * A payload buffer larger than this is dropped when the message is reused: one large event must not pin its
     * buffer in every pooled message it ever passed through (a pool of 512-message batches would keep gigabytes).
     */
    static final int RETAIN_CAPACITY = 16 * 1024;

    private byte[] payload = new byte[INITIAL_CAPACITY];
    private int length;
    private long timestamp;
    private int stream;
    private int origStream;
    private int hops;
    private String tag;
    private Metadata metadata;
    /** Bumped by every payload change, so a cached view of the payload can tell it is stale. */
    private long payloadStamp;
    private JsonFields jsonIndex;
    private long jsonIndexStamp = -1;
    /** A payload computed but not written yet (see {@link Pending}); null when {@link #payload} is current. */
    private Pending pending;

    /**
     * A payload a formatter has computed but not yet written, because the next formatter may take what it needs
     * from the formatter's own structure instead (format.ExtractJSON after format.ProcessJSON reads one field
     * and replaces the payload: the object in between is never written). Whoever reads the payload first gets
     * it written: every accessor of this class writes a pending payload before it reads. A pending payload is
     * never empty.
     *
     * <p>The pending state belongs to the formatter instance that set it, and that instance is reused for the
     * next message on the same thread; so a pending payload must be written (or replaced) before the message
     * leaves that thread, and before the formatter takes its next message. The modulator chain writes it at its
     * end; the formatter writes its previous one before starting the next.
     */
    public interface Pending {
        /** Writes the payload into {@code m} (through {@link #setPayload} or {@link #ensureCapacity}). */
        void writeTo(Message m);
    }

    Message() {
    }

    /** Clears the message for reuse; the payload buffer and metadata storage are kept. */
    void reset() {
        pending = null;
        length = 0;
        if (payload.length > RETAIN_CAPACITY) {
            payload = new byte[INITIAL_CAPACITY];
        }
        payloadStamp++;
        timestamp = 0;
        stream = Streams.WILDCARD;
        origStream = Streams.WILDCARD;
        hops = 0;
        tag = null;
        if (metadata != null) {
            metadata.clear();
        }
    }

    /** Bytes this message holds whatever it carries now: the object, its payload buffer and metadata storage. */
    long retainedBytes() {
        return 64 + payload.length + (metadata == null ? 0 : metadata.retainedBytes());
    }

    /** The buffer holding the payload in {@code [0, length())}; valid until the payload changes. */
    public byte[] payload() {
        writePending();
        return payload;
    }

    /** Payload length in bytes. */
    public int length() {
        writePending();
        return length;
    }

    /** Sets a payload that is written only when something reads it; see {@link Pending}. */
    public void setPending(Pending p) {
        payloadStamp++;
        pending = p;
    }

    /** The pending payload (see {@link Pending}), or null when the payload is written. */
    public Pending pending() {
        return pending;
    }

    /** Writes the pending payload, if there is one. */
    public void writePending() {
        if (pending != null) {
            Pending p = pending;
            pending = null;
            p.writeTo(this);
        }
    }

    /** The payload as a String (allocates; for tools and tests, not hot paths). */
    public String payloadString() {
        writePending();
        return new String(payload, 0, length, StandardCharsets.UTF_8);
    }

    /** Replaces the payload with a copy of {@code src[off, off+len)}. */
    public void setPayload(byte[] src, int off, int len) {
        ensureCapacity(len, false);
        System.arraycopy(src, off, payload, 0, len);
        length = len;
    }

    /** Replaces the payload with a copy of {@code src}. */
    public void setPayload(byte[] src) {
        setPayload(src, 0, src.length);
    }

    /** Replaces the payload with the UTF-8 bytes of a String (allocates; convenience). */
    public void setPayload(String text) {
        setPayload(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Appends bytes to the payload. */
    public void append(byte[] src, int off, int len) {
        writePending();
        ensureCapacity(length + len, true);
        System.arraycopy(src, off, payload, length, len);
        length += len;
    }

    /** Prepends bytes to the payload, shifting it in place. */
    public void prepend(byte[] src, int off, int len) {
        writePending();
        ensureCapacity(length + len, true);
        System.arraycopy(payload, 0, payload, len, length);
        System.arraycopy(src, off, payload, 0, len);
        length += len;
    }

    /**
     * Makes room for {@code capacity} payload bytes and returns the buffer, for encoders that write in place;
     * follow with {@link #setLength(int)}.
     */
    public byte[] ensureCapacity(int capacity, boolean keep) {
        if (keep) {
            writePending();
        } else {
            pending = null;
        }
        payloadStamp++;
        if (capacity > payload.length) {
            int cap = Math.max(capacity, payload.length * 2);
            payload = keep ? Arrays.copyOf(payload, cap) : new byte[cap];
        }
        return payload;
    }

    /** Sets the payload length after writing into {@link #ensureCapacity(int, boolean)}'s buffer. */
    public void setLength(int newLength) {
        writePending();
        if (newLength < 0 || newLength > payload.length) {
            throw new IndexOutOfBoundsException("length " + newLength + " outside buffer of " + payload.length);
        }
        length = newLength;
        payloadStamp++;
    }

    /**
     * The members of the payload's JSON object as the code that wrote the payload recorded them (offsets into
     * {@link #payload()}), or null when none was recorded or the payload changed since. A formatter that
     * writes a JSON payload records its members, so the next one in the chain need not scan it again.
     * Every payload change goes through {@link #ensureCapacity} or {@link #setLength}, which drop the index.
     */
    public JsonFields jsonIndex() {
        writePending();
        return jsonIndexStamp == payloadStamp ? jsonIndex : null;
    }

    /**
     * Storage, owned by this message, for the index of a JSON payload about to be written; call
     * {@link #commitJsonIndex()} once the payload is in place.
     */
    public JsonFields jsonIndexStorage() {
        if (jsonIndex == null) {
            jsonIndex = new JsonFields();
        }
        jsonIndexStamp = -1;
        jsonIndex.clear();
        return jsonIndex;
    }

    /** Declares the index filled through {@link #jsonIndexStorage()} valid for the current payload. */
    public void commitJsonIndex() {
        jsonIndexStamp = payloadStamp;
    }

    /** Event time, nanoseconds since the epoch. */
    public long timestamp() {
        return timestamp;
    }

    public void setTimestamp(long epochNanos) {
        this.timestamp = epochNanos;
    }

    /** The id of the stream the message travels on (see {@link Streams}). */
    public int stream() {
        return stream;
    }

    /** Moves the message to another stream, remembering the one it was first published to. */
    public void setStream(int streamId) {
        if (origStream == Streams.WILDCARD) {
            origStream = streamId;
        }
        this.stream = streamId;
    }

    /** The stream the message was first published to. */
    public int origStream() {
        return origStream;
    }

    /** How often the message was re-routed (to a fallback stream, say); bounds routing loops. */
    public int hops() {
        return hops;
    }

    /** Counts one more re-route. */
    public int addHop() {
        return ++hops;
    }

    /** The tag it arrived with (Forward), or null. */
    public String tag() {
        return tag;
    }

    public void setTag(String tag) {
        this.tag = tag;
    }

    /** Metadata fields, created on first use and reused afterwards. */
    public Metadata metadata() {
        if (metadata == null) {
            metadata = new Metadata();
        }
        return metadata;
    }

    /** Whether the message has at least one metadata field; does not create the metadata. */
    public boolean hasMetadata() {
        return metadata != null && metadata.size() > 0;
    }

    /** Makes this message a copy of {@code other}: payload, metadata, timestamp, stream and tag. */
    public void copyFrom(Message other) {
        other.writePending();
        setPayload(other.payload, 0, other.length);
        timestamp = other.timestamp;
        stream = other.stream;
        origStream = other.origStream;
        hops = other.hops;
        tag = other.tag;
        if (other.hasMetadata()) {
            metadata().copyFrom(other.metadata);
        } else if (metadata != null) {
            metadata.clear();
        }
    }

    @Override
    public String toString() {
        return "Message{stream=" + Streams.name(stream) + ", payload=" + payloadString()
                + (hasMetadata() ? ", metadata=" + metadata : "") + '}';
    }
}

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

    Message() {
    }

    /** Clears the message for reuse; the payload buffer and metadata storage are kept. */
    void reset() {
        length = 0;
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

    /** The buffer holding the payload in {@code [0, length())}; valid until the payload changes. */
    public byte[] payload() {
        return payload;
    }

    /** Payload length in bytes. */
    public int length() {
        return length;
    }

    /** The payload as a String (allocates; for tools and tests, not hot paths). */
    public String payloadString() {
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
        ensureCapacity(length + len, true);
        System.arraycopy(src, off, payload, length, len);
        length += len;
    }

    /** Prepends bytes to the payload, shifting it in place. */
    public void prepend(byte[] src, int off, int len) {
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
        payloadStamp++;
        if (capacity > payload.length) {
            int cap = Math.max(capacity, payload.length * 2);
            payload = keep ? Arrays.copyOf(payload, cap) : new byte[cap];
        }
        return payload;
    }

    /** Sets the payload length after writing into {@link #ensureCapacity(int, boolean)}'s buffer. */
    public void setLength(int newLength) {
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

package io.sluice.forward.codec;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;

/**
 * A flyweight over one event's record (and its v1.5 metadata, when present) inside the bytes being
 * decoded. It lets a server keep the record's msgpack bytes as they came, with no re-encoding, and
 * decode to a map only when it needs to.
 *
 * <p>Valid only during {@link EventSink#onEvent}: the decoder reuses it and the bytes under it
 * (which may be a decompression buffer) for the next event.
 */
public final class RecordView {
    private final MsgPackReader reader = new MsgPackReader();
    private byte[] buf;
    private int offset;
    private int length;
    private int metadataOffset = -1;
    private int metadataLength;

    void set(byte[] buf, int offset, int length, int metadataOffset, int metadataLength) {
        this.buf = buf;
        this.offset = offset;
        this.length = length;
        this.metadataOffset = metadataOffset;
        this.metadataLength = metadataLength;
    }

    /** @return the array holding the record's msgpack bytes */
    public byte[] buffer() {
        return buf;
    }

    /** @return where the record's msgpack bytes start in {@link #buffer()} */
    public int offset() {
        return offset;
    }

    /** @return the record's msgpack byte count */
    public int length() {
        return length;
    }

    /** @return a copy of the record's msgpack bytes (a msgpack map) */
    public byte[] toBytes() {
        return Arrays.copyOfRange(buf, offset, offset + length);
    }

    /** @return a read-only view of the record's msgpack bytes, sharing the array */
    public ByteBuffer asByteBuffer() {
        return ByteBuffer.wrap(buf, offset, length).slice().asReadOnlyBuffer();
    }

    /**
     * Decodes the record (see {@link MsgPackReader} for the type mapping).
     *
     * @return a new mutable map
     * @throws ForwardProtocolException when the record is malformed
     */
    public Map<String, Object> toMap() throws ForwardProtocolException {
        return reader.reset(buf, offset, length, 0).readMap();
    }

    /** @return whether the event came in the {@code [[time, metadata], record]} form */
    public boolean hasMetadata() {
        return metadataOffset >= 0;
    }

    /** @return where the metadata map starts in {@link #buffer()}, or -1 */
    public int metadataOffset() {
        return metadataOffset;
    }

    /** @return the metadata map's byte count, 0 when absent */
    public int metadataLength() {
        return metadataLength;
    }

    /**
     * @return the decoded metadata, or an empty map when absent
     * @throws ForwardProtocolException when it is malformed
     */
    public Map<String, Object> metadata() throws ForwardProtocolException {
        if (metadataOffset < 0) {
            return new java.util.LinkedHashMap<>();
        }
        return reader.reset(buf, metadataOffset, metadataLength, 0).readMap();
    }
}

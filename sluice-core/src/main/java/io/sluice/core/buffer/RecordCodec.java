package io.sluice.core.buffer;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.Streams;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The disk buffer's records: each {@code [magic "SLB1"][length][crc32c of the body][body]} in a segment file, the
 * body a message's timestamp, stream name, tag, payload and metadata fields with their kinds. Stream names and tags
 * are cached as bytes, so a steady stream of messages encodes and decodes without allocating. One instance per
 * thread (the putting threads each frame their batches outside the buffer's lock; the reader has its own).
 */
final class RecordCodec {
    static final int MAGIC = 0x534C4231; // "SLB1"
    static final int HEADER = 12;
    static final int MAX_RECORD = 64 << 20;
    private static final int NO_TAG = 0xFFFF;

    private byte[][] streamNames = new byte[16][];
    private String lastTag;
    private byte[] lastTagBytes;
    private byte[] lastDecodedTagBytes = new byte[0];
    private String lastDecodedTag;
    private byte[][] knownStreams = new byte[16][];
    private int[] knownStreamIds = new int[16];
    private int knownCount;
    private ByteBuffer frames = ByteBuffer.allocate(256 * 1024);
    private final CRC32C crc = new CRC32C();

    /** Whether a header's magic and length can start a record (its checksum still to be checked). */
    static boolean plausible(int magic, int length) {
        return magic == MAGIC && length > 0 && length <= MAX_RECORD;
    }

    /** The batch's messages as framed records, in this codec's buffer (valid until its next call), ready to write. */
    ByteBuffer frame(Batch batch) {
        ByteBuffer buf = frames;
        buf.clear();
        for (int i = 0; i < batch.size(); i++) {
            int need = HEADER + maxSize(batch.get(i));
            if (buf.remaining() < need) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + need));
                buf.flip();
                bigger.put(buf);
                buf = bigger;
                frames = buf;
            }
            int start = buf.position();
            buf.position(start + HEADER);
            encode(batch.get(i), buf);
            int len = buf.position() - start - HEADER;
            crc.reset();
            crc.update(buf.array(), start + HEADER, len);
            buf.putInt(start, MAGIC).putInt(start + 4, len).putInt(start + 8, (int) crc.getValue());
        }
        buf.flip();
        return buf;
    }

    /** Upper bound of the encoded size, to make room before writing. */
    static int maxSize(Message m) {
        int size = 8 + 2 + 3 * Streams.name(m.stream()).length() + 2 + (m.tag() == null ? 0 : 3 * m.tag().length())
                + 4 + m.length() + 2;
        if (m.hasMetadata()) {
            Metadata md = m.metadata();
            for (int i = 0; i < md.size(); i++) {
                size += 2 + md.keyLength(i) + 1 + 4 + md.valueLength(i);
            }
        }
        return size;
    }

    void encode(Message m, ByteBuffer out) {
        out.putLong(m.timestamp());
        byte[] stream = streamName(m.stream());
        out.putShort((short) stream.length).put(stream);
        if (m.tag() == null) {
            out.putShort((short) NO_TAG);
        } else {
            byte[] tag = tagBytes(m.tag());
            out.putShort((short) tag.length).put(tag);
        }
        out.putInt(m.length()).put(m.payload(), 0, m.length());
        if (!m.hasMetadata()) {
            out.putShort((short) 0);
            return;
        }
        Metadata md = m.metadata();
        out.putShort((short) md.size());
        byte[] arena = md.arena();
        for (int i = 0; i < md.size(); i++) {
            out.putShort((short) md.keyLength(i)).put(arena, md.keyOffset(i), md.keyLength(i));
            out.put(md.kind(i));
            out.putInt(md.valueLength(i)).put(arena, md.valueOffset(i), md.valueLength(i));
        }
    }

    /** Fills {@code m} from a record body; throws on a body that does not parse (counted as corrupt). */
    void decode(ByteBuffer in, Message m) {
        m.setTimestamp(in.getLong());
        int streamLen = in.getShort() & 0xFFFF;
        m.setStream(streamId(in, streamLen));
        int tagLen = in.getShort() & 0xFFFF;
        m.setTag(tagLen == NO_TAG ? null : tag(in, tagLen));
        int payloadLen = in.getInt();
        if (payloadLen < 0 || payloadLen > in.remaining()) {
            throw new IllegalStateException("payload length " + payloadLen + " beyond record");
        }
        byte[] buf = m.ensureCapacity(payloadLen, false);
        in.get(buf, 0, payloadLen);
        m.setLength(payloadLen);
        int fields = in.getShort() & 0xFFFF;
        if (fields == 0) {
            return;
        }
        Metadata md = m.metadata();
        byte[] arr = in.array();
        for (int i = 0; i < fields; i++) {
            int keyLen = in.getShort() & 0xFFFF;
            int keyAt = in.arrayOffset() + in.position();
            in.position(in.position() + keyLen);
            byte kind = in.get();
            int valLen = in.getInt();
            if (valLen < 0 || valLen > in.remaining()) {
                throw new IllegalStateException("metadata value length " + valLen + " beyond record");
            }
            int valAt = in.arrayOffset() + in.position();
            in.position(in.position() + valLen);
            md.set(arr, keyAt, keyLen, arr, valAt, valLen, kind);
        }
    }

    private byte[] streamName(int id) {
        if (id >= streamNames.length) {
            streamNames = Arrays.copyOf(streamNames, Math.max(id + 1, streamNames.length * 2));
        }
        byte[] name = streamNames[id];
        if (name == null) {
            name = Streams.name(id).getBytes(StandardCharsets.UTF_8);
            streamNames[id] = name;
        }
        return name;
    }

    private byte[] tagBytes(String tag) {
        if (tag != lastTag) {
            lastTag = tag;
            lastTagBytes = tag.getBytes(StandardCharsets.UTF_8);
        }
        return lastTagBytes;
    }

    private int streamId(ByteBuffer in, int len) {
        byte[] arr = in.array();
        int at = in.arrayOffset() + in.position();
        in.position(in.position() + len);
        for (int i = 0; i < knownCount; i++) {
            byte[] k = knownStreams[i];
            if (k.length == len && Arrays.equals(k, 0, len, arr, at, at + len)) {
                return knownStreamIds[i];
            }
        }
        byte[] name = Arrays.copyOfRange(arr, at, at + len);
        int id = Streams.id(new String(name, StandardCharsets.UTF_8));
        if (knownCount == knownStreams.length) {
            knownStreams = Arrays.copyOf(knownStreams, knownCount * 2);
            knownStreamIds = Arrays.copyOf(knownStreamIds, knownCount * 2);
        }
        knownStreams[knownCount] = name;
        knownStreamIds[knownCount++] = id;
        return id;
    }

    private String tag(ByteBuffer in, int len) {
        byte[] arr = in.array();
        int at = in.arrayOffset() + in.position();
        in.position(in.position() + len);
        if (lastDecodedTag == null || lastDecodedTagBytes.length != len
                || !Arrays.equals(lastDecodedTagBytes, 0, len, arr, at, at + len)) {
            lastDecodedTagBytes = Arrays.copyOfRange(arr, at, at + len);
            lastDecodedTag = new String(lastDecodedTagBytes, StandardCharsets.UTF_8);
        }
        return lastDecodedTag;
    }
}
